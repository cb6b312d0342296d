import Foundation
import XCTest
@testable import MediaPub

/// When a live feed goes on air and hands back (`LiveFeedSwitch`, docs/presets.md, live), with
/// deliveries given tick by tick. Pure: no media.
final class LiveFeedSwitchTests: XCTestCase {
    /// 25 ticks a second: on air after 500 ms (12.5 → 13 ticks), released after 2 s (50 ticks).
    private func switcher() -> LiveFeedSwitch { LiveFeedSwitch(takeoverAfter: 0.5, releaseAfter: 2, tickRate: 25) }

    /// Runs ticks `range` with `delivered`, returning the changes by tick.
    private func run(_ s: inout LiveFeedSwitch, _ range: Range<UInt64>, delivered: (UInt64) -> Bool,
                     mode: LiveFeedSwitch.Mode = .auto) -> [UInt64: LiveFeedSwitch.Change] {
        var changes: [UInt64: LiveFeedSwitch.Change] = [:]
        for n in range { if let c = s.tick(n, delivered: delivered(n), mode: mode) { changes[n] = c } }
        return changes
    }

    func testOnAirAfterTakeoverHeldThroughAShortDropOutReleasedAfterALongOne() {
        var s = switcher()
        XCTAssertEqual(s.takeoverTicks, 13)
        XCTAssertEqual(s.releaseTicks, 50)
        // Nothing, then the feed from tick 100; a drop-out of 1 s at 200; gone at 300.
        let changes = run(&s, 0..<400) { n in (100..<200).contains(n) || (225..<300).contains(n) }
        XCTAssertEqual(changes, [100: .connected, 113: .onAir, 349: .released("nothing from the feed for 2s")])
        XCTAssertFalse(s.onAir)
        // It comes back: connected and on air again.
        XCTAssertEqual(run(&s, 400..<420) { _ in true }, [400: .connected, 413: .onAir])
    }

    func testAFeedThatStopsBeforeItGoesOnAirIsLost() {
        var s = switcher()
        XCTAssertEqual(run(&s, 0..<100) { $0 < 5 }, [0: .connected, 54: .lost])
        // Closed (failed) meanwhile: nothing more is said of that spell.
        var t = switcher()
        XCTAssertEqual(run(&t, 0..<5) { _ in true }, [0: .connected])
        t.forget()
        XCTAssertEqual(run(&t, 5..<100) { _ in false }, [:])
    }

    func testTheControlModes() {
        var s = switcher()
        XCTAssertEqual(run(&s, 0..<30, delivered: { _ in true }, mode: .off), [0: .connected])
        XCTAssertEqual(run(&s, 30..<31, delivered: { _ in true }, mode: .auto), [30: .onAir], "delivering long enough: at once")
        XCTAssertEqual(run(&s, 31..<32, delivered: { _ in true }, mode: .off), [31: .released("ctl live off")])
        var t = switcher()
        XCTAssertEqual(run(&t, 0..<2, delivered: { _ in true }, mode: .on), [0: .onAir], "on: without takeover_after")
        // Nonsense never traps.
        XCTAssertEqual(LiveFeedSwitch(takeoverAfter: .nan, releaseAfter: .infinity, tickRate: 0).releaseTicks, 3600)
    }
}

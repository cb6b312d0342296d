// The current item's watch (ItemWatch): a progress event each step of media time, the next
// at once after a jump; buffering past 500 ms of output given nothing; broken once it has
// given nothing, or too little, for the limit on the monotonic clock; nothing counts while
// it is not playing or gives all it is asked for.

import XCTest
@testable import MediaPub

final class ItemWatchTests: XCTestCase {
    private let tick = ClockTime(milliseconds: 40)
    private let t0 = MonotonicInstant(nanoseconds: 1_000_000_000_000)

    private func at(_ seconds: Double) -> MonotonicInstant { t0.addingTimeInterval(seconds) }

    func testAProgressEventEachStepAndAtOnceAfterAJump() {
        var w = ItemWatch()
        let due = [0, 400, 999, 1000, 1500, 2300, 2999, 3000].map { w.progressDue(at: $0, step: 1000) }
        XCTAssertEqual(due, [true, false, false, true, false, true, false, true])
        XCTAssertFalse(w.progressDue(at: 3500, step: 1000))
        XCTAssertTrue(w.progressDue(at: 1200, step: 1000), "a position before the last one sent (a seek back)")
        w.positionMoved()
        XCTAssertTrue(w.progressDue(at: 1300, step: 1000), "a jump: at once")
        w.restart()
        XCTAssertTrue(w.progressDue(at: 1400, step: 1000), "a new item: at once")
    }

    /// Ticks of 40 ms, each row what the source gave, and what the watch says after it.
    func testBufferingAndBrokenByTicks() {
        struct Row {
            let gave: Int  // of 1920 frames asked; -1: it has no sound to give (progressed)
            let playing: Bool
            let at: Double
            let buffering: Bool
            let broken: Bool
        }
        let rows: [Row] = [
            Row(gave: 1920, playing: true, at: 0.00, buffering: false, broken: false),
            // Nothing: 13 ticks of 40 ms reach 520 ms > 500 ms, buffering.
        ] + (1...12).map { Row(gave: 0, playing: true, at: Double($0) * 0.04, buffering: false, broken: false) }
          + [Row(gave: 0, playing: true, at: 0.52, buffering: true, broken: false),
             // Some sound again: no longer buffering, still starving (short).
             Row(gave: 100, playing: true, at: 0.56, buffering: false, broken: false),
             // Not playing: nothing counts; buffering counts output time given nothing.
             Row(gave: 0, playing: false, at: 0.60, buffering: false, broken: false),
             // Starving from 1 s on: broken once 5 s have passed since (the limit), not before; the
             // output time given nothing is only these ticks' (not buffering).
             Row(gave: 0, playing: true, at: 1.00, buffering: false, broken: false),
             Row(gave: 0, playing: true, at: 5.75, buffering: false, broken: false),
             Row(gave: 0, playing: true, at: 6.00, buffering: false, broken: true),
             // Counted from the start again after it was found broken.
             Row(gave: 0, playing: true, at: 6.04, buffering: false, broken: false),
             // No sound to give: it progressed, nothing is starving.
             Row(gave: -1, playing: true, at: 20, buffering: false, broken: false),
             Row(gave: 1920, playing: true, at: 40, buffering: false, broken: false)]
        var w = ItemWatch()
        for (i, r) in rows.enumerated() {
            let v = w.tick(length: tick, progressed: r.gave != 0, filled: max(0, r.gave), frames: 1920, playing: r.playing,
                           item: true, began: at(r.at), now: at(r.at), limit: 5)
            XCTAssertEqual(v, ItemWatch.Verdict(buffering: r.buffering, broken: r.broken), "row \(i) at \(r.at)")
        }
    }

    /// A short tick starves from when it began; a second short tick starts over from its own
    /// beginning (it gave something); without an item nothing starts.
    func testAShortTickStarvesFromItsBeginning() {
        var w = ItemWatch()
        _ = w.tick(length: tick, progressed: true, filled: 10, frames: 1920, playing: true, item: true,
                   began: at(0), now: at(0.04), limit: 5)
        XCTAssertEqual(w.starvedSince, at(0))
        XCTAssertTrue(w.tick(length: tick, progressed: false, filled: 0, frames: 1920, playing: true, item: true,
                             began: at(5), now: at(5), limit: 5).broken)
        var none = ItemWatch()
        XCTAssertFalse(none.tick(length: tick, progressed: false, filled: 0, frames: 1920, playing: true, item: false,
                                 began: at(0), now: at(10), limit: 5).broken)
        XCTAssertNil(none.starvedSince)
        none.notPlaying()
        XCTAssertNil(none.starvedSince)
    }
}

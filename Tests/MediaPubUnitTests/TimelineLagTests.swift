import Synchronization
import XCTest
@testable import MediaPub

/// When a realtime timeline is late and when it has caught up (`TimelineLag`), from
/// injected instants of the monotonic clock: at 25 fps, late past 2 ticks (80 ms) behind
/// for over a second, caught up within 1 tick (40 ms).
final class TimelineLagTests: XCTestCase {
    private let ms: UInt64 = 1_000_000

    /// What was said, in ms, with the tick it was said at.
    private enum Said: Equatable {
        case late(tick: Int, lag: UInt64, since: UInt64)
        case caughtUp(tick: Int, lateFor: UInt64, worst: UInt64)
    }

    /// Readings (due, now), in ms, one a tick; what was said.
    private func said(_ readings: [(due: UInt64, now: UInt64)]) -> [Said] {
        var lag = TimelineLag(tickRate: 25)
        return readings.enumerated().compactMap { tick, r in
            switch lag.observe(due: r.due * ms, now: r.now * ms) {
            case .late(let lag, let since)?: return .late(tick: tick, lag: lag / ms, since: since / ms)
            case .caughtUp(let lateFor, let worst)?: return .caughtUp(tick: tick, lateFor: lateFor / ms, worst: worst / ms)
            case nil: return nil
            }
        }
    }

    /// The timeline's loop at 25 fps: tick n is due at 40n ms; it is read when the tick before
    /// it is done, sleeps until its time when early, and takes `cost(n)` ms to make.
    private func loop(ticks: Int, cost: (Int) -> UInt64) -> [(due: UInt64, now: UInt64)] {
        var done: UInt64 = 0
        return (0..<ticks).map { n in
            let due = UInt64(n) * 40
            defer { done = max(done, due) + cost(n) }
            return (due, done)
        }
    }

    func testTheTimelineLoopSaysLateAndCaughtUpOncePerSpell() {
        let rows: [(name: String, ticks: Int, cost: (Int) -> UInt64, said: [Said])] = [
            ("on time", 200, { _ in 10 }, []),
            ("a tick of exactly one frame", 200, { _ in 40 }, []),
            // 460 ms behind at once, back within 2 ticks 510 ms after passing them: no spell.
            ("held up half a second", 200, { $0 == 5 ? 500 : 10 }, []),
            // 2,960 ms behind at once: late on the next tick (behind 2 ticks since due + 80 ms), caught up
            // 84 ticks later at 5 ms a tick.
            ("held up 3 s", 200, { $0 == 10 ? 3000 : 5 },
             [.late(tick: 11, lag: 2960, since: 520), .caughtUp(tick: 95, lateFor: 3300, worst: 2960)]),
            // 10 ms more behind each tick: past 80 ms at tick 9 (since 440 ms), late after a second of it;
            // 400 ms behind at worst when the ticks get fast again at tick 40.
            ("falls behind tick by tick", 200, { $0 < 40 ? 50 : 5 },
             [.late(tick: 29, lag: 290, since: 440), .caughtUp(tick: 51, lateFor: 1615, worst: 400)]),
            ("never keeps up", 200, { _ in 50 }, [.late(tick: 29, lag: 290, since: 440)]),
            // Two spells, each said once.
            ("held up twice", 400, { $0 == 10 || $0 == 200 ? 2000 : 5 },
             [.late(tick: 11, lag: 1960, since: 520), .caughtUp(tick: 66, lateFor: 2155, worst: 1960),
              .late(tick: 201, lag: 1960, since: 8120), .caughtUp(tick: 256, lateFor: 2155, worst: 1960)]),
        ]
        for row in rows {
            XCTAssertEqual(said(loop(ticks: row.ticks, cost: row.cost)), row.said, row.name)
        }
    }

    /// Readings given as lags (ms) a tick; what was said.
    private func said(lags: [UInt64]) -> [Said] {
        said(lags.enumerated().map { n, lag in (UInt64(n) * 40 + 1000, UInt64(n) * 40 + 1000 + lag) })
    }

    func testTheLevelsAndTheHold() {
        let rows: [(name: String, lags: [UInt64], said: [Said])] = [
            ("exactly 2 ticks behind is not behind", Array(repeating: 80, count: 100), []),
            // 81 ms behind from tick 0 (due at 1,000 ms): behind since 1,080 ms; a second of it is over
            // at tick 25 (read at 2,081 ms: 1,001 ms), not at tick 24 (961 ms).
            ("just over 2 ticks for just over a second", Array(repeating: 81, count: 30),
             [.late(tick: 25, lag: 81, since: 1080)]),
            // Back within 2 ticks (but not 1) before the second is up: the spell starts over.
            ("a dip under 2 ticks starts over", Array(repeating: 90, count: 20) + [70] + Array(repeating: 90, count: 20), []),
            // Late, a lag between 1 and 2 ticks is not caught up; within 1 tick it is.
            ("caught up only within 1 tick", [2000] + Array(repeating: 60, count: 50) + [41, 40],
             [.late(tick: 0, lag: 2000, since: 1080), .caughtUp(tick: 52, lateFor: 2040, worst: 2000)]),
            ("early is on time", [0, 0, 0], []),
        ]
        for row in rows {
            XCTAssertEqual(said(lags: row.lags), row.said, row.name)
        }
    }

    func testEarlyReadsAsNoLag() {
        XCTAssertEqual(TimelineLag.lag(due: 5 * ms, now: 3 * ms), 0)
        XCTAssertEqual(TimelineLag.lag(due: 5 * ms, now: 8 * ms), 3 * ms)
        var lag = TimelineLag(tickRate: 25)
        XCTAssertNil(lag.observe(due: 5_000 * ms, now: 0))
        XCTAssertFalse(lag.late)
    }

    /// The watch the capture feeds: what it says (in ms, at the tick's output time) and the lag it
    /// shows once the timeline has stopped.
    func testTheWatchSaysEachChangeOnceInMsOfOutputAndShowsNoLagWhenStopped() {
        let said = Mutex<[Event]>([])
        let watch = TimelineLagWatch(tickRate: 25) { event in said.withLock { $0.append(event) } }
        XCTAssertEqual(watch.lagMs, 0, "before the first tick")
        // Tick 10 held up 3 s, then 5 ms a tick (the loop of the first test).
        for (n, r) in loop(ticks: 100, cost: { $0 == 10 ? 3000 : 5 }).enumerated() {
            watch.tick(UInt64(n), due: (r.due + 1000) * ms, now: (r.now + 1000) * ms)
        }
        XCTAssertEqual(said.withLock { $0 }, [.timelineLate(lagMs: 2960, outputMs: 440),
                                              .timelineCaughtUp(lateForMs: 3300, worstLagMs: 2960, outputMs: 3800)])
        watch.finish()
        XCTAssertEqual(watch.lagMs, 0, "stopped: nothing is behind")
    }
}

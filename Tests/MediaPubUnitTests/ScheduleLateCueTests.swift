import Foundation
import Synchronization
import XCTest
@testable import MediaPub

/// A realtime switch whose cue is made after its commit (the `programme-cue` queue was busy at
/// the commit's tick): the commit took it as still being made; once made with nothing to play,
/// what the commit would have done is done on the next tick (docs/presets.md, Schedule). The
/// runner's actions go into a `TimelineActions` the test runs tick by tick; nothing is played.
final class ScheduleLateCueTests: XCTestCase {
    func testABlockWithNothingToPlayMadeAfterItsCommitIsTakenOffAir() throws {
        let format = MediaFormat(sampleRate: 48000, channels: 2, video: nil)
        let player = MediaPlayer(config: PlayerConfig(id: "p"), format: format, feedsVideo: false)
        let start = ZoneRules.utc.instant(try XCTUnwrap(LocalDateTime(year: 2027, month: 1, day: 1, hour: 0, minute: 0)))
        let at = try XCTUnwrap(LocalDateTime(year: 2027, month: 1, day: 1, hour: 0, minute: 0, second: 10))
        // Its only item is missing and there is no filler: nothing to play.
        let config = ScheduleConfig(blocks: [ScheduleBlock(id: "b", at: .once(at), source: "/nonexistent/b-\(UUID()).mp4")])
        let waiting = Mutex(TimelineActions())
        let seconds = Mutex(0.0)
        let events = Mutex<[String]>([])
        let runner = ScheduleRunner(programme: Programme(config), player: player, realtime: true, tickClock: format.tickClock,
                                    emit: { event in
                                        if case .scheduleBlock(let block, let state, _, _, _) = event {
                                            events.withLock { $0.append("\(block) \(state)") }
                                        }
                                    },
                                    onTimeline: { at, key, action in
                                        // The wall clock's check is not this test's.
                                        guard key != .clock else { return }
                                        waiting.withLock { $0.add(tick: format.tickClock.tick(at: at), key: key.rawValue, action) }
                                    },
                                    outputSeconds: { seconds.withLock { $0 } },
                                    wallClock: { start.addingTimeInterval(seconds.withLock { $0 }) })
        func run(until t: Double) {
            seconds.withLock { $0 = t }
            for action in waiting.withLock({ $0.takeDue(atOrBefore: format.tickClock.tick(at: t)) }) { action() }
        }
        runner.prime(start: start)
        runner.begin()
        // The cue queue is busy (an earlier cue being checked) from before the cue until after the commit.
        let gate = DispatchSemaphore(value: 0)
        runner.cueQueue.async { gate.wait() }
        run(until: 5)
        run(until: 10)
        XCTAssertEqual(runner.status().block, "b", "committed while still being made: on air, as far as the commit knows")
        gate.signal()
        runner.cueQueue.sync {}
        run(until: 10.1)
        XCTAssertNil(runner.status().block, "made with nothing to play: not on air")
        XCTAssertEqual(events.withLock { $0 }, ["b started", "b ended"])
    }
}

import Foundation
import Synchronization
import XCTest
@testable import MediaPub

/// `ctl schedule reload` over and over (docs/presets.md, Schedule: seeing and steering it): each
/// reload plans the next switch anew, in place of the plan before, so the actions waiting on
/// the timeline stay one plan's however many reloads come. The runner's actions go into the
/// capture's own `TimelineActions`; nothing is played. Pure: no media.
final class ScheduleReloadTests: XCTestCase {
    func testFiveThousandReloadsLeaveOnePlanWaiting() throws {
        let format = MediaFormat(sampleRate: 48000, channels: 2, video: nil)
        let player = MediaPlayer(config: PlayerConfig(id: "p"), format: format, feedsVideo: false)
        let next = try XCTUnwrap(LocalDateTime(year: 2027, month: 9, day: 1, hour: 12, minute: 0))
        let config = ScheduleConfig(blocks: [ScheduleBlock(id: "far", at: .once(next), source: "/m/far.mp4")])
        let waiting = Mutex(TimelineActions())
        let runner = ScheduleRunner(programme: Programme(config), player: player, realtime: false, tickClock: format.tickClock,
                                    emit: { _ in },
                                    onTimeline: { seconds, key, action in
                                        let tick = format.tickClock.tick(at: seconds)
                                        waiting.withLock { $0.add(tick: tick, key: key.rawValue, action) }
                                    },
                                    outputSeconds: { 0 })
        runner.prime(start: ZoneRules.utc.instant(try XCTUnwrap(LocalDateTime(year: 2027, month: 1, day: 1, hour: 0, minute: 0))))
        runner.begin()
        XCTAssertEqual(waiting.withLock { $0.count }, 2, "the block's cue and its commit, months ahead")
        let reloads = 5000
        for _ in 0..<reloads { runner.replace(Programme(config)) }
        let count = waiting.withLock { $0.count }
        print("ScheduleReloadTests: \(reloads) reloads, \(count) actions waiting")
        XCTAssertEqual(count, 2, "the last plan's cue and commit alone")
        XCTAssertEqual(runner.status().next.map(\.block), ["far"])
    }

    /// Keyed actions replace the one waiting under their key; others wait their turn in order.
    func testAKeyedActionReplacesTheOneWaitingUnderItsKey() {
        let ran = Mutex<[String]>([])
        var actions = TimelineActions()
        actions.add(tick: 10, key: nil) { ran.withLock { $0.append("plain 10") } }
        actions.add(tick: 5, key: "a") { ran.withLock { $0.append("a at 5") } }
        actions.add(tick: 7, key: "a") { ran.withLock { $0.append("a at 7") } }
        actions.add(tick: 7, key: nil) { ran.withLock { $0.append("plain 7") } }
        XCTAssertEqual(actions.count, 3)
        XCTAssertTrue(actions.takeDue(atOrBefore: 6).isEmpty)
        for run in actions.takeDue(atOrBefore: 10) { run() }
        XCTAssertEqual(ran.withLock { $0 }, ["a at 7", "plain 7", "plain 10"])
        XCTAssertEqual(actions.count, 0)
    }
}

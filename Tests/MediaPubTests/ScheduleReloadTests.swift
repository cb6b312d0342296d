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

    /// Reloads while a switch's cue is made (its content open beside what plays): each reload calls
    /// off the cue of the plan before, so none is left open; the last reload, to a programme with
    /// nothing soon, leaves the player no cue at all (before, the last plan's stayed open until
    /// the next cue, months away).
    func testReloadsCallOffTheCuesOfThePlansBefore() throws {
        let dir = try makeTempDir()
        let item = try TestMedia.makeAudio(in: dir, name: "b.wav", seconds: 1, freq: 440, ext: "wav").path
        let format = MediaFormat(sampleRate: 48000, channels: 2, video: nil)
        let player = MediaPlayer(config: PlayerConfig(id: "p"), format: format, feedsVideo: false)
        let start = ZoneRules.utc.instant(try XCTUnwrap(LocalDateTime(year: 2027, month: 1, day: 1, hour: 0, minute: 0)))
        let soon = ScheduleConfig(blocks: [ScheduleBlock(id: "b", at: .once(try XCTUnwrap(LocalDateTime(
            year: 2027, month: 1, day: 1, hour: 0, minute: 0, second: 10))), source: item)])
        let far = ScheduleConfig(blocks: [ScheduleBlock(id: "b", at: .once(try XCTUnwrap(LocalDateTime(
            year: 2027, month: 9, day: 1, hour: 0, minute: 0))), source: item)])
        let waiting = Mutex(TimelineActions())
        let seconds = Mutex(0.0)
        let runner = ScheduleRunner(programme: Programme(soon), player: player, realtime: true, tickClock: format.tickClock,
                                    emit: { _ in },
                                    onTimeline: { at, key, action in
                                        guard key != .clock else { return }  // the wall clock's check is not this test's
                                        waiting.withLock { $0.add(tick: format.tickClock.tick(at: at), key: key.rawValue, action) }
                                    },
                                    outputSeconds: { seconds.withLock { $0 } },
                                    wallClock: { start.addingTimeInterval(seconds.withLock { $0 }) })
        func cueDue() {
            seconds.withLock { $0 = 5 }
            for action in waiting.withLock({ $0.takeDue(atOrBefore: format.tickClock.tick(at: 5)) }) { action() }
            runner.cueQueue.sync {}
        }
        runner.prime(start: start)
        runner.begin()
        cueDue()
        let reloads = 20
        for _ in 0..<reloads {
            XCTAssertNotNil(player.state.withLock { $0.deck.cue.pending }, "the block's cue is open")
            XCTAssertEqual(runner.outstandingCues, 1)
            runner.replace(Programme(soon))
            cueDue()
        }
        runner.replace(Programme(far))
        let (asked, open) = player.state.withLock { ($0.deck.cue.asked, $0.deck.cue.pending?.ticket) }
        print("ScheduleReloadTests: \(reloads) reloads, \(asked) cues made, open after the last: \(open.map(String.init) ?? "none")")
        XCTAssertEqual(asked, reloads + 1)
        XCTAssertNil(open, "the plan before's cue is called off")
        XCTAssertEqual(player.cueOutcome(asked), .cancelled("cancelled"))
        XCTAssertEqual(runner.outstandingCues, 0)
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

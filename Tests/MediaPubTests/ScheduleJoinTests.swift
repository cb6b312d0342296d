import Foundation
import Synchronization
import XCTest
@testable import MediaPub

/// A run started inside a block whose items are on a server that never answers (docs/presets.md,
/// Joining a block in progress): nothing waits for the items' lengths before the timeline
/// starts; the filler is on air from the first frame while they are probed in the background.
final class ScheduleJoinTests: XCTestCase {
    /// 20 items on a server that holds every answer for 10 minutes, joined 30 s after the block's
    /// start, as fast as possible for 4 s: the run starts at once and every frame is the filler's
    /// (no standby), whether or not the probes' deadline passes within the run's wall time. Before, the run probed each item (10 s each, two at a time) before its first
    /// frame: ~100 s of nothing, then the standby.
    func testARunJoiningABlockOfDeadItemsStartsAtOnceOnTheFiller() throws {
        let dir = try makeTempDir()
        let media = dir.appendingPathComponent("srv")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        try TestMedia.makeColorVideo(in: dir, name: "filler.mp4", seconds: 10, color: "red", freq: 440, size: "64x36")
        let server = try startSlowHTTPServer(root: media, delay: 600)
        let items = (0..<20).map { "\"\(server.url("item\($0).mp4"))\"" }.joined(separator: ", ")
        let out = dir.appendingPathComponent("out.mp4")
        let eventsFile = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "p.yaml", PlayerPreset.tinyProgramme(output: out, blocks: [
            "{ id: remote, at: \"2026-12-24 10:00:00\", duration: 1h, playlist: [\(items)] }",
        ]))
        let r = try CLI.run(["--preset", preset.path, "--no-realtime", "--duration", "4s", "--from", "2026-12-24 10:00:30",
                             "--events", eventsFile.path], timeout: 60)
        XCTAssertEqual(r.status, 0, r.summary("run"))
        let frames = try assertUnbrokenTimeline(out.path, seconds: 4)
        let red = frames.filter { $0.vavg > 200 && $0.uavg < 120 }.count
        XCTAssertEqual(red, frames.count, "the filler on every frame, no standby")
        // However fast the run went (its 4 s may outlast the probes' 10 s on a loaded machine):
        // the block, if it went on air, was joined where it was by the clock, never from its top.
        let started = try EventLog.read(eventsFile).filter { $0["event"] as? String == "schedule.block" && $0["state"] as? String == "started" }
        XCTAssertTrue(started.allSatisfy { $0["block"] as? String == "remote" && ($0["joined_at_ms"] as? Int ?? 0) >= 30_000 }, "\(started)")
        print("ScheduleJoinTests: \(red) of \(frames.count) frames the filler's")
    }
}

/// What a joined block plays when its items' probes get no answer: each such item is skipped,
/// and with none left the filler plays (never the standby while a filler is there).
final class ScheduleJoinContentTests: XCTestCase {
    /// A port nothing listens on: each probe fails at once (a server that never answers fails
    /// the same way, at its probe's deadline, as ScheduleJoinTests' run shows).
    func testItemsWhoseProbeGetsNoAnswerAreSkippedToTheFiller() throws {
        let port = try Ports.free()
        func url(_ name: String) -> String { "http://127.0.0.1:\(port)/\(name)" }
        let format = MediaFormat(sampleRate: 48000, channels: 2, video: nil)
        let player = MediaPlayer(config: PlayerConfig(id: "p"), format: format, feedsVideo: false)
        let start = try XCTUnwrap(LocalDateTime(year: 2026, month: 12, day: 24, hour: 10, minute: 0))
        let block = ScheduleBlock(id: "remote", at: .once(start), end: .duration(3600),
                                  playlist: PlaylistConfig(items: [url("a.mp4"), url("b.mp4")], mode: .loop))
        let programme = Programme(ScheduleConfig(filler: PlaylistConfig(items: ["/srv/filler.mp4"], mode: .loop), blocks: [block]))
        let warnings = Mutex<[String]>([])
        let runner = ScheduleRunner(programme: programme, player: player, realtime: false, tickClock: format.tickClock,
                                    emit: { if case .warning(let m) = $0 { warnings.withLock { $0.append(m) } } },
                                    onTimeline: { _, _, _ in }, outputSeconds: { 0 }, probeDeadline: 5)
        let at = ZoneRules.utc.instant(start).addingTimeInterval(30)
        let entry = try XCTUnwrap(programme.onAir(at: at))
        let (playlist, offset) = runner.content(entry, at: at, programme: programme)
        XCTAssertEqual(playlist?.items, ["/srv/filler.mp4"], "both items skipped: the filler")
        XCTAssertEqual(offset, 0)
        let said = warnings.withLock { $0 }
        XCTAssertEqual(said.count, 2, "\(said)")
        XCTAssertTrue(said.allSatisfy { $0.hasPrefix("schedule: remote: ") && $0.contains("could not be probed") && $0.hasSuffix(", skipped") },
                      "\(said)")
    }

    /// Realtime, a block whose one item is not media: its commit does not wait for the cue, which
    /// fails after it. The runner is told (the cue's outcome): the block is not on air (status),
    /// `schedule.block` says it ended, with a warning, and the filler is cued. Before, status and
    /// the events said the block was on air while the filler played.
    func testABlockWhoseCueFailsAfterItsCommitIsNotOnAir() throws {
        let dir = try makeTempDir()
        let garbage = try writeFile(dir, "bad.mp4", String(repeating: "not media ", count: 100)).path
        let format = MediaFormat(sampleRate: 48000, channels: 2, video: nil)
        let player = MediaPlayer(config: PlayerConfig(id: "p"), format: format, feedsVideo: false)
        let start = ZoneRules.utc.local(Date().addingTimeInterval(3)).local
        let block = ScheduleBlock(id: "bad", at: .once(start), end: .duration(3600), playlist: PlaylistConfig(items: [garbage], mode: .loop))
        let programme = Programme(ScheduleConfig(filler: PlaylistConfig(items: ["/srv/filler.mp4"], mode: .loop), blocks: [block]))
        let waiting = Mutex<[ScheduleRunner.Timeline: @Sendable () -> Void]>([:])
        let events = Mutex<[String]>([])
        let failed = DispatchSemaphore(value: 0), ended = DispatchSemaphore(value: 0)
        let runner = ScheduleRunner(programme: programme, player: player, realtime: true, tickClock: format.tickClock,
                                    emit: { event in
                                        switch event {
                                        case .warning(let m) where m.contains("could not start"):
                                            events.withLock { $0.append("warning") }
                                            failed.signal()
                                        case .scheduleBlock(let id, let state, _, _, _):
                                            events.withLock { $0.append("\(id) \(state)") }
                                            if state == .ended { ended.signal() }
                                        default: break
                                        }
                                    },
                                    onTimeline: { _, key, action in waiting.withLock { $0[key] = action } },
                                    outputSeconds: { 0 })
        runner.prime(start: Date())
        runner.begin()
        let cue = try XCTUnwrap(waiting.withLock { $0.removeValue(forKey: .cue) })
        let commit = try XCTUnwrap(waiting.withLock { $0.removeValue(forKey: .commit) })
        TimelineThread.run { cue(); commit() }
        XCTAssertEqual(failed.wait(timeout: .now() + 30), .success, "the cue fails: \(events.withLock { $0 })")
        if events.withLock({ $0.contains("bad started") }) {
            XCTAssertEqual(ended.wait(timeout: .now() + 30), .success, "said to have started: said to have ended")
        }
        XCTAssertNil(try XCTUnwrap(runner.onAir).entry, "the block is not on air")
        let said = events.withLock { $0 }
        XCTAssertTrue(said == ["warning"] || said == ["bad started", "warning", "bad ended"], "\(said)")
        XCTAssertNotNil(waiting.withLock { $0[.filler] }, "the filler cued for the next tick")
        print("ScheduleJoinContentTests: a failed cue: \(said)")
    }

    /// A run started inside a block of 8 items on a server that holds every answer, each probe's
    /// deadline 1 s: the block is joined after that second, and the probes, one at a time on the
    /// runner's own queue, stop once the join has changed the plan: fewer than 8 are made. Before,
    /// they ran on the global queue, two at a time, to the last item whatever happened meanwhile
    /// (200 dead items: two global threads held for some 17 minutes).
    func testTheProbesOfAJoinedBlockStopOnceItIsJoined() throws {
        let server = try startSlowHTTPServer(root: try makeTempDir(), delay: 600)
        let format = MediaFormat(sampleRate: 48000, channels: 2, video: nil)
        let player = MediaPlayer(config: PlayerConfig(id: "p"), format: format, feedsVideo: false)
        let start = try XCTUnwrap(LocalDateTime(year: 2026, month: 12, day: 24, hour: 10, minute: 0))
        let items = (0..<8).map { server.url("item\($0).mp4") }
        let block = ScheduleBlock(id: "remote", at: .once(start), end: .duration(3600), playlist: PlaylistConfig(items: items, mode: .loop))
        let programme = Programme(ScheduleConfig(filler: PlaylistConfig(items: ["/srv/filler.mp4"], mode: .loop), blocks: [block]))
        let commits = DispatchSemaphore(value: 0)
        let runner = ScheduleRunner(programme: programme, player: player, realtime: false, tickClock: format.tickClock,
                                    emit: { _ in }, onTimeline: { _, key, _ in if key == .commit { commits.signal() } },
                                    outputSeconds: { 0 }, probeDeadline: 1)
        XCTAssertTrue(runner.prime(start: ZoneRules.utc.instant(start).addingTimeInterval(30)), "the filler from the start")
        XCTAssertNil(try XCTUnwrap(runner.onAir).entry, "the block waits for its lengths")
        runner.begin()
        XCTAssertEqual(commits.wait(timeout: .now() + 60), .success, "the block joined after its probes' second")
        runner.probeQueue.sync {}
        let probes = runner.durations.probes
        print("ScheduleJoinContentTests: \(probes) of \(items.count) items probed before the probing stopped")
        XCTAssertGreaterThanOrEqual(probes, 1)
        XCTAssertLessThan(probes, items.count, "the probing stops once the block is joined")
    }

    /// A wall-clock step (realtime) onto a block whose items' lengths are not known: the clock's
    /// check on the timeline thread (marked as such, as `Capture.run` marks it) puts the filler on
    /// air without probing anything, and the lengths are looked for off the thread (for their 3 s
    /// deadline: the server holds every answer), then the block is joined. Before, the step probed both items on the timeline thread, waiting out the deadline.
    func testAWallClockStepOntoABlockOfUnknownLengthsProbesNothingOnTheTimeline() throws {
        let server = try startSlowHTTPServer(root: try makeTempDir(), delay: 600)
        let format = MediaFormat(sampleRate: 48000, channels: 2, video: nil)
        let player = MediaPlayer(config: PlayerConfig(id: "p"), format: format, feedsVideo: false)
        let start = ZoneRules.utc.local(Date().addingTimeInterval(60)).local
        let block = ScheduleBlock(id: "remote", at: .once(start), end: .duration(3600),
                                  playlist: PlaylistConfig(items: [server.url("a.mp4"), server.url("b.mp4")], mode: .loop))
        let programme = Programme(ScheduleConfig(filler: PlaylistConfig(items: ["/srv/filler.mp4"], mode: .loop), blocks: [block]))
        let shift = Mutex<TimeInterval>(0)
        let waiting = Mutex<[ScheduleRunner.Timeline: @Sendable () -> Void]>([:])
        let commits = DispatchSemaphore(value: 0)
        let warnings = Mutex<[String]>([])
        let runner = ScheduleRunner(programme: programme, player: player, realtime: true, tickClock: format.tickClock,
                                    emit: { if case .warning(let m) = $0 { warnings.withLock { $0.append(m) } } },
                                    onTimeline: { _, key, action in
                                        waiting.withLock { $0[key] = action }
                                        if key == .commit { commits.signal() }
                                    },
                                    outputSeconds: { 0 }, probeDeadline: 3,
                                    wallClock: { Date().addingTimeInterval(shift.withLock { $0 }) })
        runner.prime(start: Date())
        runner.begin()
        XCTAssertEqual(commits.wait(timeout: .now()), .success, "the block's switch planned, a minute ahead")
        // The clock jumps 90 s: the block started 30 s ago.
        shift.withLock { $0 = 90 }
        let check = try XCTUnwrap(waiting.withLock { $0[.clock] })
        TimelineThread.run { check() }
        XCTAssertEqual(runner.durations.probes, 0, "nothing probed on the timeline thread")
        // The step is followed on the programme's cue queue (never on the timeline): its switch
        // is planned there, for the next tick.
        XCTAssertEqual(commits.wait(timeout: .now() + 10), .success, "a switch on the next tick")
        let toFiller = try XCTUnwrap(waiting.withLock { $0[.commit] })
        TimelineThread.run { toFiller() }
        XCTAssertNil(try XCTUnwrap(runner.onAir).entry, "the filler on air meanwhile")
        XCTAssertTrue(warnings.withLock { $0 }.contains { $0.contains("wall clock moved by +90") }, "\(warnings.withLock { $0 })")
        // Off the thread: the probes are given their deadline, then the block is joined (its
        // lengths unknown: from its top).
        XCTAssertEqual(commits.wait(timeout: .now() + 60), .success, "the block joined once its lengths are looked for")
        print("ScheduleJoinContentTests: the step probed nothing on the timeline; the block joined off it")
    }
}

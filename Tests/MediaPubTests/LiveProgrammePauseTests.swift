import Foundation
import XCTest

/// A live feed with `programme: pause` over a clock-time programme (docs/presets.md, live
/// and Schedule): a block whose time falls while the feed is on air lands (its item is the
/// player's), but the player stays paused there, and plays it from where it was left (its
/// start) once the feed is released. Checked from the run's events (the block 9 s into
/// the run, on the wall clock; the feed from its first second for 12 s).
final class LiveProgrammePauseTests: XCTestCase {
    func testABlockLandingWhileTheFeedIsOnAirLeavesTheProgrammePaused() throws {
        let dir = try makeTempDir("livepause")
        try TestMedia.makeColorVideo(in: dir, name: "filler.mp4", seconds: 30, color: "red", freq: 440)
        try TestMedia.makeColorVideo(in: dir, name: "block.mp4", seconds: 20, color: "green", freq: 660)
        let port = try Ports.free()
        // The block's time: 9 s from now, on the wall clock (a realtime run plays the programme as the clock goes).
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "UTC")
        format.dateFormat = "yyyy-MM-dd HH:mm:ss"
        let at = format.string(from: Date().addingTimeInterval(9))
        let out = dir.appendingPathComponent("rec.mkv"), events = dir.appendingPathComponent("events.jsonl")
        let yaml = PlayerPreset.video(players: [PlayerPreset.player("main", source: "filler.mp4", ["video: true", "progress_interval: 200ms"])],
                                      output: out, extra: """
            live: { source: "srt://:\(port)?mode=listener", takeover_after: 500ms, release_after: 1s, programme: pause }
            schedule:
              timezone: UTC
              filler: { items: [filler.mp4], mode: loop }
              blocks:
                - { id: g, at: "\(at)", source: block.mp4 }
            """)
        let preset = try writeFile(dir, "preset.yaml", yaml)
        let run = try startMediaPub(["--preset", preset.path, "--realtime", "--duration", "22",
                                     "--events", events.path])
        XCTAssertTrue(EventLog.waitFor(events, of: run, EventLog.outputState("publishing")), run.stderr)
        let sender = try startTool("ffmpeg", [
            "-nostdin", "-hide_banner", "-v", "error", "-re",
            "-f", "lavfi", "-i", "color=c=blue:s=320x180:r=25", "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=44100",
            "-t", "12", "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-pix_fmt", "yuv420p", "-c:a", "aac",
            "-f", "mpegts", "srt://127.0.0.1:\(port)?mode=caller",
        ])
        XCTAssertTrue(run.waitForExit(timeout: 90))
        XCTAssertEqual(run.exitStatus, 0, run.stderr + sender.stderr)

        let all = try EventLog.read(events)
        func index(_ match: ([String: Any]) -> Bool) -> Int? { all.firstIndex(where: match) }
        let onAir = index { $0["event"] as? String == "live.state" && $0["state"] as? String == "on_air" }
        let released = index { $0["event"] as? String == "live.state" && $0["state"] as? String == "released" }
        let block = index { $0["event"] as? String == "schedule.block" && $0["block"] as? String == "g" && $0["state"] as? String == "started" }
        guard let onAir, let released, let block else { return XCTFail("\(all)") }
        XCTAssertTrue(onAir < block && block < released, "the block's time falls while the feed is on air")
        // Paused at the takeover, and still paused when the feed is released.
        // (The feed's events and the player's go out on queues of their own: the resume at the
        // release may be written just before it.)
        let releasedAt = EventLog.time(all[released]) ?? Date()
        let states = all[onAir...].filter {
            $0["event"] as? String == "player.state" && $0["player"] as? String == "main"
                && (EventLog.time($0) ?? .distantFuture) < releasedAt.addingTimeInterval(-0.2)
        }
        XCTAssertTrue(states.contains { $0["state"] as? String == "paused" }, "\(states)")
        XCTAssertEqual(states.last?["state"] as? String, "paused", "\(states)")
        // Back, it plays the block's item from its start, where it was left.
        let after = all[released...].first { $0["event"] as? String == "player.progress" && $0["player"] as? String == "main" }
        XCTAssertLessThan(after?["position_ms"] as? Int ?? 99_999, 1500, "\(after ?? [:])")
        XCTAssertTrue(all[onAir...].contains { $0["event"] as? String == "player.track" && ($0["source"] as? String ?? "").hasSuffix("block.mp4") })
    }
}

import Foundation
import XCTest
@testable import MediaPub

/// A live feed takes the output over and hands it back (docs/presets.md, live): a
/// realtime run records a red 440 Hz programme while ffmpeg pushes a blue 1 kHz SRT
/// stream into its `live:` listener for 6 s. Checked with ffmpeg's signalstats (each
/// frame's colour), PCM tone levels and the run's events.
final class LiveTakeoverTests: XCTestCase {
    private let seconds = 16.0

    /// One colour a frame: "r" (the programme), "b" (the feed), "?" otherwise.
    private func colours(_ stats: [FrameStat]) -> [Character] {
        stats.map { $0.looksRed ? "r" : ($0.uavg > 200 && $0.vavg < 130 ? "b" : "?") }
    }

    private func liveStates(_ events: URL) throws -> [[String: Any]] {
        try EventLog.read(events).filter { $0["event"] as? String == "live.state" }
    }

    func testAnSRTFeedTakesOverAndHandsBackOnAnUnbrokenTimeline() throws {
        let dir = try makeTempDir("live")
        let port = try Ports.free()
        let out = dir.appendingPathComponent("rec.mkv"), events = dir.appendingPathComponent("events.jsonl")
        let yaml = PlayerPreset.video(players: [PlayerPreset.player("prog", source: "testsrc:?pattern=red&freq=440")], output: out,
                                      extra: "live: { source: \"srt://:\(port)?mode=listener\", takeover_after: 500ms, release_after: 2s }")
        let preset = try writeFile(dir, "preset.yaml", yaml)
        let run = try startMediaPub(["--preset", preset.path, "--realtime", "--duration", "\(Int(seconds))", "--events", events.path])
        XCTAssertTrue(EventLog.waitFor(events, of: run, EventLog.outputState("publishing")), run.stderr)
        let sender = try startTool("ffmpeg", [
            "-nostdin", "-hide_banner", "-v", "error", "-re",
            "-f", "lavfi", "-i", "color=c=blue:s=320x180:r=25", "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=44100",
            "-t", "6", "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-pix_fmt", "yuv420p", "-c:a", "aac",
            "-f", "mpegts", "srt://127.0.0.1:\(port)?mode=caller",
        ])
        XCTAssertTrue(EventLog.waitFor(events, of: run, timeout: 30) { $0["event"] as? String == "live.state" && $0["state"] as? String == "released" },
                      run.stderr + sender.stderr)
        XCTAssertTrue(run.waitForExit(timeout: 60))
        XCTAssertEqual(run.exitStatus, 0, run.stderr)

        let states = try liveStates(events).map { $0["state"] as? String ?? "" }
        XCTAssertEqual(states, ["waiting", "connected", "on_air", "released"])
        XCTAssertEqual(try liveStates(events).last?["reason"] as? String, "nothing from the feed for 2s")

        // Every frame 1/25 s after the last, the sound sample for sample: the switches broke nothing.
        let stats = try assertUnbrokenTimeline(out.path, seconds: seconds)
        let seen = colours(stats)
        // Programme, feed, programme: one cut each way, on the frame (no flicker, nothing in between).
        let runs = seen.reduce(into: [(Character, Int)]()) { r, c in
            if r.last?.0 == c { r[r.count - 1].1 += 1 } else { r.append((c, 1)) }
        }
        XCTAssertEqual(runs.map(\.0), ["r", "b", "r"], "\(runs)")
        guard runs.count == 3 else { return }
        let blueFrom = Double(runs[0].1) / 25, blueTo = blueFrom + Double(runs[1].1) / 25
        // On air at least its 6 s less takeover_after and at most 6 s plus release_after.
        XCTAssertGreaterThan(blueTo - blueFrom, 4, "\(runs)")
        XCTAssertLessThan(blueTo - blueFrom, 9, "\(runs)")

        // The feed's sound alone while it is on air, the programme's before and after;
        // its last picture held, silent, through the release_after before the hand-back.
        let pcm = try MediaProbe.decodePCM(out.path, rate: 44100)
        func level(_ from: Double, _ to: Double, _ freq: Double) -> Double {
            MediaProbe.toneLevelDB(MediaProbe.slice(pcm, rate: 44100, from: from, to: to), rate: 44100, freq: freq)
        }
        XCTAssertGreaterThan(level(blueFrom + 0.5, blueFrom + 2, 1000), -20, "the feed's tone on air")
        XCTAssertLessThan(level(blueFrom + 0.5, blueFrom + 2, 440), -50, "the programme unheard while the feed is on air")
        XCTAssertLessThan(level(blueTo - 1.2, blueTo - 0.3, 1000), -50, "a drop-out holds the picture with silence")
        XCTAssertGreaterThan(level(blueFrom - 1.5, blueFrom - 0.2, 440), -20, "the programme before")
        XCTAssertGreaterThan(level(blueTo + 0.3, blueTo + 1.5, 440), -20, "the programme after")
        XCTAssertLessThan(level(blueTo + 0.3, blueTo + 1.5, 1000), -50)
    }
}

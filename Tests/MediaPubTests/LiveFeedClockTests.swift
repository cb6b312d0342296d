import Foundation
import XCTest
@testable import MediaPub

/// A live feed on a clock that is not the output's (docs/presets.md, live): a realtime run
/// records a red 440 Hz programme while ffmpeg pushes into its SRT listener a blue feed 1.5 %
/// fast (`-readrate 1.015`) for some 40 s (its clock 600 ms ahead by then, as 1 % fast over a
/// minute would be), then, within a second of that sender's end, a green one from a new
/// sender (its timestamps start over) for 4 s. Each feed flashes white for 2 frames and
/// beeps (1 kHz, over a quieter bed of the same tone) at the start of each of its seconds. Checked from the recording (ffmpeg's signalstats,
/// PCM onsets and levels), the run's events and `ctl status`.
final class LiveFeedClockTests: XCTestCase {
    private let seconds = 58.0
    /// How much faster than the output's clock the blue sender's runs.
    private let fast = 1.015

    /// ffmpeg pushing `colour` with a flash and a beep each second, for `media` seconds of its own clock.
    private func send(_ colour: String, media: Int, rate: [String], port: UInt16, tsOffset: [String] = []) throws -> RunningProcess {
        try startTool("ffmpeg", ["-nostdin", "-hide_banner", "-v", "error"] + rate + [
            "-f", "lavfi", "-i", "color=c=\(colour):s=320x180:r=25,drawbox=c=white:t=fill:enable='lt(mod(t,1),0.079)'",
            "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=44100:samples_per_frame=441,volume='if(lt(mod(t,1),0.08),1,0.25)':eval=frame",
            "-t", "\(media)", "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-bf", "0", "-pix_fmt", "yuv420p", "-c:a", "aac",
        ] + tsOffset + ["-f", "mpegts", "srt://127.0.0.1:\(port)?mode=caller"])
    }

    /// The output time (s) an event was said at, from the programme's progress events around it.
    private func outputTime(of event: [String: Any], in events: [[String: Any]]) -> Double? {
        guard let at = EventLog.time(event) else { return nil }
        let progress = events.filter { $0["event"] as? String == "player.progress" && $0["player"] as? String == "prog" }
        let nearest = progress.min { a, b in
            abs(EventLog.time(a)?.timeIntervalSince(at) ?? 1e9) < abs(EventLog.time(b)?.timeIntervalSince(at) ?? 1e9)
        }
        guard let nearest, let when = EventLog.time(nearest), let ms = nearest["position_ms"] as? Int else { return nil }
        return Double(ms) / 1000 + at.timeIntervalSince(when)
    }

    func testADriftingFeedKeepsItsDelayThroughADropOutAndANewSender() throws {
        let dir = try makeTempDir("liveclock")
        let port = try Ports.free()
        let out = dir.appendingPathComponent("rec.mkv"), events = dir.appendingPathComponent("events.jsonl")
        let socket = dir.appendingPathComponent("ctl.sock").path
        let yaml = PlayerPreset.video(
            players: [PlayerPreset.player("prog", source: "testsrc:?pattern=red&freq=440", ["progress_interval: 500ms"])], output: out,
            extra: "live: { source: \"srt://:\(port)?mode=listener\", takeover_after: 500ms, release_after: 2s }")
        let preset = try writeFile(dir, "preset.yaml", yaml)
        let run = try startMediaPub(["--preset", preset.path, "--realtime", "--duration", "\(Int(seconds))", "--events", events.path,
                                     "--control", socket])
        XCTAssertTrue(EventLog.waitFor(events, of: run, EventLog.outputState("publishing")), run.stderr)
        func live(_ state: String) -> ([String: Any]) -> Bool { { $0["event"] as? String == "live.state" && $0["state"] as? String == state } }

        // The blue feed, 1.5 % fast, for some 40 s of output; then its sender goes and a new one comes at once.
        // Its timestamps start 30 s short of MPEG-TS's 33-bit wrap (2^33 / 90 kHz, about 26.5 h),
        // so it wraps while on air (some 27 s in, 13 s before its end): every check below holds across it.
        let blue = try send("blue", media: 50, rate: ["-readrate", "\(fast)"], port: port,
                            tsOffset: ["-output_ts_offset", "\(Double(1 << 33) / 90_000 - 30)"])
        XCTAssertTrue(EventLog.waitFor(events, of: run, timeout: 30, live("on_air")), run.stderr + blue.stderr)
        let onAirAt = try EventLog.read(events).last { $0["event"] as? String == "player.progress" }?["position_ms"] as? Int ?? 0
        XCTAssertTrue(EventLog.waitFor(events, of: run, timeout: 90, EventLog.progressed(Double(onAirAt) / 1000 + 40)), run.stderr)
        let status = try CLI.run(["ctl", "--socket", socket, "status"], timeout: 20)
        blue.terminate()
        let green = try send("green", media: 4, rate: ["-re"], port: port)
        XCTAssertTrue(blue.waitForExit(timeout: 20))
        XCTAssertTrue(EventLog.waitFor(events, of: run, timeout: 40, live("released")), run.stderr + green.stderr)
        XCTAssertTrue(run.waitForExit(timeout: 60))
        XCTAssertEqual(run.exitStatus, 0, run.stderr)

        // status shows the feed's delay, its bitrate and the pictures it dropped to follow its sound (1.5 % fast).
        let shown = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        let feed = (shown?["status"] as? [String: Any])?["live"] as? [String: Any] ?? [:]
        XCTAssertGreaterThan(feed["delay_ms"] as? Int ?? 0, 150, status.stdout)
        XCTAssertLessThan(feed["delay_ms"] as? Int ?? 9999, 1000, status.stdout)
        XCTAssertGreaterThan(feed["bitrate_kbps"] as? Int ?? 0, 20, status.stdout)
        XCTAssertGreaterThan(feed["frames_dropped"] as? Int ?? 0, 3, status.stdout)

        // One spell on air: the drop-out between the senders, shorter than release_after, held it.
        let all = try EventLog.read(events)
        let states = all.filter { $0["event"] as? String == "live.state" }
        XCTAssertEqual(states.filter(live("on_air")).count, 1, "\(states)")
        XCTAssertEqual(states.filter(live("released")).count, 1, "\(states)")

        // Every frame 1/25 s after the last; the programme, the feed, the programme: not a frame
        // of the programme between the two senders, each switch where the events say (within
        // takeover_after and 2 frames).
        let stats = try assertUnbrokenTimeline(out.path, seconds: seconds)
        let kinds: [Character] = stats.map { s in
            if s.yavg > 180 { return "w" }
            if s.looksRed { return "r" }
            if s.uavg > 200 && s.vavg < 130 { return "b" }
            return s.uavg < 110 && s.vavg < 110 ? "g" : "?"
        }
        guard let firstFeed = kinds.firstIndex(where: { $0 != "r" }), let lastFeed = kinds.lastIndex(where: { $0 != "r" }) else {
            return XCTFail("the feed never on air")
        }
        XCTAssertFalse(kinds[firstFeed...lastFeed].contains("r"), "the programme never flashes between the senders")
        XCTAssertTrue(kinds[firstFeed...lastFeed].contains("g"), "the second sender on air")
        XCTAssertFalse(kinds[firstFeed...lastFeed].contains("?"), String(kinds[firstFeed...lastFeed]))
        let onAir = states.first(where: live("on_air")).flatMap { outputTime(of: $0, in: all) } ?? -9
        let released = states.first(where: live("released")).flatMap { outputTime(of: $0, in: all) } ?? -9
        XCTAssertEqual(Double(firstFeed) / 25, onAir, accuracy: 0.5 + 0.08, "the takeover where live.state says")
        XCTAssertEqual(Double(lastFeed + 1) / 25, released, accuracy: 0.5 + 0.08, "the hand-back where live.state says")

        // Each flash with its beep, within a frame, from both senders (the second re-anchored).
        let pcm = try MediaProbe.decodePCM(out.path, rate: 44100)
        let beeps = MediaProbe.onsets(pcm, rate: 44100, thresholdDB: -27, quiet: 0.5)
        let flashes = kinds.indices.dropFirst().filter { kinds[$0] == "w" && kinds[$0 - 1] != "w" }
        var pairs: [(beep: Double, colour: Character)] = [], unpaired: [Double] = []
        for f in flashes {
            let t = Double(f) / 25
            // (A beep less than 0.5 s after the programme's louder tone is not told apart: the first at most.)
            guard let beep = beeps.min(by: { abs($0 - t) < abs($1 - t) }), abs(beep - t) < 0.3 else { unpaired.append(t); continue }
            XCTAssertEqual(beep, t, accuracy: 0.045, "the flash at \(t) s and its beep")
            pairs.append((beep, kinds[min(kinds.count - 1, f + 3)]))
        }
        XCTAssertLessThanOrEqual(unpaired.count, 2, "flashes without a beep: \(unpaired)")
        let blueBeeps = pairs.filter { $0.colour == "b" }.map(\.beep), greenBeeps = pairs.filter { $0.colour == "g" }.map(\.beep)
        XCTAssertGreaterThanOrEqual(greenBeeps.count, 2, "\(pairs.map(\.colour))")
        // Every second of the blue feed on air is heard: none of its sound lost.
        XCTAssertGreaterThanOrEqual(blueBeeps.count, 37, "\(blueBeeps)")

        // Its delay: each beep's time in the recording less its time at the sender (its
        // number over `fast`); at the end within 200 ms of what it was at the start: the 600 ms its
        // clock gained would put it well outside.
        var number = 0.0, delays: [Double] = []
        for (i, beep) in blueBeeps.enumerated() {
            if i > 0 { number += ((beep - blueBeeps[i - 1]) * fast).rounded() }
            delays.append(beep - number / fast)
        }
        guard delays.count >= 20 else { return }
        let start = delays.prefix(5).reduce(0, +) / 5, end = delays.suffix(5).reduce(0, +) / 5
        XCTAssertEqual(end, start, accuracy: 0.2, "the feed's delay, relative to its first beep: \(delays.map { Int(($0 - delays[0]) * 1000) })")
        print("LiveFeedClockTests: the feed's delay over \(delays.count) s moved \(Int(((delays.max() ?? 0) - (delays.min() ?? 0)) * 1000)) ms "
              + "(start to end \(Int((end - start) * 1000)) ms); status delay_ms \(feed["delay_ms"] ?? "-")")

        // No silence (the feed's bed is never quiet) while it is on air, nor at either switch.
        func quiet(_ from: Double, _ to: Double) -> Double {
            MediaProbe.longestQuiet(MediaProbe.slice(pcm, rate: 44100, from: from, to: to), rate: 44100, window: 0.01, thresholdDB: -40)
        }
        let blueEnd = blueBeeps.last ?? 0
        XCTAssertLessThan(quiet(Double(firstFeed) / 25 - 0.5, blueEnd), 0.1, "silence at the takeover or while on air")
        XCTAssertLessThan(quiet(Double(lastFeed + 1) / 25, Double(lastFeed + 1) / 25 + 0.5), 0.1, "silence at the hand-back")
    }
}

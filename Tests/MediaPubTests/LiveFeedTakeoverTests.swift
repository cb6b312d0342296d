import Foundation
import XCTest
@testable import MediaPub

/// A live feed takes the output over and hands it back (docs/presets.md, live): a
/// realtime run records a red 440 Hz programme while ffmpeg pushes SRT streams into its
/// `live:` listener: one with a wrong passphrase (refused: the programme stays), a blue
/// 1 kHz one for 5 s, then, once it has gone, a green one for 3 s. Checked with ffmpeg's
/// signalstats (each frame's colour), PCM tone levels, the run's events and `ctl status`.
final class LiveFeedTakeoverTests: XCTestCase {
    private let seconds = 24.0
    private let passphrase = "live-pass-0123"

    /// One colour a frame: "r" (the programme), "b" and "g" (the feeds), "?" otherwise.
    private func colours(_ stats: [FrameStat]) -> [Character] {
        stats.map { s in
            if s.looksRed { return "r" }
            if s.uavg > 200 && s.vavg < 130 { return "b" }
            return s.uavg < 110 && s.vavg < 110 ? "g" : "?"
        }
    }

    /// Each colour of `colours` with the frames it lasts, in order.
    private func colourRuns(_ stats: [FrameStat]) -> [(Character, Int)] {
        colours(stats).reduce(into: [(Character, Int)]()) { r, c in
            if r.last?.0 == c { r[r.count - 1].1 += 1 } else { r.append((c, 1)) }
        }
    }

    /// A realtime run of `seconds` of the red programme, recorded, whose feed is an SRT
    /// listener on a free port with the `live:` keys given; returned once it publishes.
    private func listenerRun(_ label: String, keys: String, seconds: Int) throws
        -> (port: UInt16, out: URL, events: URL, run: RunningProcess) {
        let dir = try makeTempDir(label)
        let port = try Ports.free()
        let out = dir.appendingPathComponent("rec.mkv"), events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "preset.yaml", programme(label, recordingTo: out, live: "source: \"srt://:\(port)?mode=listener\", \(keys)"))
        let run = try startMediaPub(["--preset", preset.path, "--realtime", "--duration", "\(seconds)", "--events", events.path])
        XCTAssertTrue(EventLog.waitFor(events, of: run, EventLog.outputState("publishing")), run.stderr)
        return (port, out, events, run)
    }

    /// A red 440 Hz programme recorded to `out`, with the `live:` keys given; `name`d
    /// for its scenario (its control socket is the name's: the runs go at once).
    private func programme(_ name: String, recordingTo out: URL, live: String) -> String {
        PlayerPreset.video(name: name, players: [PlayerPreset.player("prog", source: "testsrc:?pattern=red&freq=440")], output: out,
                           extra: "live: { \(live) }")
    }

    private func liveFeedState(_ state: String, _ count: Int, in events: URL) -> ([String: Any]) -> Bool {
        { _ in ((try? EventLog.read(events)) ?? []).filter { $0["event"] as? String == "live.state" && $0["state"] as? String == state }.count >= count }
    }

    /// ffmpeg pushing `seconds` of `colour` and a `freq` tone to the listener.
    private func send(_ colour: String, _ freq: Int, seconds: Int, port: UInt16, passphrase: String) throws -> RunningProcess {
        try startTool("ffmpeg", [
            "-nostdin", "-hide_banner", "-v", "error", "-re",
            "-f", "lavfi", "-i", "color=c=\(colour):s=320x180:r=25", "-f", "lavfi", "-i", "sine=frequency=\(freq):sample_rate=44100",
            "-t", "\(seconds)", "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-pix_fmt", "yuv420p", "-c:a", "aac",
            "-f", "mpegts", "srt://127.0.0.1:\(port)?mode=caller&passphrase=\(passphrase)",
        ])
    }

    /// Each feed's run, realtime and mostly waiting on the wall clock, with its own
    /// folder, port and sender: all five at once, each checked as its own test was.
    func testFeedsTakeOverAndHandBackEachInARunOfItsOwnAtOnce() {
        atOnce([("SRT feeds", srtFeedsTakeOverAndHandBackOnAnUnbrokenTimeline),
                ("an RTMP feed", anRTMPFeedPulledFromAServerTakesOverAndHandsBack),
                ("a feed faster than the clock", aFeedFasterThanTheClockIsDroppedNotQueued),
                ("a refused feed", aRefusedFeedIsSaidOnceMaskedAndTheRunGoesOn),
                ("a feed without sound", aFeedWithoutSoundGoesOnAirOnItsPicturesWhileItDelivers)])
    }

    private func srtFeedsTakeOverAndHandBackOnAnUnbrokenTimeline() throws {
        let dir = try makeTempDir("live")
        let port = try Ports.free()
        let out = dir.appendingPathComponent("rec.mkv"), events = dir.appendingPathComponent("events.jsonl")
        let socket = dir.appendingPathComponent("ctl.sock").path
        let yaml = programme("live", recordingTo: out, live: "source: \"srt://:\(port)?mode=listener&passphrase=${LIVE_PASS}\", takeover_after: 500ms, release_after: 2s")
        let preset = try writeFile(dir, "preset.yaml", yaml)
        let run = try startMediaPub(["--preset", preset.path, "--realtime", "--duration", "\(Int(seconds))", "--events", events.path,
                                     "--control", socket], env: ["LIVE_PASS": passphrase])
        XCTAssertTrue(EventLog.waitFor(events, of: run, EventLog.outputState("publishing")), run.stderr)
        // A sender with the wrong passphrase is refused; the programme stays on air.
        let refused = try send("yellow", 2000, seconds: 2, port: port, passphrase: "wrong-pass-0123")
        XCTAssertTrue(refused.waitForExit(timeout: 30))
        XCTAssertNotEqual(refused.exitStatus, 0, "refused by the listener")
        XCTAssertTrue(EventLog.waitFor(events, of: run) { $0["event"] as? String == "live.state" && $0["state"] as? String == "waiting"
            && $0["reason"] as? String == "a sender was refused: wrong passphrase" }, run.stderr)

        let first = try send("blue", 1000, seconds: 5, port: port, passphrase: passphrase)
        XCTAssertTrue(EventLog.waitFor(events, of: run, timeout: 30, liveFeedState("on_air", 1, in: events)), run.stderr + first.stderr)
        let status = try CLI.run(["ctl", "--socket", socket, "status"], timeout: 20)
        XCTAssertTrue(status.stdout.contains(#""live":{"bitrate_kbps":"#) && status.stdout.contains(#""mode":"auto","on_air_ms":"#),
                      status.stdout)
        XCTAssertTrue(status.stdout.contains(#""state":"on_air"}"#) && status.stdout.contains("passphrase=****"), status.stdout)
        XCTAssertEqual(try CLI.run(["ctl", "--socket", socket, "live", "auto"], timeout: 20).status, 0)
        XCTAssertTrue(EventLog.waitFor(events, of: run, timeout: 30, liveFeedState("released", 1, in: events)), run.stderr)
        // A second sender once the first has gone: on air again.
        let second = try send("green", 1000, seconds: 3, port: port, passphrase: passphrase)
        XCTAssertTrue(EventLog.waitFor(events, of: run, timeout: 30, liveFeedState("released", 2, in: events)), run.stderr + second.stderr)
        XCTAssertTrue(run.waitForExit(timeout: 60))
        XCTAssertEqual(run.exitStatus, 0, run.stderr)

        // (Then, once the listener has heard nothing for seconds, it is opened again: `waiting`.)
        let live = try EventLog.read(events).filter { $0["event"] as? String == "live.state" && $0["reason"] as? String != "a sender was refused: wrong passphrase" }
        XCTAssertEqual(live.prefix(7).map { $0["state"] as? String ?? "" },
                       ["waiting", "connected", "on_air", "released", "connected", "on_air", "released"])
        XCTAssertEqual(Set(live.dropFirst(7).map { $0["state"] as? String ?? "" }).subtracting(["waiting"]), [])
        XCTAssertEqual(live.count > 6 ? live[6]["reason"] as? String : nil, "nothing from the feed for 2s")
        let all = try String(contentsOf: events, encoding: .utf8) + run.stderr + status.stdout
        XCTAssertFalse(all.contains(passphrase), "the passphrase is never shown")

        // Every frame 1/25 s after the last, the sound sample for sample: the switches broke nothing.
        let stats = try assertUnbrokenTimeline(out.path, seconds: seconds)
        // Programme, feed, programme, feed, programme: one cut each way, on the frame (no flicker).
        let runs = colours(stats).reduce(into: [(Character, Int)]()) { r, c in
            if r.last?.0 == c { r[r.count - 1].1 += 1 } else { r.append((c, 1)) }
        }
        XCTAssertEqual(runs.map(\.0), ["r", "b", "r", "g", "r"], "\(runs)")
        guard runs.count == 5 else { return }
        let blueFrom = Double(runs[0].1) / 25, blueTo = blueFrom + Double(runs[1].1) / 25
        // On air at most its 5 s less takeover_after plus release_after, at least 2 s of it.
        XCTAssertGreaterThan(blueTo - blueFrom, 2, "\(runs)")
        XCTAssertLessThan(blueTo - blueFrom, 8, "\(runs)")

        // The feed's sound alone while it is on air, the programme's before and after;
        // its last picture held, silent, through the release_after before the hand-back.
        let pcm = try MediaProbe.decodePCM(out.path, rate: 44100)
        func level(_ from: Double, _ to: Double, _ freq: Double) -> Double {
            MediaProbe.toneLevelDB(MediaProbe.slice(pcm, rate: 44100, from: from, to: to), rate: 44100, freq: freq)
        }
        XCTAssertGreaterThan(level(blueFrom + 0.3, blueFrom + 1.5, 1000), -20, "the feed's tone on air")
        XCTAssertLessThan(level(blueFrom + 0.3, blueFrom + 1.5, 440), -50, "the programme unheard while the feed is on air")
        // (What the feed's jitter buffer held, at most 600 ms and a burst, plays out first.)
        XCTAssertLessThan(level(blueTo - 0.9, blueTo - 0.3, 1000), -50, "a drop-out holds the picture with silence")
        XCTAssertGreaterThan(level(blueFrom - 1.5, blueFrom - 0.2, 440), -20, "the programme before")
        XCTAssertGreaterThan(level(blueTo + 0.3, blueTo + 1.2, 440), -20, "the programme after")
        XCTAssertLessThan(level(blueTo + 0.3, blueTo + 1.2, 1000), -50)
        XCTAssertLessThan(level(0.5, blueFrom - 0.2, 2000), -50, "the refused sender never heard")
        // No gap in the sound at either switch: a crossfade into the feed, the programme faded back in.
        func quiet(_ from: Double, _ to: Double) -> Double {
            MediaProbe.longestQuiet(MediaProbe.slice(pcm, rate: 44100, from: from, to: to), rate: 44100, window: 0.01, thresholdDB: -40)
        }
        XCTAssertLessThan(quiet(blueFrom - 0.5, blueFrom + 0.5), 0.1, "silence at the takeover")
        XCTAssertLessThan(quiet(blueTo, blueTo + 0.5), 0.1, "silence at the hand-back")
    }

    /// An RTMP feed pulled from nginx-rtmp, which ffmpeg publishes to for 4 s: the same switch.
    private func anRTMPFeedPulledFromAServerTakesOverAndHandsBack() throws {
        let dir = try makeTempDir("livertmp")
        let server = try startRTMPServer()
        let out = dir.appendingPathComponent("rec.mkv"), events = dir.appendingPathComponent("events.jsonl")
        let yaml = programme("livertmp", recordingTo: out, live: "source: \"\(server.url(key: "feed"))\", takeover_after: 500ms, release_after: 2s")
        let preset = try writeFile(dir, "preset.yaml", yaml)
        let run = try startMediaPub(["--preset", preset.path, "--realtime", "--duration", "14", "--events", events.path])
        XCTAssertTrue(EventLog.waitFor(events, of: run, EventLog.outputState("publishing")), run.stderr)
        let sender = try startTool("ffmpeg", [
            "-nostdin", "-hide_banner", "-v", "error", "-re",
            "-f", "lavfi", "-i", "color=c=blue:s=320x180:r=25", "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=44100",
            "-t", "4", "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-pix_fmt", "yuv420p", "-c:a", "aac",
            "-f", "flv", server.url(key: "feed"),
        ])
        XCTAssertTrue(EventLog.waitFor(events, of: run, timeout: 30, liveFeedState("released", 1, in: events)), run.stderr + sender.stderr)
        XCTAssertTrue(run.waitForExit(timeout: 60))
        XCTAssertEqual(run.exitStatus, 0, run.stderr)
        let live = try EventLog.read(events).filter { $0["event"] as? String == "live.state" }.map { $0["state"] as? String ?? "" }
        XCTAssertEqual(Array(live.drop { $0 != "connected" }.prefix(3)), ["connected", "on_air", "released"], "\(live)")
        let runs = colours(try assertUnbrokenTimeline(out.path, seconds: 14)).reduce(into: [(Character, Int)]()) { r, c in
            if r.last?.0 == c { r[r.count - 1].1 += 1 } else { r.append((c, 1)) }
        }
        XCTAssertEqual(runs.map(\.0), ["r", "b", "r"], "\(runs)")
    }

    /// A sender three times too fast (9 s of media in 3 s): what the capture cannot take in
    /// time is dropped, not queued: the feed stays on air for about what was sent in wall
    /// time, not for its 9 s of media, and the timeline is unbroken.
    private func aFeedFasterThanTheClockIsDroppedNotQueued() throws {
        let (port, out, events, run) = try listenerRun("livefast", keys: "takeover_after: 0s, release_after: 1s", seconds: 12)
        let sender = try startTool("ffmpeg", [
            "-nostdin", "-hide_banner", "-v", "error", "-readrate", "3",
            "-f", "lavfi", "-i", "color=c=blue:s=320x180:r=25", "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=44100",
            "-t", "9", "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-pix_fmt", "yuv420p", "-c:a", "aac",
            "-f", "mpegts", "srt://127.0.0.1:\(port)?mode=caller",
        ])
        XCTAssertTrue(EventLog.waitFor(events, of: run, timeout: 30, liveFeedState("released", 1, in: events)), run.stderr + sender.stderr)
        XCTAssertTrue(run.waitForExit(timeout: 60))
        let runs = colourRuns(try assertUnbrokenTimeline(out.path, seconds: 12))
        XCTAssertEqual(runs.map(\.0), ["r", "b", "r"], "\(runs)")
        // Queued, the 9 s of media would keep it on air for 9 s and more (plus release_after).
        XCTAssertLessThan(Double(runs.count == 3 ? runs[1].1 : 0) / 25, 7, "\(runs)")
    }

    /// A feed whose server refuses it is said once, masked, opened again and again, and
    /// never stops the run: the programme plays to its end.
    private func aRefusedFeedIsSaidOnceMaskedAndTheRunGoesOn() throws {
        let dir = try makeTempDir("liverefused")
        let port = try Ports.free()
        let out = dir.appendingPathComponent("rec.mkv"), events = dir.appendingPathComponent("events.jsonl")
        let yaml = programme("liverefused", recordingTo: out, live: "source: \"rtmp://127.0.0.1:\(port)/live/secret-key-42\"")
        let run = try runPreset(yaml, in: dir, args: ["--realtime", "--duration", "4", "--events", events.path], timeout: 60)
        XCTAssertEqual(run.status, 0, run.summary("mediapub"))
        let reasons = try EventLog.read(events).filter { $0["event"] as? String == "live.state" }.compactMap { $0["reason"] as? String }
        XCTAssertEqual(reasons.count, 1, "said once, however often it is tried: \(reasons)")
        XCTAssertTrue(reasons.first?.contains("Connection refused") == true, "\(reasons)")
        let all = try String(contentsOf: events, encoding: .utf8) + run.stderr
        XCTAssertFalse(all.contains("secret-key-42"), all)
        XCTAssertEqual(colours(try MediaProbe.frameStats(out.path)).filter { $0 != "r" }.count, 0, "the programme all along")
    }

    /// A feed of pictures and no sound (ffmpeg `-an`, for 4 s) takes over on its pictures, with
    /// silence (docs/presets.md, live), while it delivers: its pictures are taken as they come,
    /// though its running time counts from when the listener opened. Once the sender has
    /// stopped it is released, and never goes on air after.
    private func aFeedWithoutSoundGoesOnAirOnItsPicturesWhileItDelivers() throws {
        let (port, out, events, run) = try listenerRun("livemute", keys: "takeover_after: 500ms, release_after: 1s", seconds: 9)
        let sender = try startTool("ffmpeg", [
            "-nostdin", "-hide_banner", "-v", "error", "-re", "-f", "lavfi", "-i", "color=c=blue:s=320x180:r=25", "-t", "4",
            "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-pix_fmt", "yuv420p", "-an",
            "-f", "mpegts", "srt://127.0.0.1:\(port)?mode=caller",
        ])
        XCTAssertTrue(EventLog.waitFor(events, of: run, timeout: 30, liveFeedState("on_air", 1, in: events)), run.stderr + sender.stderr)
        XCTAssertTrue(sender.isRunning, "on air while the sender sends")
        XCTAssertTrue(sender.waitForExit(timeout: 30))
        XCTAssertEqual(sender.exitStatus, 0, sender.stderr)
        XCTAssertTrue(run.waitForExit(timeout: 60))
        XCTAssertEqual(run.exitStatus, 0, run.stderr)
        let live = try EventLog.read(events).filter { $0["event"] as? String == "live.state" }
        XCTAssertEqual(live.prefix(4).map { $0["state"] as? String ?? "" }, ["waiting", "connected", "on_air", "released"],
                       "on air once, released once it stopped, never on air again: \(live)")
        XCTAssertEqual(live.dropFirst(4).filter { $0["state"] as? String != "waiting" }.count, 0, "\(live)")

        let runs = colourRuns(try assertUnbrokenTimeline(out.path, seconds: 9))
        XCTAssertEqual(runs.map(\.0), ["r", "b", "r"], "\(runs)")
        guard runs.count == 3 else { return }
        let blueFrom = Double(runs[0].1) / 25, blueTo = blueFrom + Double(runs[1].1) / 25
        XCTAssertGreaterThan(blueTo - blueFrom, 2, "its pictures on air for what was sent less takeover_after, and the release: \(runs)")
        let pcm = try MediaProbe.decodePCM(out.path, rate: 44100)
        let onAir = MediaProbe.slice(pcm, rate: 44100, from: blueFrom + 0.2, to: blueTo - 0.2)
        XCTAssertLessThan(MediaProbe.rmsDB(onAir), -60, "silence on air: the programme's sound goes with its pictures")
        XCTAssertGreaterThan(MediaProbe.toneLevelDB(MediaProbe.slice(pcm, rate: 44100, from: blueTo + 0.3, to: blueTo + 1), rate: 44100, freq: 440),
                             -20, "the programme after")
    }
}

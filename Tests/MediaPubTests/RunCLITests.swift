// The run-time CLI surface (README, Using it; docs/exit-codes.md): probe, `run FILE`, exit codes, JSON logs, events.

import Foundation
import XCTest

final class RunCLITests: XCTestCase {

    func testProbePrintsDurationStreamsAndTagsAsJSON() throws {
        let dir = try makeTempDir()
        let src = try TestMedia.makeVideo(in: dir, name: "src.mp4", seconds: 3, size: "320x240", fps: 30, freq: 440, sampleRate: 48000)
        let r = try CLI.run(["probe", src.path], timeout: 60)
        XCTAssertEqual(r.status, 0, r.summary("probe"))
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any], r.stdout)
        let duration = try XCTUnwrap(json["duration_ms"] as? Int, r.stdout)
        // Cross-check against ffprobe, which we did not write.
        let reference = try MediaProbe.probe(src.path)
        XCTAssertEqual(Double(duration) / 1000, reference.duration ?? 0, accuracy: 0.1)
        let streams = try XCTUnwrap(json["streams"] as? [[String: Any]])
        let video = try XCTUnwrap(streams.first { ($0["type"] as? String) == "video" }, r.stdout)
        XCTAssertEqual(video["width"] as? Int, 320)
        XCTAssertEqual(video["height"] as? Int, 240)
        let audio = try XCTUnwrap(streams.first { ($0["type"] as? String) == "audio" }, r.stdout)
        XCTAssertEqual(audio["sample_rate"] as? Int, 48000)
        XCTAssertNotNil(json["tags"] as? [String: Any])
    }

    func testProbeOfAMissingFileNamesItAndFails() throws {
        let r = try CLI.run(["probe", "/tmp/definitely-not-here-\(UUID().uuidString).mp3"], timeout: 30)
        XCTAssertEqual(r.status, 1, r.summary("probe missing"))
        XCTAssertTrue(r.stderr.contains("definitely-not-here"), r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "one line: \(r.stderr)")
    }

    func testNothingPlayableExitsOneAndNamesTheSource() throws {
        let dir = try makeTempDir()
        let out = dir.appendingPathComponent("out.mp4")
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: "missing-source.mp4", outputs: ["file://\(out.path)"]))
        let r = try CLI.run(["--preset", preset.path, "--no-realtime", "--events", events.path], timeout: 60)
        XCTAssertEqual(r.status, 1, r.summary("nothing playable"))
        XCTAssertTrue(r.stderr.contains("missing-source.mp4"), r.stderr)
        // docs/events.md: the failure is an `error` event with a message, then run.stopped.
        let names = try String(contentsOf: events, encoding: .utf8).split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }.map { "\($0["event"] ?? "")" + (($0["message"] as? String).map { ": " + $0 } ?? "") }
        XCTAssertEqual(Array(names.suffix(2)), ["error: nothing playable", "run.stopped"], "\(names)")
    }

    func testRunFormWithJSONLogsAndEventsFile() throws {
        let dir = try makeTempDir()
        try TestMedia.makeVideo(in: dir, name: "src.mp4", seconds: 2, size: "320x240", fps: 30, freq: 440, sampleRate: 48000)
        let out = dir.appendingPathComponent("out.mkv")
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: "src.mp4", outputs: ["file://\(out.path)"]))
        let r = try CLI.run(["run", preset.path, "--no-realtime", "--log-format", "json", "--events", events.path], timeout: 60)
        XCTAssertEqual(r.status, 0, r.summary("run FILE"))
        let logLines = r.stderr.split(separator: "\n").filter { !$0.hasPrefix("ALSA") }
        XCTAssertFalse(logLines.isEmpty)
        for line in logLines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            XCTAssertNotNil(object?["msg"], "a JSON log line: \(line)")
            XCTAssertNotNil(object?["level"], "a JSON log line: \(line)")
        }
        let records = try String(contentsOf: events, encoding: .utf8).split(separator: "\n").map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let states = records.filter { $0["event"] as? String == "player.state" }.compactMap { $0["state"] as? String }
        XCTAssertEqual(states.first, "loading", "\(states)")
        XCTAssertTrue(states.contains("playing"), "\(states)")
        XCTAssertTrue(states.contains("ended"), "\(states)")
        let stopped = try XCTUnwrap(records.last { $0["event"] as? String == "run.stopped" })
        XCTAssertEqual(stopped["exit_code"] as? Int, 0)
        XCTAssertFalse(records.contains { $0["event"] as? String == "error" }, "no error event for a run that succeeds")
        XCTAssertNotNil(records.first?["ts"] as? String)
        let p = try assertH264AAC(out.path)
        XCTAssertEqual(p.duration ?? 0, 2, accuracy: 0.2)
    }

    func testVersionNamesTheLibrariesItRunsOn() throws {
        let r = try CLI.run(["--version"], timeout: 20)
        XCTAssertEqual(r.status, 0, r.summary("--version"))
        XCTAssertTrue(r.stdout.hasPrefix("mediapub "), r.stdout)
        // The GStreamer version as GStreamer's own tool reports it.
        let inspect = try Proc.check(try Tools.path("gst-inspect-1.0"), ["--version"])
        let gst = inspect.stdout.split(separator: "\n").first { $0.hasPrefix("GStreamer ") }.map(String.init) ?? "?"
        XCTAssertTrue(r.stdout.contains(gst), "\(r.stdout) vs \(gst)")
        for library in ["libcurl/", "libsrt/", "libyaml/"] { XCTAssertTrue(r.stdout.contains(library), r.stdout) }
    }

    func testBadOptionValuesAreUsageErrors() throws {
        for args in [["--duration", "soon"], ["--log-format", "xml"], ["--bogus"]] {
            let r = try CLI.run(["--preset", "/nonexistent.yaml"] + args, timeout: 30)
            XCTAssertEqual(r.status, 2, r.summary("\(args)"))
            XCTAssertTrue(r.stderr.contains(args[0]), "names \(args[0]): \(r.stderr)")
        }
    }

    /// `--output` is checked like a preset's outputs before anything starts: exit 2, the
    /// (masked) URL named, the stream key never shown; the preset's outputs it replaces are not.
    func testBadOutputURLsAreUsageErrorsThatNameThem() throws {
        let dir = try makeTempDir()
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: ["null://"]))
        let key = "outKey8d7c6b"
        for (url, named) in [("rtmp://127.0.0.1/\(key)", "\"rtmp://127.0.0.1/****\" needs an app and a stream key"),
                             ("rtmp://127.0.0.1:99999/live/\(key)", "\"rtmp://127.0.0.1:99999/live/****\" has a bad port"),
                             ("out", "\"out\": a file output must end in .mp4, .mkv, .flv, .ts, .m4a, .mp3, .aac, .ogg or .opus")] {
            let r = try CLI.run(["--preset", preset.path, "--no-realtime", "--duration", "1s", "--output", url],
                                cwd: dir, timeout: 30)
            XCTAssertEqual(r.status, 2, r.summary("--output \(url)"))
            XCTAssertTrue(r.stderr.contains("--output \(named)"), r.summary("--output \(url)"))
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "one line: \(r.stderr)")
            XCTAssertFalse(r.stderr.contains(key) || r.stdout.contains(key), r.summary("--output \(url)"))
        }
        // Outputs that --output replaces are not validated: an unset variable, a 1-character
        // SRT passphrase and an MP4 segment with B-frames stop a run only when they would run.
        let replaced = try writeFile(dir, "replaced.yaml", E2EPreset.basic(
            source: E2EPreset.testsrc,
            outputs: ["rtmp://127.0.0.1/live/${UNSET_KEY_7f3a}", "srt://127.0.0.1:9?passphrase=x"],
            extra: "  - url: seg.mp4\n    segment: 2s\n").replacingOccurrences(of: "keyframe_interval: 1s",
                                                                               with: "keyframe_interval: 1s\n  bframes: 2"))
        let refused = try CLI.run(["--preset", replaced.path, "--no-realtime", "--duration", "1s"], cwd: dir, timeout: 30)
        XCTAssertEqual(refused.status, 2, refused.summary("the preset's own outputs"))
        for key in ["outputs[0].url: UNSET_KEY_7f3a is not set", "outputs[1].url", "outputs[2].segment"] {
            XCTAssertTrue(refused.stderr.contains(key), "\(key): \(refused.stderr)")
        }
        // A plain path is relative to where mediapub runs.
        let r = try CLI.run(["--preset", replaced.path, "--no-realtime", "--duration", "1s", "--output", "rec.ts"],
                            cwd: dir, timeout: 30)
        XCTAssertEqual(r.status, 0, r.summary("--output rec.ts"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.appendingPathComponent("rec.ts").path), r.summary("--output rec.ts"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("seg.mp4").path), r.summary("--output rec.ts"))
    }
}

final class MonitorTests: XCTestCase {
    /// `monitor: true` on a machine without a sound device keeps publishing (docs/presets.md, top level).
    func testMonitorOnAHeadlessMachineKeepsTheRunGoing() throws {
        let dir = try makeTempDir()
        let out = dir.appendingPathComponent("out.mp4")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: ["file://\(out.path)"],
                                                                  extra: "monitor: true"))
        let r = try CLI.run(["--preset", preset.path, "--realtime", "--duration", "3s"], timeout: 30)
        XCTAssertEqual(r.status, 0, r.summary("monitor on a headless machine"))
        // Said once, in mediapub's words; none of the sound libraries' own lines.
        let said = r.stderr.split(separator: "\n").filter { $0.contains("monitor") }
        XCTAssertEqual(said, ["mediapub: warn: monitor: no sound device (no PulseAudio server answers, no ALSA sound card); "
                              + "continuing without local playback"], r.stderr)
        for raw in ["ALSA lib", "AL lib", "pulse"] { XCTAssertFalse(r.stderr.contains(raw), r.stderr) }
        let p = try assertH264AAC(out.path)
        XCTAssertEqual(p.duration ?? 0, 3, accuracy: 0.2)
        let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
        XCTAssertEqual(MediaProbe.dominantFrequency(Array(pcm.dropFirst(8000).prefix(16000)), rate: 16000) ?? 0, 440, accuracy: 10)
    }
}

final class LockTests: XCTestCase {
    /// `--lock PATH`: a second instance (an overlapping cron run) exits 3 and starts nothing.
    func testSecondInstanceWithTheSameLockExitsThree() throws {
        let dir = try makeTempDir()
        let lock = dir.appendingPathComponent("run.lock").path
        let first = try writeFile(dir, "a.yaml", E2EPreset.basic(name: "a", source: E2EPreset.testsrc, outputs: ["null://"]))
        let secondOut = dir.appendingPathComponent("b.mp4")
        let second = try writeFile(dir, "b.yaml", E2EPreset.basic(name: "b", source: E2EPreset.testsrc, outputs: ["file://\(secondOut.path)"]))
        let events = dir.appendingPathComponent("a-events.jsonl")
        let running = try startMediaPub(["--preset", first.path, "--realtime", "--duration", "20s", "--lock", lock,
                                         "--events", events.path])
        XCTAssertTrue(Ports.waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: lock) })
        // Owner-only, whatever the umask gives: a lock in a shared folder is no one else's to open.
        XCTAssertEqual((try FileManager.default.attributesOfItem(atPath: lock)[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        // The lock is taken before the run starts.
        XCTAssertTrue(EventLog.waitFor(events, of: running, timeout: 20) { $0["event"] as? String == "run.state" && $0["state"] as? String == "running" },
                      running.stderr)
        let r = try CLI.run(["--preset", second.path, "--no-realtime", "--duration", "2s", "--lock", lock], timeout: 20)
        XCTAssertEqual(r.status, 3, r.summary("second instance"))
        XCTAssertTrue(r.stderr.contains(lock), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: secondOut.path), "the second instance started nothing")
        running.terminate(SIGTERM)
        XCTAssertTrue(running.waitForExit(timeout: 15))
        // Once the first is gone the lock is free again.
        let again = try CLI.run(["--preset", second.path, "--no-realtime", "--duration", "1s", "--lock", lock], timeout: 30)
        XCTAssertEqual(again.status, 0, again.summary("after the first instance ended"))
    }
}

final class MetricsTests: XCTestCase {
    /// `--metrics 127.0.0.1:PORT` serves Prometheus text at /metrics, read here by python's urllib.
    func testMetricsEndpointServesPrometheusText() throws {
        let dir = try makeTempDir()
        let port = try Ports.free()
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(name: "met", source: E2EPreset.testsrc, outputs: ["null://"]))
        let events = dir.appendingPathComponent("events.jsonl")
        let run = try startMediaPub(["--preset", preset.path, "--realtime", "--duration", "15s", "--metrics", "127.0.0.1:\(port)",
                                     "--events", events.path])
        XCTAssertTrue(Ports.waitForTCP(port, timeout: 10), "metrics port listens")
        XCTAssertTrue(EventLog.waitFor(events, of: run, EventLog.progressed(1.5)), "1.5 s played: \(run.stderr)")
        let fetch = try Proc.run(try Tools.path("python3"), ["-c",
            "import urllib.request,sys; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())",
            "http://127.0.0.1:\(port)/metrics"], timeout: 15)
        XCTAssertEqual(fetch.status, 0, fetch.summary("GET /metrics"))
        let text = fetch.stdout
        XCTAssertTrue(text.contains("# TYPE mediapub_output_time_seconds counter"), text)
        let outputTime = text.split(separator: "\n").first { $0.hasPrefix("mediapub_output_time_seconds ") }
        let seconds = Double(outputTime?.split(separator: " ").last ?? "") ?? 0
        XCTAssertGreaterThan(seconds, 1, text)
        XCTAssertTrue(text.contains("mediapub_player_state{player=\"main\",state=\"playing\"} 1"), text)
        XCTAssertTrue(text.contains("mediapub_output_state{output=\"0\",url=\"null://\",state=\"publishing\"} 1"), text)
        run.terminate(SIGTERM)
        XCTAssertTrue(run.waitForExit(timeout: 15))
        XCTAssertEqual(run.result().status, 0)
    }
}

// Crashes: any number from the socket, a preset or the
// command line is range-checked (never a trap); a consumer that goes away or
// a destination that fills costs its own output, never the broadcast; a
// preset is read with a size cap. Driven from outside like a user would; the
// recordings are checked with ffprobe/ffmpeg.

import Foundation
import XCTest

final class CrashResistanceTests: XCTestCase {

    // MARK: helpers

    private func ctl(_ socket: String, _ words: [String]) throws -> (status: Int32, reply: [String: Any]) {
        let r = try CLI.run(["ctl", "--socket", socket] + words, timeout: 20)
        let reply = (try? JSONSerialization.jsonObject(with: r.stdoutData)) as? [String: Any]
        return (r.status, try XCTUnwrap(reply, r.summary("ctl \(words)")))
    }

    /// Waits until the events file holds an event matching `match` (the run's own word that it got there).
    private func waitForEvent(_ events: URL, _ what: String, timeout: TimeInterval = 30,
                              _ match: @escaping ([String: Any]) -> Bool) -> Bool {
        let seen = Ports.waitUntil(timeout: timeout, watching: events) { ((try? EventLog.read(events)) ?? []).contains(where: match) }
        if !seen { XCTFail("no \(what) event in \((try? String(contentsOf: events, encoding: .utf8)) ?? "")") }
        return seen
    }

    /// The recording is a real H.264/AAC file ffprobe reads, with some duration, and it decodes cleanly.
    private func assertPlayable(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let p = try MediaProbe.probe(path)
        XCTAssertGreaterThan(p.duration ?? 0, 0.5, "recording has a duration: \(p.rawJSON)", file: file, line: line)
        XCTAssertTrue(p.streams.contains { $0.codecName == "h264" }, "an H.264 stream: \(p.rawJSON)", file: file, line: line)
        XCTAssertTrue(p.streams.contains { $0.codecName == "aac" }, "an AAC stream: \(p.rawJSON)", file: file, line: line)
        try assertDecodesCleanly(path, file: file, line: line)
    }

    private func preset(_ dir: URL, recording: URL, extra: String = "") throws -> URL {
        try writeFile(dir, "t.yaml", PlayerPreset.video(name: "crash", players: [
            PlayerPreset.player("main", source: E2EPreset.testsrc, ["video: true"]),
        ], output: recording, extra: extra))
    }

    // MARK: numbers from the control socket

    /// Each out-of-range value is `ok:false` with a message naming it; the run
    /// goes on (status answers, a good command still works) and its recording
    /// is playable after `ctl quit`. Before: `volume main 1e19` trapped (SIGILL)
    /// and the MP4 had no moov atom.
    func testOutOfRangeControlValuesAreRefusedAndTheRunGoesOn() throws {
        let dir = try makeTempDir()
        let socket = dir.appendingPathComponent("c.sock").path
        let events = dir.appendingPathComponent("events.jsonl")
        let rec = dir.appendingPathComponent("rec.mp4")
        let file = try preset(dir, recording: rec)
        let run = try startMediaPub(["--preset", file.path, "--realtime", "--duration", "120s",
                                     "--control", socket, "--events", events.path])
        guard waitForEvent(events, "player.state playing", { $0["event"] as? String == "player.state" && $0["state"] as? String == "playing" }) else { return }
        guard waitForEvent(events, "output.state publishing", { $0["event"] as? String == "output.state" && $0["state"] as? String == "publishing" }) else { return }

        let refused: [([String], String)] = [
            (["volume", "main", "1e19"], "1e19"), (["volume", "main", "-1e19"], "-1e19"),
            (["volume", "main", "nan"], "nan"), (["volume", "main", "inf"], "inf"),
            (["seek", "main", "99999999999999h"], "99999999999999h"), (["seek", "main", "6000000h"], "6000000h"),
            (["speed", "main", "nan"], "nan"), (["speed", "main", "inf"], "inf"), (["speed", "main", "1e308"], "1e+308"),
            (["pitch", "main", "nan"], "nan"), (["pitch", "main", "-inf"], "-inf"), (["pitch", "main", "1e19"], "1e+19"),
            (["repeat", "main", "1e19"], "1e19"),
        ]
        for (words, shown) in refused {
            let r = try ctl(socket, words)
            XCTAssertEqual(r.status, 1, "ctl \(words): \(r.reply)")
            XCTAssertEqual(r.reply["ok"] as? Bool, false, "ctl \(words): \(r.reply)")
            let error = r.reply["error"] as? String ?? ""
            XCTAssertTrue(error.hasPrefix(words[0]) && error.contains(shown), "ctl \(words) names the command and value: \(error)")
            XCTAssertFalse(error.contains("\n"), "one line: \(error)")
        }
        let seekError = try ctl(socket, ["seek", "main", "6000000h"]).reply["error"] as? String ?? ""
        XCTAssertTrue(seekError.contains("87600h"), "the message says the bound: \(seekError)")

        // Nothing changed, and the run still takes good commands.
        let status = try XCTUnwrap(try ctl(socket, ["status"]).reply["status"] as? [String: Any])
        XCTAssertEqual(status["state"] as? String, "running")
        let player = try XCTUnwrap((status["players"] as? [[String: Any]])?.first)
        XCTAssertEqual(player["publish_volume"] as? Int, 100, "\(player)")
        XCTAssertEqual(player["speed"] as? Double, 1, "\(player)")
        XCTAssertEqual(player["pitch"] as? Double, 0, "\(player)")
        XCTAssertEqual(try ctl(socket, ["volume", "main", "40"]).status, 0)
        XCTAssertEqual(try ctl(socket, ["seek", "main", "87600h"]).status, 0, "the bound itself is a valid position")

        XCTAssertEqual(try ctl(socket, ["quit"]).status, 0)
        XCTAssertTrue(run.waitForExit(timeout: 30), "quit stops the run")
        let r = run.result()
        XCTAssertFalse(r.signaled, r.summary("mediapub"))
        XCTAssertEqual(r.status, 0, r.summary("mediapub after quit"))
        try assertPlayable(rec.path)
    }

    // MARK: durations from a preset, --set and the command line

    /// A duration past the bound is exit 2 with one line naming the key and
    /// the bound, from validate and from run alike. Before: validate said 0
    /// and run trapped (exit 132).
    func testDurationsBeyondTheBoundAreExitTwoNamingTheKey() throws {
        let dir = try makeTempDir()
        let rec = dir.appendingPathComponent("rec.mp4")
        let file = try preset(dir, recording: rec)
        let cases: [(set: String, key: String)] = [
            ("players.main.start_at=99999999999999h", "players[0].start_at"),
            ("stop.after=999999999999999999h", "stop.after"),
            ("players.main.progress_interval=99999999999h", "players[0].progress_interval"),
            ("reconnect.max=99999999999999h", "reconnect.max"),
            ("reconnect.give_up_after=99999999999999h", "reconnect.give_up_after"),
        ]
        for (set, key) in cases {
            for args in [["validate", file.path, "--set", set],
                         ["--preset", file.path, "--no-realtime", "--duration", "1s", "--set", set]] {
                let r = try CLI.run(args, timeout: 30)
                XCTAssertFalse(r.signaled, r.summary("\(args)"))
                XCTAssertEqual(r.status, 2, r.summary("\(args)"))
                let lines = r.stderr.split(whereSeparator: \.isNewline)
                XCTAssertEqual(lines.count, 1, "one line: \(r.stderr)")
                XCTAssertTrue(r.stderr.contains("\(key): "), "names \(key): \(r.stderr)")
                XCTAssertTrue(r.stderr.contains("too long (at most 87600h (10 years))"), "says the bound: \(r.stderr)")
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: rec.path), "nothing was started")

        // The same values written in the preset file.
        let inFile = try writeFile(dir, "f.yaml", PlayerPreset.video(name: "crash", players: [
            PlayerPreset.player("main", source: E2EPreset.testsrc, ["video: true", "start_at: 99999999999999h"]),
        ], output: rec, extra: "stop:\n  after: 999999999999999999h"))
        let v = try CLI.run(["validate", inFile.path], timeout: 30)
        XCTAssertEqual(v.status, 2, v.summary("validate"))
        XCTAssertTrue(v.stderr.contains("players[0].start_at: 99999999999999h is too long"), v.stderr)
        XCTAssertTrue(v.stderr.contains("stop.after: 999999999999999999h is too long"), v.stderr)

        let d = try CLI.run(["--preset", file.path, "--no-realtime", "--duration", "9999999999999999h"], timeout: 30)
        XCTAssertFalse(d.signaled, d.summary("--duration"))
        XCTAssertEqual(d.status, 2, d.summary("--duration"))
        XCTAssertEqual(d.stderr, "mediapub: --duration 9999999999999999h: too long (at most 87600h (10 years))\n")

        // Numbers out of range in a preset were already refused; nan, inf and huge ones too.
        for set in ["players.main.publish_volume=1e19", "players.main.speed=nan", "players.main.pitch=-inf",
                    "video.fps=99999999999999999999", "video.bitrate=99999999999999999999G", "audio.sample_rate=1e19",
                    "video.size=99999999999999999999x720"] {
            let r = try CLI.run(["validate", file.path, "--set", set], timeout: 30)
            XCTAssertEqual(r.status, 2, r.summary("validate --set \(set)"))
            XCTAssertEqual(r.stderr.split(whereSeparator: \.isNewline).count, 1, r.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: rec.path), "nothing was started")
    }

    // MARK: consumers that go away, destinations that fill

    /// The runs that mostly wait (an SRT caller nobody answers beside a source that cannot be
    /// read, three times; events and the log to pipes whose readers go), each with its own
    /// folder and preset name or control socket: all at once, each checked as its own test was.
    func testSRTCallersNobodyAnswersAndPipesThatCloseEachInARunOfItsOwnAtOnce() {
        atOnce([("an SRT output nobody answers", anSRTOutputNobodyAnswersEndsTheRunWithItsExitCodeEveryTime),
                ("pipes that close", eventsAndStderrToPipesThatCloseCostOnlyTheEventsAndTheLogs)])
    }

    /// The events and the log each to a pipe whose reader goes away, each its own run,
    /// folder and control socket, at once: both runs are realtime. Both are started and
    /// their pipes read and closed, then each run is followed to its end and checked as
    /// its own test did.
    private func eventsAndStderrToPipesThatCloseCostOnlyTheEventsAndTheLogs() throws {
        let events = try eventsToAPipeClosedAfterThreeLinesCostOnlyTheEvents()
        let logs = try stderrToAPipeThatClosesCostsOnlyTheLogs()
        try events()
        try logs()
    }

    /// `mediapub … --events - | head -3`: the reader closes after three lines;
    /// the run finishes, exit 0, with one warning and a playable recording.
    /// Before: killed by SIGPIPE (exit 141) and the MP4 was lost. Its run is started and
    /// its pipe read and closed; returned: the checks that follow it to its end.
    private func eventsToAPipeClosedAfterThreeLinesCostOnlyTheEvents() throws -> () throws -> Void {
        let dir = try makeTempDir("eventspipe")
        let rec = dir.appendingPathComponent("rec.mp4")
        let file = try preset(dir, recording: rec)
        let stderrURL = dir.appendingPathComponent("stderr")
        XCTAssertTrue(FileManager.default.createFile(atPath: stderrURL.path, contents: nil))
        let stderrHandle = try FileHandle(forWritingTo: stderrURL)
        let pipe = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try CLI.binary())
        process.environment = CLI.environment()   // a runtime folder of this test process's own
        // Realtime: events keep coming (progress every 100 ms) after the reader has gone.
        process.arguments = ["--preset", file.path, "--realtime", "--duration", "3s", "--events", "-",
                             "--set", "players.main.progress_interval=100ms", "--control", dir.appendingPathComponent("c.sock").path]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = pipe
        process.standardError = stderrHandle
        try process.run()
        addTeardownBlock { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
        try? pipe.fileHandleForWriting.close()

        let received = try readLines(3, from: pipe)
        let lines = String(decoding: received, as: UTF8.self).split(separator: "\n")
        XCTAssertGreaterThanOrEqual(lines.count, 3, "three event lines came first: \(lines)")
        XCTAssertTrue(lines.first?.contains("\"event\"") == true, "\(lines)")

        return { [self] in
            XCTAssertTrue(finishes(process), "the run finishes")
            try? stderrHandle.close()
            let stderr = (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? ""
            XCTAssertEqual(process.terminationReason, .exit, "not killed by a signal (\(process.terminationStatus))\n\(stderr)")
            XCTAssertEqual(process.terminationStatus, 0, stderr)
            XCTAssertEqual(stderr.components(separatedBy: "events to stdout: Broken pipe").count - 1, 1,
                           "one warning for the destination that went away:\n\(stderr)")
            XCTAssertTrue(stderr.contains("finished: duration reached"), stderr)
            try assertPlayable(rec.path)
        }
    }

    /// Reads until `count` lines came (or the writer went away), then closes the read end.
    private func readLines(_ count: Int, from pipe: Pipe) throws -> Data {
        var received = Data()
        while received.filter({ $0 == UInt8(ascii: "\n") }).count < count {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            received += chunk
        }
        try pipe.fileHandleForReading.close()
        return received
    }

    /// Waits (bounded: a hang fails the test, not CI) for `process` to exit, and reaps it.
    private func finishes(_ process: Process) -> Bool {
        Proc.waitForExit(process, timeout: 60)
    }

    /// stderr on a pipe whose reader goes away after the first line: logs are
    /// lost, the run is not. Before: killed by SIGPIPE (141). Its run is started and its
    /// pipe read and closed; returned: the checks that follow it to its end.
    private func stderrToAPipeThatClosesCostsOnlyTheLogs() throws -> () throws -> Void {
        let dir = try makeTempDir("stderrpipe")
        let rec = dir.appendingPathComponent("rec.mp4")
        let events = dir.appendingPathComponent("events.jsonl")
        let file = try preset(dir, recording: rec)
        let pipe = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try CLI.binary())
        process.environment = CLI.environment()   // a runtime folder of this test process's own
        process.arguments = ["--preset", file.path, "--realtime", "--duration", "2s", "--log-level", "debug",
                             "--events", events.path, "--control", dir.appendingPathComponent("c.sock").path]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = pipe
        try process.run()
        addTeardownBlock { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
        try? pipe.fileHandleForWriting.close()
        let received = try readLines(1, from: pipe)
        XCTAssertTrue(String(decoding: received, as: UTF8.self).hasPrefix("mediapub"), "a log line came first")

        return { [self] in
            XCTAssertTrue(finishes(process), "the run finishes")
            XCTAssertEqual(process.terminationReason, .exit, "not killed by a signal (\(process.terminationStatus))")
            XCTAssertEqual(process.terminationStatus, 0)
            let stopped = try EventLog.read(events).first { $0["event"] as? String == "run.stopped" }
            XCTAssertEqual(stopped?["exit_code"] as? Int, 0, "run.stopped: \(String(describing: stopped))")
            try assertPlayable(rec.path)
        }
    }

    /// `--events /dev/full`: every write fails (ENOSPC); one warning, exit 0,
    /// a playable recording, and the other events file gets everything.
    /// Before: FileHandle.write trapped (exit 132) and the MP4 was lost.
    func testEventsToAFullDeviceAreAWarningNotACrash() throws {
        let dir = try makeTempDir()
        let rec = dir.appendingPathComponent("rec.mp4")
        let events = dir.appendingPathComponent("events.jsonl")
        let file = try preset(dir, recording: rec)
        let r = try CLI.run(["--preset", file.path, "--no-realtime", "--duration", "2s",
                             "--events", "/dev/full", "--events", events.path], timeout: 60)
        XCTAssertFalse(r.signaled, r.summary("mediapub --events /dev/full"))
        XCTAssertEqual(r.status, 0, r.summary("mediapub --events /dev/full"))
        let warning = "events to /dev/full: No space left on device; no more events are written there"
        XCTAssertEqual(r.stderr.components(separatedBy: warning).count - 1, 1, "warned once:\n\(r.stderr)")
        let log = try EventLog.read(events)
        XCTAssertTrue(log.contains { $0["event"] as? String == "warning" && $0["message"] as? String == warning }, "\(log)")
        XCTAssertEqual(log.last?["event"] as? String, "run.stopped", "the other destination got every event")
        XCTAssertEqual(log.last?["exit_code"] as? Int, 0)
        try assertPlayable(rec.path)
    }

    // MARK: preset size

    /// `validate /dev/zero` is refused at 1 MiB with one short line; a 10 MB
    /// preset too; a huge scalar under the cap is echoed cut to 80 characters.
    /// Before: /dev/zero grew past 1 GB and aborted, and a bad 10 MB name was
    /// echoed whole.
    func testPresetSizeIsCappedAndDiagnosticsStayShort() throws {
        let zero = try CLI.run(["validate", "/dev/zero"], timeout: 30)
        XCTAssertFalse(zero.timedOut || zero.signaled, zero.summary("validate /dev/zero"))
        XCTAssertEqual(zero.status, 2, zero.summary("validate /dev/zero"))
        XCTAssertEqual(zero.stderr, "mediapub: /dev/zero:0: preset: larger than 1048576 bytes (1 MiB), the most a preset may be; is it the right file?\n")

        let dir = try makeTempDir()
        let big = try writeFile(dir, "big.yaml", "name: \"" + String(repeating: "x", count: 10_000_000) + "!\"\n")
        let r = try CLI.run(["validate", big.path], timeout: 30)
        XCTAssertEqual(r.status, 2, r.summary("validate 10 MB"))
        XCTAssertEqual(r.stderr.split(whereSeparator: \.isNewline).count, 1, String(r.stderr.prefix(500)))
        XCTAssertTrue(r.stderr.contains("larger than 1048576 bytes"), String(r.stderr.prefix(500)))
        XCTAssertLessThan(r.stderr.count, 200, String(r.stderr.prefix(500)))

        // Under the cap: the value is shown cut, every line stays short.
        let half = try writeFile(dir, "half.yaml", "name: \"" + String(repeating: "x", count: 500_000) + "!\"\n")
        let h = try CLI.run(["validate", half.path], timeout: 30)
        XCTAssertEqual(h.status, 2, h.summary("validate 500 kB name"))
        let lines = h.stderr.split(whereSeparator: \.isNewline)
        XCTAssertTrue(lines.contains { $0.contains(": name: \"" + String(repeating: "x", count: 79) + "…\" is not a valid name") },
                      String(h.stderr.prefix(1000)))
        XCTAssertTrue(lines.allSatisfy { $0.count < 400 }, String(h.stderr.prefix(1000)))

        // A playlist file: that never ends is capped too.
        let endless = try writeFile(dir, "endless.yaml", PlayerPreset.audioOnly(players: [
            "  - id: music\n    playlist:\n      file: /dev/zero\n",
        ], output: dir.appendingPathComponent("a.mp4")))
        let e = try CLI.run(["validate", endless.path], timeout: 60)
        XCTAssertFalse(e.timedOut || e.signaled, e.summary("validate playlist /dev/zero"))
        XCTAssertEqual(e.status, 2, e.summary("validate playlist /dev/zero"))
        XCTAssertTrue(e.stderr.contains("players[0].playlist.file: /dev/zero is larger than 16 MiB"), e.stderr)
    }

    /// An SRT caller nobody answers, beside a source that cannot be read: the run ends
    /// with its own exit code every time. libsrt was still at work when the process
    /// exited (our handshake asking why, its GC thread) and its static destructors
    /// crashed it after `finished:` in about one run in three. The three runs go at
    /// once (each its own process, name and control socket): most of each run is the
    /// unreadable source's retries, waited for, not work.
    private func anSRTOutputNobodyAnswersEndsTheRunWithItsExitCodeEveryTime() throws {
        let dir = try makeTempDir()
        let closed = try Ports.free()
        var runs: [(run: Int, recording: URL, process: RunningProcess)] = []
        for run in 1...3 {
            let recording = dir.appendingPathComponent("rec\(run).mp4")
            let yaml = E2EPreset.basic(name: "t\(run)", source: E2EPreset.testsrc, outputs: [
                recording.path, "srt://127.0.0.1:\(closed)?mode=caller",
            ], extra: "reconnect: {initial: 1s, max: 1s, give_up_after: 1m}")
                .replacingOccurrences(of: "    video: true\n",
                                      with: "    video: true\n  - id: web\n    source: \"http://127.0.0.1:\(closed)/gone.mp3\"\n")
            let preset = try writeFile(dir, "t\(run).yaml", yaml)
            runs.append((run, recording, try startMediaPub(["--preset", preset.path, "--no-realtime", "--duration", "2s"])))
        }
        for (run, recording, process) in runs {
            let exited = process.waitForExit(timeout: 60)
            let r = process.result(timedOut: !exited)
            XCTAssertFalse(r.signaled || r.timedOut, r.summary("run \(run)"))
            XCTAssertEqual(r.status, 0, r.summary("run \(run)"))
            XCTAssertFalse(r.stderr.contains("crashed"), r.summary("run \(run)"))
            XCTAssertTrue(r.stderr.contains("finished: duration reached"), r.summary("run \(run)"))
            try assertPlayable(recording.path)
        }
    }
}

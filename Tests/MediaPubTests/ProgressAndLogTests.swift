// What a person at a terminal, or a journal, sees (README, Using it; docs/status.md, The status line): an ffmpeg-style
// status line redrawn in place, log lines above it; a loop logged once.

import Foundation
import XCTest
@testable import MediaPub

final class ProgressAndLogTests: XCTestCase {

    /// The realtime runs under script(1), each with its own folder, typescript and control
    /// socket: at once, each checked as its own test was.
    func testStatusLinesOnATerminalEachInARunOfItsOwnAtOnce() {
        atOnce([("redrawn in place", statusLineRedrawsInPlaceOnATerminal),
                ("percent, stop-after and players that end", statusLineShowsPercentWithStopAfterAndWithPlayersThatEnd)])
    }

    /// Under a real terminal (script(1) gives the run a pty), the status line is drawn
    /// with carriage return and erase-line, never scrolled, and shows % and time left.
    private func statusLineRedrawsInPlaceOnATerminal() throws {
        let dir = try makeTempDir()
        let typescript = dir.appendingPathComponent("typescript")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: [dir.appendingPathComponent("o.mkv").path]))
        let command = "\(try CLI.binary()) --preset \(preset.path) --realtime --duration 4s --control \(dir.appendingPathComponent("c.sock").path)"
        let r = try Proc.run(try Tools.path("script"), ["-q", "-e", "-c", command, typescript.path], env: CLI.environment(), timeout: 60)
        XCTAssertEqual(r.status, 0, r.summary("mediapub under script"))
        let screen = try String(contentsOf: typescript, encoding: .utf8)
        let draws = screen.components(separatedBy: "frame=").dropFirst().count
        XCTAssertGreaterThanOrEqual(draws, 2, screen)
        XCTAssertEqual(screen.components(separatedBy: "\r\u{1B}[Kframe=").count - 1, draws, "each draw replaces the line: \(screen.debugDescription)")
        XCTAssertNil(screen.range(of: "outputs=[a-z,]*\r?\n", options: .regularExpression), "a status line is never left behind: \(screen.debugDescription)")
        XCTAssertNotNil(screen.range(of: "  ?[0-9]+% eta=00:00:0[0-9]\\.[0-9]{2} outputs=", options: .regularExpression), screen.debugDescription)
        XCTAssertTrue(screen.contains("finished: duration reached"), screen)
    }

    /// `%` and `eta=` whenever the run's length is known: from `stop.after`, and from
    /// players that end (a playlist played once of items whose durations are known).
    private func statusLineShowsPercentWithStopAfterAndWithPlayersThatEnd() throws {
        let dir = try makeTempDir()
        try TestMedia.makeAudio(in: dir, name: "a.wav", seconds: 1.5, ext: "wav")
        try TestMedia.makeAudio(in: dir, name: "b.wav", seconds: 2, freq: 660, ext: "wav")
        let audioOnly = "audio: {sample_rate: 44100, channels: 2}\noutputs: [null://]\n"
        // The two realtime runs go at once, each its own preset, typescript and control socket.
        let cases = [("stop.after", audioOnly + "players: [{source: \"testsrc:\"}]\nstop: {after: 3s}\n"),
                     ("players", audioOnly + "players:\n  - playlist: {items: [a.wav, b.wav], mode: once}\n")]
        let runs = try cases.enumerated().map { n, c in
            let preset = try writeFile(dir, "t\(n).yaml", c.1)
            let typescript = dir.appendingPathComponent("typescript\(n)")
            let command = "\(try CLI.binary()) --preset \(preset.path) --realtime --control \(dir.appendingPathComponent("c\(n).sock").path)"
            return (typescript, try startTool("script", ["-q", "-e", "-c", command, typescript.path], env: CLI.environment()))
        }
        for ((name, _), (typescript, run)) in zip(cases, runs) {
            let exited = run.waitForExit(timeout: 60)
            let r = run.result(timedOut: !exited)
            XCTAssertEqual(r.status, 0, r.summary("mediapub under script: \(name)"))
            let screen = try String(contentsOf: typescript, encoding: .utf8)
            XCTAssertTrue(screen.contains("frame="), "\(name): \(screen.debugDescription)")
            // Once the length is known (the later item probed), every line drawn says it.
            let draws = screen.components(separatedBy: "\r\u{1B}[Kframe=").dropFirst().filter { $0.contains("outputs=") }
            let known = draws.map { $0.range(of: " [0-9]+% eta=00:00:0[0-9]\\.[0-9]{2} outputs=", options: .regularExpression) != nil }
            XCTAssertTrue(known.contains(true), "\(name): \(screen.debugDescription)")
            XCTAssertFalse(known.drop { !$0 }.contains(false), "\(name): \(screen.debugDescription)")
        }
    }

    func testARepeatingItemIsLoggedOncePerItemNotPerLoop() throws {
        let dir = try makeTempDir()
        try TestMedia.makeVideo(in: dir, name: "short.mp4", seconds: 0.5, size: "320x240", fps: 25, freq: 440, sampleRate: 44100)
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: "short.mp4", extra: "").replacingOccurrences(of: "    video: true\n", with: "    video: true\n    repeat: true\n"))
        let r = try CLI.run(["--preset", preset.path, "--no-realtime", "--duration", "4s", "--events", events.path], timeout: 60)
        XCTAssertEqual(r.status, 0, r.summary("a repeating item"))
        let loops = try EventLog.read(events).filter { $0["event"] as? String == "player.track" }.count
        XCTAssertGreaterThanOrEqual(loops, 6, "it went round several times")
        XCTAssertEqual(r.stderr.components(separatedBy: "player main: playing").count - 1, 1, r.stderr)
    }

    /// A logger's handler is called holding no lock of the logger's: one that logs again
    /// (a line about a line) is heard. Before: the handler ran under the logger's lock and
    /// the second line took it again, and the process died ("Recursive call to lock Mutex").
    func testALogHandlerMayLogAgain() {
        final class Held: @unchecked Sendable { var log: Logger? }
        let held = Held()
        let lines = Collector<String>()
        held.log = Logger(level: .info, write: { line in
            lines.add(line)
            if line.hasSuffix("first") { held.log?.info("second") }
        })
        held.log?.info("first")
        XCTAssertEqual(lines.all.count, 2, "\(lines.all)")
        XCTAssertTrue(lines.all.last?.hasSuffix("second") ?? false, "\(lines.all)")
    }
}

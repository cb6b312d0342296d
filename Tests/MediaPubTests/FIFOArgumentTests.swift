// A FIFO given as `--preset`, `playlist.file` or `--events` works when its other
// end is there (a shell's `<(…)`, a reader started first) and is refused with a
// one-line message when it is not: never a silent wait for ever.

import Foundation
import XCTest

final class FIFOArgumentTests: XCTestCase {
    private func fifo(_ dir: URL, _ name: String) -> String {
        let path = dir.appendingPathComponent(name).path
        XCTAssertEqual(mkfifo(path, 0o600), 0, "mkfifo")
        return path
    }

    /// `sh -c 'cat FILE > FIFO'`: the FIFO's writer.
    private func writer(_ file: URL, into fifo: String) throws {
        _ = try startTool("sh", ["-c", "cat \"$1\" > \"$2\"", "writer", file.path, fifo])
    }

    /// `validate` of a FIFO nothing writes to, started: it waits 5 s for a writer.
    /// Returned: its result once it has ended (30 s at most).
    private func startValidate(_ path: String) throws -> () -> ProcessResult {
        let run = try startMediaPub(["validate", path])
        return {
            let exited = run.waitForExit(timeout: 30)
            return run.result(timedOut: !exited)
        }
    }

    /// A preset FIFO and a playlist file FIFO, each read from its writer, and each refused
    /// when nothing writes to it: the two refusals wait 5 s each, at once (each its own
    /// validate, started first), then each is checked as its own test did.
    func testAPresetFIFOAndAPlaylistFileFIFOAreReadFromTheirWriterOrRefused() throws {
        let preset = try aPresetFIFOIsReadFromItsWriterOrRefused()
        let playlist = try aPlaylistFileFIFOIsReadFromItsWriterOrRefused()
        preset()
        playlist()
    }

    private func aPresetFIFOIsReadFromItsWriterOrRefused() throws -> () -> Void {
        let dir = try makeTempDir("presetfifo")
        let silent = fifo(dir, "silent.yaml")
        let refused = try startValidate(silent)
        let preset = try writeFile(dir, "p.yaml", E2EPreset.basic(name: "fromfifo", source: E2EPreset.testsrc))
        let written = fifo(dir, "written.yaml")
        try writer(preset, into: written)
        let ok = try CLI.run(["validate", written], timeout: 30)
        XCTAssertEqual(ok.status, 0, ok.summary("validate a FIFO with a writer"))
        XCTAssertTrue(ok.stdout.contains("name: fromfifo"), ok.stdout)

        return {
            let r = refused()
            XCTAssertFalse(r.timedOut, r.summary("validate a FIFO nothing writes to"))
            XCTAssertEqual(r.status, 2, r.summary("validate a FIFO nothing writes to"))
            XCTAssertEqual(r.stderr, "mediapub: \(silent):0: preset: cannot read: it is a FIFO and nothing wrote to it within 5 s (start its writer first)\n")
        }
    }

    private func aPlaylistFileFIFOIsReadFromItsWriterOrRefused() throws -> () -> Void {
        let dir = try makeTempDir("playlistfifo")
        let yaml = { (file: String) in
            "audio: {sample_rate: 44100, channels: 2}\nplayers:\n  - playlist: {file: \(file)}\noutputs: [null://]\n"
        }
        let silent = fifo(dir, "silent.m3u")
        let preset = try writeFile(dir, "silent.yaml", yaml(silent))
        let refused = try startValidate(preset.path)
        let list = try writeFile(dir, "list.m3u", "#EXTM3U\ntestsrc:?freq=440\n")
        let written = fifo(dir, "written.m3u")
        try writer(list, into: written)
        let ok = try CLI.run(["validate", try writeFile(dir, "ok.yaml", yaml(written)).path], timeout: 30)
        XCTAssertEqual(ok.status, 0, ok.summary("a playlist FIFO with a writer"))
        XCTAssertTrue(ok.stdout.contains("- \"testsrc:?freq=440\""), ok.stdout)

        return {
            let r = refused()
            XCTAssertFalse(r.timedOut, r.summary("a playlist FIFO nothing writes to"))
            XCTAssertEqual(r.status, 2, r.summary("a playlist FIFO nothing writes to"))
            XCTAssertTrue(r.stderr.contains("\(preset.path):3: players[0].playlist.file: cannot read \(silent): it is a FIFO and nothing wrote"),
                          r.stderr)
        }
    }

    func testAnEventsFIFOIsWrittenToItsReaderOrRefused() throws {
        let dir = try makeTempDir()
        let preset = try writeFile(dir, "p.yaml", E2EPreset.basic(source: E2EPreset.testsrc))
        let unread = fifo(dir, "unread.jsonl")
        let refused = try CLI.run(["--preset", preset.path, "--no-realtime", "--duration", "1s", "--events", unread], timeout: 30)
        XCTAssertFalse(refused.timedOut, refused.summary("--events to a FIFO nothing reads"))
        XCTAssertEqual(refused.status, 2, refused.summary("--events to a FIFO nothing reads"))
        XCTAssertEqual(refused.stderr, "mediapub: --events \(unread): a FIFO that nothing reads (start its reader first)\n")

        let read = fifo(dir, "read.jsonl")
        let copy = dir.appendingPathComponent("copy.jsonl")
        let reader = try startTool("sh", ["-c", "cat \"$1\" > \"$2\"", "reader", read, copy.path])
        let r = try CLI.run(["--preset", preset.path, "--no-realtime", "--duration", "1s", "--events", read], timeout: 30)
        XCTAssertEqual(r.status, 0, r.summary("--events to a FIFO with a reader"))
        XCTAssertTrue(reader.waitForExit(timeout: 10), "the reader saw the end")
        let names = try EventLog.read(copy).map { "\($0["event"] ?? "")" }
        XCTAssertEqual(names.last, "run.stopped", "\(names)")
    }
}

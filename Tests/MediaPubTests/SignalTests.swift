// SIGTERM / SIGINT / SIGHUP mid-run (docs/exit-codes.md): outputs get EOS,
// files are finalised and playable, exit 0.

import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class SignalTests: XCTestCase {

    private func recordUntilSignal(_ signal: Int32, ext: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let dir = try makeTempDir()
        let rec = dir.appendingPathComponent("rec.\(ext)")
        let preset = try writeFile(dir, "rec.yaml", E2EPreset.basic(source: E2EPreset.testsrc))

        // testsrc never ends: only the signal stops this run.
        let events = dir.appendingPathComponent("events.jsonl")
        let mp = try startMediaPub(["--preset", preset.path, "--output", "file://\(rec.path)", "--realtime", "--events", events.path])
        XCTAssertTrue(EventLog.waitFor(events, of: mp, EventLog.progressed(4)), "4 s played: \(mp.stderr)", file: file, line: line)
        XCTAssertTrue(mp.isRunning, "mediapub stopped before the signal:\n\(mp.stderr)", file: file, line: line)
        mp.terminate(signal)
        XCTAssertTrue(mp.waitForExit(timeout: 10), "mediapub did not exit within 10 s of signal \(signal)",
                      file: file, line: line)
        XCTAssertFalse(mp.exitedBySignal, "mediapub died of the signal instead of handling it:\n\(mp.stderr)",
                       file: file, line: line)
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr, file: file, line: line)

        let p = try assertH264AAC(rec.path, file: file, line: line)
        let duration = p.duration ?? 0
        XCTAssertTrue((2.5...6).contains(duration), "recorded \(duration) s until the signal at ~4 s: \(p.rawJSON)",
                      file: file, line: line)
        XCTAssertEqual(p.video?.width, 640, file: file, line: line)
        let errors = try MediaProbe.decodeErrors(rec.path)
        XCTAssertEqual(errors, "", "the finalised \(ext) decodes with no errors", file: file, line: line)
        let pcm = try MediaProbe.decodePCM(rec.path)
        XCTAssertEqual(MediaProbe.dominantFrequency(pcm, rate: 16000) ?? 0, 440, accuracy: 10, file: file, line: line)
    }

    func testSIGTERMFinalisesMP4() throws {
        try recordUntilSignal(SIGTERM, ext: "mp4")
    }

    func testSIGINTFinalisesMKV() throws {
        try recordUntilSignal(SIGINT, ext: "mkv")
    }

    /// SIGHUP (the terminal closed, a `kill -HUP`) ends the run as SIGTERM does: the MP4
    /// gets its index, the HLS playlist its #EXT-X-ENDLIST, and `run.stopped` says exit 0.
    func testSIGHUPFinalisesEveryFile() throws {
        let dir = try makeTempDir()
        let rec = dir.appendingPathComponent("rec.mp4")
        let playlist = dir.appendingPathComponent("hls/index.m3u8")
        let preset = try writeFile(dir, "rec.yaml", E2EPreset.basic(source: E2EPreset.testsrc,
                                                                   outputs: ["file://\(rec.path)", "hls://\(playlist.path)?segment=1s"]))
        let events = dir.appendingPathComponent("events.jsonl")
        let mp = try startMediaPub(["--preset", preset.path, "--realtime", "--events", events.path])
        XCTAssertTrue(EventLog.waitFor(events, of: mp, EventLog.progressed(3)), "3 s played: \(mp.stderr)")
        mp.terminate(SIGHUP)
        XCTAssertTrue(mp.waitForExit(timeout: 20), "mediapub did not exit within 20 s of SIGHUP")
        XCTAssertFalse(mp.exitedBySignal, "mediapub died of SIGHUP instead of handling it:\n\(mp.stderr)")
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr)
        XCTAssertTrue(mp.stderr.contains("signal SIGHUP: finishing outputs"), mp.stderr)

        let p = try assertH264AAC(rec.path)
        XCTAssertGreaterThan(p.duration ?? 0, 1.5, "the MP4 is finalised, with its duration: \(p.rawJSON)")
        XCTAssertEqual(try MediaProbe.decodeErrors(rec.path), "", "the MP4 decodes with no errors")
        let text = try String(contentsOf: playlist, encoding: .utf8)
        XCTAssertTrue(text.hasSuffix("#EXT-X-ENDLIST\n") || text.hasSuffix("#EXT-X-ENDLIST"), text)
        XCTAssertEqual(try MediaProbe.probe(playlist.path).video?.codecName, "h264", "the ended playlist plays")
        let stopped = try EventLog.read(events).last
        XCTAssertEqual(stopped?["event"] as? String, "run.stopped", "\(String(describing: stopped))")
        XCTAssertEqual(stopped?["exit_code"] as? Int, 0, "\(String(describing: stopped))")
    }

    /// Started with SIGHUP ignored (`nohup`), a run goes on when the terminal closes.
    func testSIGHUPUnderNohupIsIgnored() throws {
        let dir = try makeTempDir()
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc))
        let events = dir.appendingPathComponent("events.jsonl")
        let mp = try startTool("nohup", [try CLI.binary(), "--preset", preset.path, "--realtime", "--events", events.path],
                               env: CLI.environment())
        XCTAssertTrue(EventLog.waitFor(events, of: mp, EventLog.progressed(1)), "1 s played: \(mp.stderr)")
        mp.terminate(SIGHUP)
        XCTAssertTrue(EventLog.waitFor(events, of: mp, EventLog.progressed(3)), "still playing after SIGHUP: \(mp.stderr)")
        XCTAssertTrue(mp.isRunning, "SIGHUP ended a run started with nohup: \(mp.stderr)")
        XCTAssertFalse(mp.stderr.contains("SIGHUP"), mp.stderr)
        mp.terminate()
        XCTAssertTrue(mp.waitForExit(timeout: 20))
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr)
    }
}

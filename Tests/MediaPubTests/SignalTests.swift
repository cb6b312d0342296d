// SIGTERM / SIGINT mid-run (SPEC §2, §8): outputs get EOS, files are
// finalised and playable, exit 0.

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
}

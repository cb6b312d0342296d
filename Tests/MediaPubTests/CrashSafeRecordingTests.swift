// SPEC §5: recordings stay playable if the process is killed (kill -9, power
// loss), at most the last 2 s lost. Checked with ffprobe and ffmpeg.

import Foundation
import XCTest

final class CrashSafeRecordingTests: XCTestCase {

    func testEveryRecordingPlaysAfterKillNine() throws {
        let dir = try makeTempDir()
        let events = dir.appendingPathComponent("events.jsonl")
        let files = ["mp4", "mkv", "flv", "ts"].map { dir.appendingPathComponent("rec.\($0)") }
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: files.map(\.path)))
        let mp = try startMediaPub(["--preset", preset.path, "--realtime", "--events", events.path,
                                    "--control", dir.appendingPathComponent("c.sock").path])
        func position() -> Int {
            ((try? EventLog.read(events)) ?? []).filter { $0["event"] as? String == "player.progress" }
                .compactMap { $0["position_ms"] as? Int }.max() ?? 0
        }
        XCTAssertTrue(Ports.waitUntil(timeout: 60) { position() >= 20000 || !mp.isRunning }, mp.stderr)
        let reached = Double(position()) / 1000
        mp.kill9()
        for file in files {
            let name = file.lastPathComponent
            let decode = try Proc.run(try Tools.path("ffmpeg"), ["-nostdin", "-v", "error", "-i", file.path, "-f", "null", "-"], timeout: 60)
            XCTAssertEqual(decode.status, 0, decode.summary("\(name) after kill -9"))
            let probe = try MediaProbe.probe(file.path)
            XCTAssertEqual(probe.video?.codecName, "h264", "\(name): \(probe.rawJSON)")
            XCTAssertEqual(probe.audio?.codecName, "aac", "\(name): \(probe.rawJSON)")
            // At least 18 s of both streams after 20 s: all but the last 2 s.
            for stream in ["v:0", "a:0"] {
                let last = try MediaProbe.packetPTS(file.path, stream: stream).max() ?? 0
                XCTAssertGreaterThanOrEqual(last, reached - 2, "\(name) \(stream) holds all but the last 2 s (\(last) of \(reached) s)")
            }
        }
    }
}

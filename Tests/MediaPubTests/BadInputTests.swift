// What bad input gets: a missing playlist item is skipped with a
// warning naming it and the next one plays; truncated media plays what decodes,
// then moves on. Checked on the recording with ffprobe and PCM analysis.

import Foundation
import XCTest

final class BadInputTests: XCTestCase {

    func testMissingAndTruncatedItemsAreSkippedAndTheRestPlays() throws {
        let dir = try makeTempDir()
        // 6 s of 440 Hz as MPEG-TS, cut after about half its bytes.
        let whole = try TestMedia.makeVideo(in: dir, name: "whole.mp4", seconds: 6, size: "320x240", fps: 25, freq: 440)
        let ts = dir.appendingPathComponent("whole.ts")
        _ = try Proc.check(try Tools.path("ffmpeg"), ["-v", "error", "-y", "-i", whole.path, "-c", "copy", "-f", "mpegts", ts.path])
        let bytes = try Data(contentsOf: ts)
        try bytes.prefix(bytes.count / 2).write(to: dir.appendingPathComponent("cut.ts"))
        try TestMedia.makeAudio(in: dir, name: "b.mp3", seconds: 2, freq: 1000, ext: "mp3")
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.video(players: ["""
              - id: main
                video: true
                playlist:
                  items: [cut.ts, gone.mp3, b.mp3]
                  mode: once
            """], output: out)
        let r = try runPreset(yaml, in: dir)
        XCTAssertEqual(r.status, 0, r.summary("playlist with bad items"))
        XCTAssertTrue(r.stderr.contains("gone.mp3") && r.stderr.contains("no such file"), "the missing item is named: \(r.stderr)")

        let p = try assertH264AAC(out.path)
        let duration = try XCTUnwrap(p.duration)
        XCTAssertGreaterThan(duration, 3.5, "what decodes of the cut file, then b.mp3")
        XCTAssertLessThan(duration, 6.5)
        let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
        XCTAssertEqual(MediaProbe.dominantFrequency(MediaProbe.slice(pcm, rate: 16000, from: 0.5, to: 1.5), rate: 16000) ?? 0, 440, accuracy: 10,
                       "the cut file plays first")
        XCTAssertEqual(MediaProbe.dominantFrequency(MediaProbe.slice(pcm, rate: 16000, from: duration - 1.5, to: duration - 0.3), rate: 16000) ?? 0,
                       1000, accuracy: 15, "then the last item")
        try assertDecodesCleanly(out.path)
    }
}

final class SourceRetryTests: XCTestCase {
    /// An HTTP source that cannot be reached is retried; once its server
    /// is up it plays, and the stream carried the standby meanwhile, unbroken.
    func testUnreachableHTTPSourceIsRetriedUntilItsServerComesUp() throws {
        let dir = try makeTempDir()
        let www = dir.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        try TestMedia.makeAudio(in: www, name: "tone.mp3", seconds: 20, freq: 1000, ext: "mp3")
        let port = try Ports.free()
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.audioOnly(players: [PlayerPreset.player("main", source: "http://127.0.0.1:\(port)/tone.mp3")], output: out)
        let preset = try writeFile(dir, "t.yaml", yaml)
        let socket = dir.appendingPathComponent("c.sock").path
        let events = dir.appendingPathComponent("events.jsonl")
        let run = try startMediaPub(["--preset", preset.path, "--realtime", "--duration", "8s", "--control", socket,
                                     "--events", events.path])
        // The first attempt failed (said as a warning: the run goes on), a retry is due, and the
        // output has run 1.3 s on the standby.
        func outputMs() -> Int {
            let r = try? CLI.run(["ctl", "--socket", socket, "status"], timeout: 10)
            let reply = r.flatMap { try? JSONSerialization.jsonObject(with: $0.stdoutData) as? [String: Any] }
            return (reply?["status"] as? [String: Any])?["output_time_ms"] as? Int ?? 0
        }
        func warned() -> Bool { ((try? EventLog.read(events)) ?? []).contains { $0["event"] as? String == "warning" } }
        XCTAssertTrue(Ports.waitUntil(timeout: 20) { (warned() && outputMs() >= 1300) || !run.isRunning }, run.stderr)
        // A real HTTP server (python3's) comes up on the port the source names.
        _ = try startTool(try Tools.path("python3"), ["-m", "http.server", "--bind", "127.0.0.1", "\(port)", "--directory", www.path])
        XCTAssertTrue(run.waitForExit(timeout: 30))
        let r = run.result()
        XCTAssertEqual(r.status, 0, r.summary("mediapub"))
        XCTAssertTrue(r.stderr.contains("retrying"), r.stderr)
        let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
        XCTAssertEqual(Double(pcm.count) / 16000, 8, accuracy: 0.1, "the timeline ran on while the source was away")
        XCTAssertLessThan(MediaProbe.rmsDB(MediaProbe.slice(pcm, rate: 16000, from: 0.2, to: 1.2)), -60, "standby (silence) first")
        XCTAssertEqual(MediaProbe.dominantFrequency(MediaProbe.slice(pcm, rate: 16000, from: 6, to: 7.5), rate: 16000) ?? 0, 1000,
                       accuracy: 15, "the source plays once reachable")
    }
}

final class PlaylistEndTests: XCTestCase {
    /// A `once` list whose last item is missing ends after what played (it does
    /// not run on the slate for ever): exit 0, the length of the good item.
    func testMissingLastItemEndsTheList() throws {
        let dir = try makeTempDir()
        try TestMedia.makeAudio(in: dir, name: "a.mp3", seconds: 2, freq: 440, ext: "mp3")
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.audioOnly(players: ["""
              - id: main
                playlist:
                  items: [a.mp3, gone.mp3]
                  mode: once
            """], output: out)
        let r = try runPreset(yaml, in: dir, timeout: 60)
        XCTAssertEqual(r.status, 0, r.summary("playlist ending in a missing item"))
        XCTAssertTrue(r.stderr.contains("gone.mp3"), r.stderr)
        let p = try MediaProbe.probe(out.path)
        XCTAssertEqual(p.duration ?? 0, 2, accuracy: 0.2, "just the item that played")
    }
}

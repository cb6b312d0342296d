// Recordings (README, Using it; docs/presets.md, Outputs): a file source published as fast as possible to
// file outputs, checked with ffprobe/ffmpeg and PCM analysis.

import Foundation
import XCTest
@testable import MediaPub

final class FileOutputTests: XCTestCase {

    /// Source deliberately differs from the output format (320x240@30, 48 kHz)
    /// so that scaling, frame-rate and sample-rate conversion are exercised.
    @discardableResult
    private func makeSource(in dir: URL) throws -> URL {
        try TestMedia.makeVideo(in: dir, name: "src.mp4", seconds: 10, size: "320x240", fps: 30, freq: 440, sampleRate: 48000)
    }

    func testTenSecondSourceRecordsToMP4() throws {
        let dir = try makeTempDir()
        try makeSource(in: dir)
        let out = dir.appendingPathComponent("out.mp4")
        // The source path is relative to the preset's folder; run from elsewhere.
        let preset = try writeFile(dir, "t1.yaml", E2EPreset.basic(source: "src.mp4", outputs: ["file://\(out.path)"]))
        let elsewhere = try makeTempDir("cwd")

        let r = try CLI.run(["--preset", preset.path, "--no-realtime"], cwd: elsewhere, timeout: 120)
        XCTAssertEqual(r.status, 0, r.summary("mediapub --no-realtime"))
        XCTAssertFalse(r.signaled || r.timedOut, r.summary("mediapub"))

        let p = try assertH264AAC(out.path)
        XCTAssertEqual(p.duration ?? 0, 10, accuracy: 0.2, "recording length: \(p.rawJSON)")
        XCTAssertEqual(p.video?.width, 640)
        XCTAssertEqual(p.video?.height, 360)
        XCTAssertEqual(p.video?.avgFrameRate ?? 0, 25, accuracy: 0.5, "frame rate: \(p.rawJSON)")
        XCTAssertEqual(p.audio?.sampleRate, 44100)
        XCTAssertEqual(p.audio?.channels, 2)

        // One frame every 40 ms for 10 s, never stepping back or skipping.
        let pts = try MediaProbe.videoPacketPTS(out.path).sorted()
        XCTAssertEqual(Double(pts.count), 250, accuracy: 6, "video frame count")
        let gaps = zip(pts.dropFirst(), pts).map { $0 - $1 }
        XCTAssertLessThanOrEqual(gaps.max() ?? 1, 0.085, "no frame gap longer than two frames")
        XCTAssertGreaterThan(gaps.min() ?? 0, 0, "no duplicate timestamps")

        try assertDecodesCleanly(out.path)

        let vol = try MediaProbe.volumeDetect(out.path)
        XCTAssertGreaterThan(vol.mean, -40, "audio is not silent")
        let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
        XCTAssertGreaterThan(MediaProbe.rmsDB(pcm), -40)
        XCTAssertEqual(MediaProbe.dominantFrequency(pcm, rate: 16000) ?? 0, 440, accuracy: 10, "the source tone")
        // Sound through the whole recording, not only in part of it.
        let second = 16000
        for s in stride(from: 1, to: 9, by: 2) where pcm.count >= (s + 1) * second {
            XCTAssertGreaterThan(MediaProbe.rmsDB(Array(pcm[(s * second)..<((s + 1) * second)])), -40, "tone at \(s) s")
        }
    }

    /// High frame rates against few audio samples a frame: the AAC encoder puts out
    /// nothing before its second 1024 samples, 31 frames at 120 fps and 8 kHz, while the
    /// encoder takes one raw frame at a time. Before its appsinks stopped waiting for
    /// a preroll, a 60 fps run at 48 kHz hung on its second frame.
    func testHighFrameRatesWithFewSamplesPerFrameRecord() throws {
        let dir = try makeTempDir()
        for (fps, rate) in [(60, 48000), (120, 8000)] {
            let out = dir.appendingPathComponent("out-\(fps)-\(rate).mp4")
            var yaml = E2EPreset.basic(source: "testsrc:?pattern=ball&freq=440", outputs: [out.path])
            yaml = yaml.replacingOccurrences(of: "fps: 25", with: "fps: \(fps)")
                .replacingOccurrences(of: "sample_rate: 44100", with: "sample_rate: \(rate)")
            let preset = try writeFile(dir, "t-\(fps).yaml", yaml)
            let r = try CLI.run(["--preset", preset.path, "--no-realtime", "--duration", "2s"], timeout: 60)
            XCTAssertEqual(r.status, 0, r.summary("\(fps) fps, \(rate) Hz"))
            XCTAssertFalse(r.signaled || r.timedOut, r.summary("\(fps) fps, \(rate) Hz"))
            let p = try assertH264AAC(out.path)
            XCTAssertEqual(p.audio?.sampleRate, rate, p.rawJSON)
            XCTAssertEqual(p.video?.avgFrameRate ?? 0, Double(fps), accuracy: 0.5, p.rawJSON)
            XCTAssertEqual(Double(try MediaProbe.videoPacketPTS(out.path).count), Double(2 * fps), accuracy: 2, "\(fps) fps for 2 s")
        }
    }

    func testOneRunRecordsMKVFLVAndTSThatDecodeCleanly() throws {
        let dir = try makeTempDir()
        try makeSource(in: dir)
        let preset = try writeFile(dir, "t1.yaml", E2EPreset.basic(source: "src.mp4", outputs: ["null://"]))
        let mkv = dir.appendingPathComponent("out.mkv")
        let flv = dir.appendingPathComponent("out.flv")
        let ts = dir.appendingPathComponent("out.ts")

        let r = try CLI.run(["--preset", preset.path, "--no-realtime",
                             "--output", "file://\(mkv.path)",
                             "--output", flv.path,               // a plain path
                             "--output", "file://\(ts.path)"], timeout: 180)
        XCTAssertEqual(r.status, 0, r.summary("mediapub with three file outputs"))

        for file in [mkv, flv, ts] {
            let name = file.lastPathComponent
            guard FileManager.default.fileExists(atPath: file.path) else {
                XCTFail("\(name) was not written"); continue
            }
            let p = try assertH264AAC(file.path)
            XCTAssertEqual(p.video?.width, 640, name)
            XCTAssertEqual(p.video?.height, 360, name)
            XCTAssertEqual(p.audio?.sampleRate, 44100, name)
            XCTAssertEqual(p.duration ?? 0, 10, accuracy: 0.5, "\(name): \(p.rawJSON)")
            let errors = try MediaProbe.decodeErrors(file.path)
            XCTAssertEqual(errors, "", "\(name) decodes with no errors")
            let pcm = try MediaProbe.decodePCM(file.path)
            XCTAssertEqual(MediaProbe.dominantFrequency(pcm, rate: 16000) ?? 0, 440, accuracy: 10, name)
        }
        let formats = try [mkv, flv, ts].map { try MediaProbe.probe($0.path).formatName }
        XCTAssertTrue(formats[0].contains("matroska"), formats[0])
        XCTAssertEqual(formats[1], "flv")
        XCTAssertEqual(formats[2], "mpegts")
    }

    func testOutputURLsAndPathsNameTheirTarget() throws {
        let targets: [(String, OutputTarget)] = [
            ("/tmp/a.mp4", .file(path: "/tmp/a.mp4", container: "mp4")),
            ("rec/b.MKV", .file(path: "rec/b.MKV", container: "mkv")),
            ("Re:Zero.flv", .file(path: "Re:Zero.flv", container: "flv")),   // a colon in a file name
            ("memory:take1.mp4", .file(path: "memory:take1.mp4", container: "mp4")),
            ("file:///tmp/a%20b.ts", .file(path: "/tmp/a b.ts", container: "ts")),
            ("file://localhost/tmp/c.flv", .file(path: "/tmp/c.flv", container: "flv")),
            ("RTMP://h/app/key", .rtmp(NetworkEndpoint(url: "RTMP://h/app/key", host: "h", port: 1935))),
            ("rtmps://h/app/key", .rtmp(NetworkEndpoint(url: "rtmps://h/app/key", host: "h", port: 443))),
            ("srt://h:9000?mode=caller", .srt(NetworkEndpoint(url: "srt://h:9000?mode=caller", host: "h", port: 9000, parameters: ["mode": "caller"]))),
            ("null://", .null),
            ("null:", .null),
        ]
        for (url, target) in targets { XCTAssertEqual(try OutputURL(url).target, target, url) }
        let refused: [(String, String)] = [
            ("out.avi", "output out.avi: unsupported container .avi (use .mp4, .mkv, .flv, .ts, .m4a, .mp3, .aac, .ogg or .opus)"),
            ("rtmp:h/app/key", "output rtmp:… is not a URL like rtmp://host/…"),   // the key not shown
            ("http://h/a.mp4", "output http://h/a.mp4: not a supported output (rtmp://, rtmps://, srt://, hls://, icecast://, file://, null:// or a file path)"),
            ("file://rel.mp4", "output file://rel.mp4: needs an absolute path: file:///path/name.mp4"),
        ]
        for (url, message) in refused {
            XCTAssertThrowsError(try OutputURL(url), url) { XCTAssertEqual("\($0)", message) }
        }
    }

    func testARecordingThatCannotBeOpenedNamesThePathAndTheReason() throws {
        let dir = try makeTempDir()
        // Missing folders are made; a regular file where a folder should be cannot be.
        try Data("not a folder".utf8).write(to: dir.appendingPathComponent("plain-file"))
        let out = dir.appendingPathComponent("plain-file/rec.mp4")
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: ["file://\(out.path)"]))
        let started = Date()
        let r = try CLI.run(["--preset", preset.path, "--no-realtime", "--duration", "2s", "--events", events.path], timeout: 60)
        XCTAssertEqual(r.status, 1, r.summary("unwritable recording"))
        XCTAssertLessThan(Date().timeIntervalSince(started), 3, "nothing to drain: an encoder that never started is not waited for")
        let reason = "Could not open file \"\(out.path)\" for writing: Not a directory"
        XCTAssertTrue(r.stderr.contains("error: output file://\(out.path): \(reason)"), r.stderr)
        XCTAssertTrue(r.stderr.contains("warn: output file://\(out.path): failed: \(reason)"), r.stderr)
        XCTAssertEqual(r.stderr.components(separatedBy: "output file://").count - 1,
                       r.stderr.split(separator: "\n").filter { $0.contains("output file://") }.count, "one prefix a line: \(r.stderr)")
        let records = try String(contentsOf: events, encoding: .utf8).split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let failed = try XCTUnwrap(records.first { $0["event"] as? String == "output.state" && $0["state"] as? String == "failed" })
        XCTAssertEqual(failed["error"] as? String, reason)
        let stopped = try XCTUnwrap(records.last { $0["event"] as? String == "run.stopped" })
        XCTAssertEqual(stopped["reason"] as? String, "output file://\(out.path): \(reason)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
    }
}

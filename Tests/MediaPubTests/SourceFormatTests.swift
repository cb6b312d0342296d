// Sources (docs/presets.md, How values are written: a path or URL): every listed format decodes as a player source.
// Each source carries a distinct tone (and, for video, a distinct colour); the
// recording is checked with ffprobe, ffmpeg signalstats and an FFT of the
// decoded PCM. HLS is made by ffmpeg's hls muxer and served by a real nginx.

import Foundation
import XCTest

/// Shared by the source tests: colours as BT.601 limited-range averages.
enum Colour {
    case red, blue, lime
    var ffmpegName: String {
        switch self { case .red: return "red"; case .blue: return "blue"; case .lime: return "lime" }
    }
    func matches(_ f: FrameStat) -> Bool {
        switch self {
        case .red: return f.vavg > 200 && f.uavg < 120            // Y 81, U 90, V 240
        case .blue: return f.uavg > 200 && f.vavg < 130           // Y 41, U 240, V 110
        case .lime: return f.uavg < 80 && f.vavg < 80 && f.yavg > 120 // Y 145, U 54, V 34
        }
    }
}

extension XCTestCase {
    /// Every frame of `path` between `from` and `to` (s) shows `colour`.
    func assertFrames(_ path: String, show colour: Colour, from: Double, to: Double,
                      file: StaticString = #filePath, line: UInt = #line) throws {
        let stats = try MediaProbe.frameStats(path)
        let start = stats.first?.pts ?? 0
        let window = stats.filter { $0.pts - start >= from && $0.pts - start <= to }
        XCTAssertGreaterThan(window.count, Int((to - from) * 20), "frames between \(from) and \(to) s (\(stats.count) in all)",
                             file: file, line: line)
        let wrong = window.filter { !colour.matches($0) }
        XCTAssertTrue(wrong.isEmpty, "\(wrong.count) of \(window.count) frames are not \(colour): first \(wrong.prefix(3))",
                      file: file, line: line)
    }
}

final class SourceFormatTests: XCTestCase {

    // MARK: audio formats

    private func checkAudioSource(ext: String, freq: Double, file: StaticString = #filePath, line: UInt = #line) throws {
        let dir = try makeTempDir()
        let src = try TestMedia.makeAudio(in: dir, name: "src.\(ext)", seconds: 2, freq: freq, ext: ext)
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.audioOnly(players: [PlayerPreset.player("main", source: src.lastPathComponent)], output: out)
        let r = try runPreset(yaml, in: dir)
        XCTAssertEqual(r.status, 0, r.summary("mediapub with a .\(ext) source"), file: file, line: line)
        guard FileManager.default.fileExists(atPath: out.path) else {
            return XCTFail("no recording from the .\(ext) source", file: file, line: line)
        }
        let p = try MediaProbe.probe(out.path)
        XCTAssertEqual(p.duration ?? 0, 2, accuracy: 0.3, ".\(ext): \(p.rawJSON)", file: file, line: line)
        let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
        XCTAssertEqual(MediaProbe.dominantFrequency(pcm, rate: 16000) ?? 0, freq, accuracy: 10, ".\(ext) tone", file: file, line: line)
        XCTAssertGreaterThan(MediaProbe.rmsDB(MediaProbe.slice(pcm, rate: 16000, from: 0.2, to: 1.8)), -30,
                             ".\(ext) sound all through", file: file, line: line)
    }

    func testMP3Source() throws { try checkAudioSource(ext: "mp3", freq: 523) }
    func testWAVSource() throws { try checkAudioSource(ext: "wav", freq: 587) }
    func testAACADTSSource() throws { try checkAudioSource(ext: "aac", freq: 659) }
    func testFLACSource() throws { try checkAudioSource(ext: "flac", freq: 698) }

    // MARK: video formats

    private func checkVideoSource(_ source: String, in dir: URL, colour: Colour, freq: Double, seconds: Double,
                                  file: StaticString = #filePath, line: UInt = #line) throws {
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.video(players: [PlayerPreset.player("main", source: source, ["video: true"])], output: out)
        let r = try runPreset(yaml, in: dir)
        XCTAssertEqual(r.status, 0, r.summary("mediapub with source \(source)"), file: file, line: line)
        guard FileManager.default.fileExists(atPath: out.path) else {
            return XCTFail("no recording from \(source)", file: file, line: line)
        }
        let p = try assertH264AAC(out.path, file: file, line: line)
        XCTAssertEqual(p.duration ?? 0, seconds, accuracy: 0.3, "\(source): \(p.rawJSON)", file: file, line: line)
        try assertFrames(out.path, show: colour, from: 0.2, to: seconds - 0.2, file: file, line: line)
        let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
        XCTAssertEqual(MediaProbe.dominantFrequency(pcm, rate: 16000) ?? 0, freq, accuracy: 10, "\(source) tone", file: file, line: line)
    }

    func testMP4H264AACSource() throws {
        let dir = try makeTempDir()
        try TestMedia.makeColorVideo(in: dir, name: "src.mp4", seconds: 2, color: "red", freq: 440)
        try checkVideoSource("src.mp4", in: dir, colour: .red, freq: 440, seconds: 2)
    }

    /// A 4:4:4 10-bit source (High 4:4:4 Predictive) is published as 8-bit 4:2:0:
    /// checkVideoSource's assertH264AAC asks ffprobe for yuv420p and a common profile.
    func testHighBitDepth444SourceIsPublishedAs8Bit420() throws {
        let dir = try makeTempDir()
        try TestMedia.makeColorVideo(in: dir, name: "src.mp4", seconds: 2, color: "lime", freq: 494, pixelFormat: "yuv444p10le")
        XCTAssertEqual(try MediaProbe.probe(dir.appendingPathComponent("src.mp4").path).video?.pixFmt, "yuv444p10le", "the source")
        try checkVideoSource("src.mp4", in: dir, colour: .lime, freq: 494, seconds: 2)
    }

    func testFLVSource() throws {
        let dir = try makeTempDir()
        try TestMedia.makeColorVideo(in: dir, name: "src.flv", seconds: 2, color: "blue", freq: 784)
        try checkVideoSource("src.flv", in: dir, colour: .blue, freq: 784, seconds: 2)
    }

    func testHLSVODSourceServedByNginx() throws {
        let dir = try makeTempDir()
        let www = dir.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        try TestMedia.makeHLS(in: www, seconds: 3, color: "lime", freq: 880)
        let server = try startHTTPServer(root: www)
        try checkVideoSource(server.url("index.m3u8"), in: dir, colour: .lime, freq: 880, seconds: 3)
        XCTAssertTrue(server.accessLog.contains("GET /index.m3u8"), "the playlist came from nginx:\n\(server.accessLog)")
        XCTAssertTrue(server.accessLog.contains("GET /seg002.ts"), "every segment came from nginx:\n\(server.accessLog)")
    }

    // MARK: stills

    private func checkStill(_ name: String, in dir: URL, colour: Colour, file: StaticString = #filePath, line: UInt = #line) throws {
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.video(players: [PlayerPreset.player("main", source: name, ["video: true"])], output: out)
        // A still never ends: bound the run.
        let r = try runPreset(yaml, in: dir, args: ["--no-realtime", "--duration", "2s"])
        XCTAssertEqual(r.status, 0, r.summary("mediapub with still \(name)"), file: file, line: line)
        guard FileManager.default.fileExists(atPath: out.path) else {
            return XCTFail("no recording from \(name)", file: file, line: line)
        }
        let p = try MediaProbe.probe(out.path)
        XCTAssertEqual(p.video?.codecName, "h264", p.rawJSON, file: file, line: line)
        XCTAssertEqual(p.video?.width, 320, file: file, line: line)
        XCTAssertEqual(p.video?.height, 180, file: file, line: line)
        XCTAssertEqual(p.duration ?? 0, 2, accuracy: 0.2, p.rawJSON, file: file, line: line)
        try assertFrames(out.path, show: colour, from: 0.2, to: 1.8, file: file, line: line)
    }

    func testPNGStillAsVideo() throws {
        let dir = try makeTempDir()
        try TestMedia.makePNG(in: dir, name: "still.png", color: "red", size: "640x360")
        try checkStill("still.png", in: dir, colour: .red)
    }

    func testJPEGStillAsVideo() throws {
        let dir = try makeTempDir()
        try TestMedia.makeJPEG(in: dir, name: "still.jpg", color: "blue", size: "640x360")
        try checkStill("still.jpg", in: dir, colour: .blue)
    }
}

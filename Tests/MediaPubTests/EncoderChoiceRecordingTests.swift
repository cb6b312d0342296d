// Encoder choices (docs/presets.md, video): `tune: quality` recordings carry B-frames and play
// as they should in MP4, FLV and MPEG-TS (checked with ffprobe and ffmpeg), and a
// hardware encoder that is not on this machine stops the run with one line that
// names its element and its package or the device it lacks; video.profile is the
// profile ffprobe reads, with x264 and openh264.

import Foundation
import XCTest
@testable import MediaPub

final class EncoderChoiceRecordingTests: XCTestCase {

    /// Each video packet's decoding time and picture type, in file order.
    private func packets(_ path: String) throws -> (dts: [Double], types: [String]) {
        let p = try Proc.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=dts_time",
                                           "-of", "csv=p=0", path])
        let f = try Proc.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_frames", "-show_entries",
                                           "frame=pict_type", "-of", "csv=p=0", path], timeout: 120)
        let numbers = p.stdout.split(whereSeparator: \.isNewline).compactMap { Double($0.trimmingCharacters(in: CharacterSet(charactersIn: " ,"))) }
        let types = f.stdout.split(whereSeparator: \.isNewline).compactMap { $0.first.map(String.init) }
        return (numbers, types)
    }

    /// A stream's start time (an MPEG-TS lists its streams twice, under its program too).
    private func startTime(_ path: String, _ stream: String) throws -> Double {
        let r = try Proc.check("ffprobe", ["-v", "error", "-select_streams", stream, "-show_entries", "stream=start_time",
                                           "-of", "csv=p=0", path])
        return try XCTUnwrap(r.stdout.split(whereSeparator: \.isNewline).lazy
            .compactMap { Double($0.trimmingCharacters(in: CharacterSet(charactersIn: " ,"))) }.first, r.stdout)
    }

    func testQualityRecordingsHaveBFramesAndDecodeCleanlyInMP4FLVAndTS() throws {
        let dir = try makeTempDir()
        try TestMedia.makeVideo(in: dir, name: "src.mp4", seconds: 10, size: "320x240", fps: 30, freq: 440, sampleRate: 48000)
        let files = ["out.mp4", "out.flv", "out.ts"].map { dir.appendingPathComponent($0) }
        let preset = try writeFile(dir, "q.yaml", E2EPreset.basic(source: "src.mp4", outputs: files.map { "file://\($0.path)" }))
        let r = try CLI.run(["--preset", preset.path, "--no-realtime", "--set", "video.tune=quality"], timeout: 180)
        XCTAssertEqual(r.status, 0, r.summary("mediapub with tune: quality"))
        XCTAssertTrue(r.stderr.contains("video encoder: x264enc, tune quality, profile high, level "), r.stderr)
        XCTAssertTrue(r.stderr.contains(", bframes 2\n"), r.stderr)

        var offsets: [String: Double] = [:]
        for file in files {
            let name = file.lastPathComponent
            let p = try assertH264AAC(file.path)
            XCTAssertEqual(p.duration ?? 0, 10, accuracy: 0.3, "\(name): \(p.rawJSON)")
            XCTAssertEqual(try MediaProbe.decodeErrors(file.path), "", "\(name) decodes with no errors")
            let (dts, types) = try packets(file.path)
            // 25 fps for 10 s, less the 4 pictures not encoded before the first keyframe.
            XCTAssertEqual(Double(dts.count), 246, accuracy: 6, "\(name): video packets")
            XCTAssertGreaterThan(types.filter { $0 == "B" }.count, 20, "\(name) has B-frames: \(Dictionary(grouping: types, by: { $0 }).mapValues(\.count))")
            XCTAssertEqual(types.first, "I", name)
            let steps = zip(dts.dropFirst(), dts).map { $0 - $1 }
            XCTAssertGreaterThan(steps.min() ?? 0, 0, "\(name): decoding times only go forward")
            XCTAssertGreaterThanOrEqual(dts.first ?? -1, 0, name)
            let pts = try MediaProbe.videoPacketPTS(file.path).sorted()
            let gaps = zip(pts.dropFirst(), pts).map { $0 - $1 }
            XCTAssertEqual(gaps.min() ?? 0, 0.04, accuracy: 0.002, "\(name): a picture every 40 ms")
            XCTAssertEqual(gaps.max() ?? 0, 0.04, accuracy: 0.002, "\(name): a picture every 40 ms")
            let pcm = try MediaProbe.decodePCM(file.path)
            XCTAssertEqual(MediaProbe.dominantFrequency(pcm, rate: 16000) ?? 0, 440, accuracy: 10, name)
            offsets[name] = try startTime(file.path, "v:0") - startTime(file.path, "a:0")
        }
        // The first picture is as far after the first sound in each container (MP4 starts each
        // track on its own): the reorder delay, snapped back to a sound frame, plus the AAC priming.
        print("first picture after the first sound: \(offsets)")
        let ts = try XCTUnwrap(offsets["out.ts"])
        XCTAssertEqual(ts, 0.1, accuracy: 0.06, "reorder delay (2 frames) and priming")
        for (name, offset) in offsets { XCTAssertEqual(offset, ts, accuracy: 0.002, "\(name) as the TS: \(offsets)") }
    }

    /// video.profile reaches the stream, with x264 and with openh264 (as ffprobe reads it).
    func testTheProfileIsTheOneAskedFor() throws {
        let dir = try makeTempDir()
        for (encoder, profile, shown) in [("x264", "main", "Main"), ("x264", "baseline", "Constrained Baseline"),
                                          ("openh264", "main", "Main"), ("openh264", "high", "High")] {
            let out = dir.appendingPathComponent("\(encoder)-\(profile).mp4")
            let preset = try writeFile(dir, "p.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: ["file://\(out.path)"]))
            let r = try CLI.run(["--preset", preset.path, "--no-realtime", "--duration", "2s",
                                 "--set", "video.encoder=\(encoder)", "--set", "video.profile=\(profile)"], timeout: 60)
            XCTAssertEqual(r.status, 0, r.summary("mediapub \(encoder) \(profile)"))
            let probe = try Proc.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=profile",
                                                   "-of", "csv=p=0", out.path])
            XCTAssertEqual(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines), shown, "\(encoder) \(profile)")
            XCTAssertEqual(try MediaProbe.decodeErrors(out.path), "", "\(encoder) \(profile) decodes")
        }
    }

    /// The log's profile and level are the stream's (as ffprobe reads them), not the ones
    /// asked for: `encoder_preset: ultrafast` makes Constrained Baseline though the
    /// profile asked for is high.
    func testTheLoggedProfileAndLevelAreTheStreams() throws {
        let dir = try makeTempDir()
        for (name, settings) in [("ultrafast", ["video.encoder_preset=ultrafast"]), ("quality", ["video.tune=quality"])] {
            let out = dir.appendingPathComponent("\(name).mp4")
            let preset = try writeFile(dir, "p.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: ["file://\(out.path)"]))
            let r = try CLI.run(["--preset", preset.path, "--no-realtime", "--duration", "2s"]
                                + settings.flatMap { ["--set", $0] }, timeout: 60)
            XCTAssertEqual(r.status, 0, r.summary("mediapub \(name)"))
            let probe = try Proc.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=profile,level",
                                                   "-of", "default=nw=1", out.path]).stdout
            let fields = Dictionary(probe.split(whereSeparator: \.isNewline).compactMap { line -> (String, String)? in
                let kv = line.split(separator: "=", maxSplits: 1).map(String.init)
                return kv.count == 2 ? (kv[0], kv[1]) : nil
            }, uniquingKeysWith: { a, _ in a })
            // ffprobe's "Constrained Baseline" and 30 are GStreamer's constrained-baseline and 3.
            let profile = try XCTUnwrap(fields["profile"], probe).lowercased().replacingOccurrences(of: " ", with: "-")
            let level = try XCTUnwrap(fields["level"].flatMap { Int($0) }, probe)
            let levelText = level % 10 == 0 ? "\(level / 10)" : "\(level / 10).\(level % 10)"
            let line = r.stderr.split(separator: "\n").first { $0.contains("video encoder:") } ?? ""
            XCTAssertTrue(line.contains(", profile \(profile), level \(levelText), "), "\(name): \(line) vs ffprobe \(probe)")
            if name == "ultrafast" { XCTAssertEqual(profile, "constrained-baseline", "the case that was logged wrong") }
        }
    }

    /// The first hardware encoder kind that cannot run here (none has its hardware in CI).
    private func absentHardwareKind() -> VideoEncoderKind? {
        [VideoEncoderKind.nvenc, .vaapi, .v4l2].first { kind in
            H264EncoderElement.candidates(for: kind).allSatisfy { H264EncoderChoice.probe($0) != .usable }
        }
    }

    func testAHardwareEncoderThatIsNotHereStopsTheRunWithOneLine() throws {
        let kind = try XCTUnwrap(absentHardwareKind(), "every hardware encoder works here")
        var video = VideoConfig()
        video.encoder = kind
        var expected = ""
        XCTAssertThrowsError(try H264EncoderChoice.choose(video, probe: H264EncoderChoice.probe)) { expected = "\($0)" }
        let element = H264EncoderElement.candidates(for: kind)[0].rawValue
        XCTAssertTrue(expected.contains(element) && expected.contains(GStreamer.package(providing: element)), expected)

        let dir = try makeTempDir()
        let preset = try writeFile(dir, "hw.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: ["null://"]))
        let started = Date()
        let events = dir.appendingPathComponent("events.jsonl")
        let r = try CLI.run(["--preset", preset.path, "--no-realtime", "--duration", "5s", "--set", "video.encoder=\(kind.rawValue)",
                             "--events", events.path], timeout: 60)
        XCTAssertEqual(r.status, 1, r.summary("mediapub with encoder: \(kind.rawValue)"))
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "refused at start")
        let errors = r.stderr.split(separator: "\n").filter { $0.contains("error:") }
        XCTAssertEqual(errors.count, 1, r.stderr)
        XCTAssertTrue(errors.first?.hasSuffix(expected) == true, "\(errors) ends with \(expected)")
        print("encoder: \(kind.rawValue) here: \(errors.first ?? "")")
        // The players start before the encoder is built: whatever they said comes
        // before the error, and the run ends on the error and run.stopped (docs/events.md).
        let names = try EventLog.read(events).map { "\($0["event"] ?? "")" }
        XCTAssertTrue(names.contains("player.state"), "\(names)")
        XCTAssertEqual(Array(names.suffix(2)), ["error", "run.stopped"], "\(names)")
    }
}

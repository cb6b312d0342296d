// What the run encodes (docs/presets.md, "Sound only"): each audio codec once
// however many outputs take it, and pictures only when an output takes them;
// a sound-only output beside video outputs gets the sound only.

import Foundation
import XCTest
@testable import MediaPub

final class AudioOnlyEncodingTests: XCTestCase {
    private let format = MediaFormat(sampleRate: 44100, channels: 2, video: (width: 320, height: 180, fps: 25))

    private func publisher(_ urls: [String]) throws -> Publisher {
        let outputs = try urls.map { OutputConfig(url: try OutputURL($0)) }
        let p = try Publisher(format: format, video: VideoConfig(width: 320, height: 180, fps: 25, bitrate: 300_000, keyframeInterval: 1),
                              audio: AudioConfig(sampleRate: 44100, channels: 2, bitrate: 96_000), outputs: outputs,
                              reconnect: ReconnectConfig(), log: Logger(write: { _ in }),
                              onEncoderFailure: { _ in }, onOutputState: { _, _, _ in })
        addTeardownBlock { p.encoder.pipeline.stop() }
        return p
    }

    func testEachCodecIsEncodedOnceAndPicturesOnlyForOutputsThatTakeThem() throws {
        let dir = try makeTempDir()
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        let radio = try publisher([path("a.mp3"), path("b.mp3"), path("c.ogg"), path("d.m4a"),
                                   "icecast://pw@127.0.0.1:1/e.mp3", "icecast://pw@127.0.0.1:1/f.opus"])
        XCTAssertEqual(Set(radio.encoder.audioSinks.keys), [.aac, .mp3, .opus], "one encoder per codec")
        XCTAssertNil(radio.encoder.videoSink, "sound-only outputs: no pictures encoded")
        XCTAssertNil(radio.encoder.videoEncoder)
        for output in radio.outputs { output.finish(timeout: 0) }

        let mixed = try publisher([path("v.mp4"), path("a.mp3"), path("b.mkv")])
        XCTAssertEqual(Set(mixed.encoder.audioSinks.keys), [.aac, .mp3])
        XCTAssertNotNil(mixed.encoder.videoSink, "an .mp4 takes the pictures")
        for output in mixed.outputs { output.finish(timeout: 0) }
    }

    func testASoundOnlyRecordingBesideAVideoOneTakesTheSoundOnly() throws {
        let dir = try makeTempDir()
        let preset = try writeFile(dir, "mixed.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: [
            dir.appendingPathComponent("video.mp4").path, dir.appendingPathComponent("sound.mp3").path,
            dir.appendingPathComponent("sound.m4a").path,
        ]))
        let r = try CLI.run(["--preset", preset.path, "--no-realtime", "--duration", "3s"], timeout: 90)
        XCTAssertEqual(r.status, 0, r.summary("video and sound-only recordings"))
        let video = try MediaProbe.probe(dir.appendingPathComponent("video.mp4").path)
        XCTAssertEqual(Set(video.codecNames), ["h264", "aac"], video.rawJSON)
        for (name, codec) in [("sound.mp3", "mp3"), ("sound.m4a", "aac")] {
            let p = try MediaProbe.probe(dir.appendingPathComponent(name).path)
            XCTAssertEqual(p.codecNames, [codec], "\(name): the sound only: \(p.rawJSON)")
            XCTAssertEqual(p.duration ?? 0, 3, accuracy: 0.3, "\(name): \(p.rawJSON)")
            let pcm = try MediaProbe.decodePCM(dir.appendingPathComponent(name).path, rate: 16000)
            XCTAssertEqual(MediaProbe.dominantFrequency(pcm, rate: 16000) ?? 0, 440, accuracy: 10, name)
        }
        // The same preset with only sound-only outputs encodes no pictures (no video encoder said).
        let soundOnly = try writeFile(dir, "sound.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: [
            dir.appendingPathComponent("only.mp3").path,
        ]))
        let s = try CLI.run(["--preset", soundOnly.path, "--no-realtime", "--duration", "2s"], timeout: 90)
        XCTAssertEqual(s.status, 0, s.summary("sound-only outputs of a video preset"))
        XCTAssertFalse(s.stderr.contains("video encoder:"), s.stderr)
        XCTAssertTrue(r.stderr.contains("video encoder:"), "the video run says its encoder: \(r.stderr)")
    }
}

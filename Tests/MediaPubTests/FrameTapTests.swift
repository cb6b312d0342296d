// Players: frame taps in the library API hand out decoded PCM at
// the preset's rate and channels, and video frames in I420, NV12 and RGBA,
// tightly packed, with content that matches the (red, 440 Hz) source. The
// source differs from the output (320x240, 48 kHz vs 320x180, 44.1 kHz).

import Foundation
import XCTest
@testable import MediaPub

final class FrameTapTests: XCTestCase {

    func testAudioAndVideoTapsDeliverPCMAndI420NV12RGBAFrames() throws {
        let dir = try makeTempDir()
        try TestMedia.makeColorVideo(in: dir, name: "red.mp4", seconds: 3, color: "red", freq: 440,
                                     size: "320x240", fps: 25, sampleRate: 48000)
        let yaml = PlayerPreset.video(players: [PlayerPreset.player("main", source: "red.mp4", ["video: true"])],
                                      output: dir.appendingPathComponent("out.mp4"))
        let b = try makeBroadcast(yaml, in: dir, outputs: ["null://"], duration: 2)
        guard let player = b.player("main") else { return XCTFail("no player main") }
        let audio = Collector<AudioFrame>()
        var video: [VideoFrameFormat: Collector<VideoFrame>] = [:]
        player.addAudioTap { audio.add($0) }
        for format in [VideoFrameFormat.i420, .nv12, .rgba] {
            let c = Collector<VideoFrame>()
            video[format] = c
            player.addVideoTap(format: format) { c.add($0) }
        }
        guard let result = runBounded(b, timeout: 60) else { return }
        XCTAssertEqual(result.exitCode, 0, result.reason)

        // PCM: the preset's rate and channels, interleaved, about 2 s of it, the source's tone.
        let frames = audio.all
        XCTAssertFalse(frames.isEmpty, "audio frames were delivered")
        XCTAssertTrue(frames.allSatisfy { $0.sampleRate == 44100 && $0.channels == 2 },
                      "rate/channels as the preset: \(Set(frames.map { "\($0.sampleRate)/\($0.channels)" }))")
        XCTAssertTrue(frames.allSatisfy { $0.samples.count % 2 == 0 && !$0.samples.isEmpty }, "whole interleaved frames")
        let total = frames.reduce(0) { $0 + $1.samples.count / 2 }
        XCTAssertEqual(Double(total) / 44100, 2, accuracy: 0.25, "about the 2 s that were played")
        let pts = frames.map(\.ptsMs)
        XCTAssertEqual(pts, pts.sorted(), "audio frame positions never go back")
        let left = frames.flatMap { f in stride(from: 0, to: f.samples.count, by: 2).map { f.samples[$0] } }
        XCTAssertEqual(MediaProbe.dominantFrequency(left, rate: 44100) ?? 0, 440, accuracy: 5, "the source tone")
        XCTAssertGreaterThan(MediaProbe.rmsDB(left), -30, "not silence")

        // Video: each format, tightly packed, plausible colours for red.
        for (format, collector) in video {
            let vf = collector.all
            XCTAssertGreaterThanOrEqual(vf.count, 10, "\(format): frames delivered")
            guard let f = vf.dropFirst(vf.count / 2).first else { continue }
            XCTAssertTrue(f.width == 320 && [240, 180].contains(f.height),
                          "\(format): the source's or the output's size, got \(f.width)x\(f.height)")
            XCTAssertTrue(vf.allSatisfy { $0.format == format }, "\(format): frames carry their format")
            let w = f.width, h = f.height, cw = (w + 1) / 2, ch = (h + 1) / 2
            let expected = format == .rgba ? w * h * 4 : w * h + 2 * cw * ch
            XCTAssertTrue(vf.allSatisfy { $0.data.count == expected },
                          "\(format): \(expected) bytes per \(w)x\(h) frame, got \(Set(vf.map(\.data.count)))")
            let vpts = vf.map(\.ptsMs)
            XCTAssertEqual(vpts, vpts.sorted(), "\(format): frame positions never go back")
            let bytes = [UInt8](f.data)
            guard bytes.count == expected else { continue }
            // Colour of the centre (the middle half of each dimension), so that a
            // letterboxed frame (4:3 source in a 16:9 output) is judged on its picture.
            func mean(plane offset: Int, width pw: Int, height ph: Int, step: Int = 1, phase: Int = 0, stride rowBytes: Int) -> Double {
                var s = 0.0, n = 0.0
                for y in (ph / 4)..<(ph * 3 / 4) {
                    for x in (pw / 4)..<(pw * 3 / 4) {
                        s += Double(bytes[offset + y * rowBytes + x * step + phase]); n += 1
                    }
                }
                return s / max(n, 1)
            }
            switch format {
            case .i420:
                XCTAssertEqual(mean(plane: 0, width: w, height: h, stride: w), 81, accuracy: 8, "I420 Y of red")
                XCTAssertEqual(mean(plane: w * h, width: cw, height: ch, stride: cw), 90, accuracy: 8, "I420 U of red")
                XCTAssertEqual(mean(plane: w * h + cw * ch, width: cw, height: ch, stride: cw), 240, accuracy: 8, "I420 V of red")
            case .nv12:
                XCTAssertEqual(mean(plane: 0, width: w, height: h, stride: w), 81, accuracy: 8, "NV12 Y of red")
                XCTAssertEqual(mean(plane: w * h, width: cw, height: ch, step: 2, phase: 0, stride: 2 * cw), 90, accuracy: 8,
                               "NV12 U (even bytes) of red")
                XCTAssertEqual(mean(plane: w * h, width: cw, height: ch, step: 2, phase: 1, stride: 2 * cw), 240, accuracy: 8,
                               "NV12 V (odd bytes) of red")
            case .rgba:
                let r = mean(plane: 0, width: w, height: h, step: 4, phase: 0, stride: 4 * w)
                let g = mean(plane: 0, width: w, height: h, step: 4, phase: 1, stride: 4 * w)
                let bl = mean(plane: 0, width: w, height: h, step: 4, phase: 2, stride: 4 * w)
                let a = mean(plane: 0, width: w, height: h, step: 4, phase: 3, stride: 4 * w)
                XCTAssertGreaterThan(r, 200, "RGBA: R of red")
                XCTAssertLessThan(g, 40, "RGBA: G of red")
                XCTAssertLessThan(bl, 40, "RGBA: B of red")
                XCTAssertEqual(a, 255, accuracy: 0.5, "RGBA: opaque")
            }
        }
    }
}

// Samples that are no sound (docs/presets.md, Players and audio.loudness): NaN, infinite and
// ±1e30 samples from a decoder play as silence, an item that gives them is said once, and
// what leaves the mix never has a true peak over the ceiling. libebur128's true-peak meter
// judges the limiter; ffmpeg's ebur128 and astats judge the encoded outputs.

import Foundation
import XCTest
@testable import MediaPub

final class BrokenSamplesTests: XCTestCase {
    private let rate = 44100

    func testNaNInfinityAndHugeSamplesAreSilencedAndCounted() {
        var samples: [Float] = [0.5, .nan, -.infinity, .infinity, 1e30, -1e30, -0.99, 1.5, -BrokenSamples.bound, 33, -Float.greatestFiniteMagnitude]
        let replaced = samples.withUnsafeMutableBufferPointer { BrokenSamples.silence($0.baseAddress!, count: $0.count) }
        XCTAssertEqual(replaced, 7)
        XCTAssertEqual(samples, [0.5, 0, 0, 0, 0, 0, -0.99, 1.5, -BrokenSamples.bound, 0, 0], "sound over full scale is kept for the limiter")
    }

    /// Interleaved stereo through the run's limiter (for AAC), in 20 ms ticks, its delay taken out.
    private func limited(_ input: [Float], loudness: LoudnessConfig? = nil) -> [Float] {
        let output = OutputLoudness(format: MediaFormat(sampleRate: rate, channels: 2, video: nil), loudness: loudness)
        let tick = rate / 50 * 2
        let padded = input + [Float](repeating: 0, count: output.latency * 2)
        var out: [Float] = []
        for at in stride(from: 0, to: padded.count, by: tick) {
            var chunk = Array(padded[at..<min(padded.count, at + tick)])
            output.process(&chunk)
            out += chunk
        }
        return Array(out.dropFirst(output.latency * 2))  // its lookahead late
    }

    private func truePeakDB(_ samples: [Float]) throws -> Double {
        let meter = try XCTUnwrap(LoudnessMeter(channels: 2, sampleRate: rate, shortTerm: false, truePeak: true))
        meter.add(samples)
        return 20 * log10(max(try XCTUnwrap(meter.truePeak(channel: 0)), try XCTUnwrap(meter.truePeak(channel: 1))))
    }

    /// Stereo, `f(i)` on both channels for `frames` frames.
    private func stereo(_ frames: Int, _ f: (Int) -> Float) -> [Float] {
        (0..<frames).flatMap { i -> [Float] in let v = f(i); return [v, v] }
    }

    /// What reaches the limiter without a decoder in front (a tap's samples, a bug) is
    /// limited as well: no NaN goes out or stays in its state, and a full-scale square
    /// wave, DC and ±1e30 come out under the ceiling, measured 4× oversampled.
    func testTheLimiterKeepsAnyInputUnderTheCeilingAndHoldsNoNaN() throws {
        let quarter = rate / 4
        let tone = stereo(rate) { 0.25 * Float(sin(2 * .pi * 1000 * Double($0) / 44100)) }
        let bad = stereo(quarter) { _ in .nan } + stereo(quarter) { $0 % 2 == 0 ? .infinity : -.infinity }
            + stereo(quarter) { ($0 / 22) % 2 == 0 ? 1e30 : -1e30 }
        let square = stereo(rate) { ($0 / 22) % 2 == 0 ? 1 : -1 }, dc = stereo(rate) { _ in 1 }
        for (loudness, ceiling) in [(nil, 0.0), (LoudnessConfig(truePeak: -1), -1.0)] {
            let aim = OutputLoudness.aim(loudness: loudness, codecs: [.aac])
            XCTAssertEqual(aim, ceiling - AudioCodec.aac.peakHeadroom)
            let out = limited(bad + tone + square + dc + tone, loudness: loudness)
            XCTAssertTrue(out.allSatisfy(\.isFinite), "no NaN or infinity goes out")
            XCTAssertLessThanOrEqual(try truePeakDB(out), aim + 0.05, "under the aim (\(ceiling) dBTP less AAC's headroom)")
            // The state holds no NaN: the tone after it all comes out as it went in (once the gain is back up).
            let tail = out.suffix(quarter * 2), sent = tone.suffix(quarter * 2)
            XCTAssertEqual(zip(tail, sent).map { abs($0 - $1) }.max() ?? 1, 0, accuracy: 1e-3, "the tone after, untouched")
        }
    }

    /// The limiter aims under the ceiling by the largest headroom of the codecs the run encodes.
    func testTheAimAllowsForEachEncodedCodec() {
        XCTAssertEqual(OutputLoudness.aim(loudness: LoudnessConfig(truePeak: -1), codecs: [.mp3]), -1.5)
        XCTAssertEqual(OutputLoudness.aim(loudness: LoudnessConfig(truePeak: -1), codecs: [.mp3, .aac]), -3)
        XCTAssertEqual(OutputLoudness.aim(loudness: nil, codecs: [.opus]), -2)
    }

    /// A float WAV whose samples are NaN, ±inf and ±1e30 (written byte by byte: no tool makes
    /// one), then DC at full scale and a quiet tone, played once to AAC, MP3 and Opus files.
    func testABrokenItemPlaysAsSilenceIsSaidOnceAndStaysUnderFullScaleInEveryCodec() throws {
        let dir = try makeTempDir("broken")
        let half = rate / 2
        let frames = stereo(half) { _ in .nan } + stereo(half) { $0 % 2 == 0 ? .infinity : -.infinity }
            + stereo(half) { ($0 / 22) % 2 == 0 ? 1e30 : -1e30 } + stereo(rate) { _ in 1 }
            + stereo(rate) { 0.1 * Float(sin(2 * .pi * 440 * Double($0) / 44100)) }
        try floatWAV(frames).write(to: dir.appendingPathComponent("broken.wav"))
        let outs = ["m4a", "mp3", "opus"].map { dir.appendingPathComponent("out.\($0)") }
        let events = dir.appendingPathComponent("events.jsonl")
        let yaml = PlayerPreset.audioOnly(players: [PlayerPreset.player("main", source: "broken.wav", ["repeat: true"])], output: outs[0])
            + outs.dropFirst().map { "  - url: \"file://\($0.path)\"\n" }.joined()
        // It plays again from 4 s: said once however often it plays.
        let r = try runPreset(yaml, in: dir, args: ["--no-realtime", "--duration", "6", "--events", events.path])
        XCTAssertEqual(r.status, 0, r.summary("mediapub"))
        let warnings = try EventLog.read(events).compactMap { $0["event"] as? String == "warning" ? $0["message"] as? String : nil }
            .filter { $0.contains("not sound") }
        XCTAssertEqual(warnings, ["player main: \(dir.path)/broken.wav gave 88200 samples that are not sound "
                                  + "(NaN, infinite or over 32× full scale) in its first second of them: played as silence"],
                       "said once, with how many, though it played twice")
        for out in outs {
            let pcm = try MediaProbe.decodePCM(out.path, rate: rate)
            XCTAssertTrue(pcm.allSatisfy(\.isFinite))
            XCTAssertLessThan(MediaProbe.rmsDB(MediaProbe.slice(pcm, rate: rate, from: 0.1, to: 1.4)), -60,
                              "\(out.lastPathComponent): the broken samples are silence")
            XCTAssertGreaterThan(MediaProbe.toneLevelDB(MediaProbe.slice(pcm, rate: rate, from: 3, to: 3.4), rate: rate, freq: 440), -30,
                                 "\(out.lastPathComponent): what is left of the item plays")
            let whole = try FFmpegEBUR128.measure(out.path, from: 0, to: 4)
            XCTAssertLessThanOrEqual(whole.truePeak, 0, "\(out.lastPathComponent): true peak under 0 dBTP")
        }
    }

    /// An item is measured ahead (audio.loudness) as it plays: its broken samples as silence.
    func testABrokenItemIsMeasuredAsItPlays() throws {
        let dir = try makeTempDir("brokenloud")
        let tone = stereo(rate * 2) { 0.1 * Float(sin(2 * .pi * 440 * Double($0) / 44100)) }
        let broken = dir.appendingPathComponent("broken.wav"), clean = dir.appendingPathComponent("clean.wav")
        try floatWAV(stereo(rate) { $0 % 3 == 0 ? .nan : 1e30 } + tone).write(to: broken)
        try floatWAV(stereo(rate) { _ in 0 } + tone).write(to: clean)
        guard case .loudness(let measured?) = LoudnessMeasure.measure(uri: broken.absoluteString, channels: 2, remote: false),
              case .loudness(let expected?) = LoudnessMeasure.measure(uri: clean.absoluteString, channels: 2, remote: false) else {
            return XCTFail("both are measured")
        }
        XCTAssertEqual(measured, expected, accuracy: 0.01)
    }

    /// A little-endian IEEE float WAV of interleaved stereo `samples`.
    private func floatWAV(_ samples: [Float]) -> Data {
        var d = Data()
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        let bytes = UInt32(samples.count * 4)
        d.append(contentsOf: Array("RIFF".utf8)); u32(36 + bytes); d.append(contentsOf: Array("WAVEfmt ".utf8))
        u32(16); u16(3); u16(2); u32(UInt32(rate)); u32(UInt32(rate * 8)); u16(8); u16(32)
        d.append(contentsOf: Array("data".utf8)); u32(bytes)
        for s in samples { u32(s.bitPattern) }
        return d
    }
}

// The mix's true-peak limiter (docs/presets.md, audio.loudness) on synthetic peaks:
// libebur128's own 4× true-peak meter is the judge.

import Foundation
import XCTest
@testable import MediaPub
@testable import MediaPubTestSupport

final class TruePeakLimiterTests: XCTestCase {
    private let rate = 48000

    /// The true peak (dBTP) of interleaved stereo `samples`, as libebur128 measures it.
    private func truePeakDB(_ samples: [Float]) throws -> Double {
        let meter = try XCTUnwrap(LoudnessMeter(channels: 2, sampleRate: rate, shortTerm: false, truePeak: true))
        meter.add(samples)
        let peak = max(try XCTUnwrap(meter.truePeak(channel: 0)), try XCTUnwrap(meter.truePeak(channel: 1)))
        return 20 * log10(peak)
    }

    /// Runs `samples` through a limiter in 20 ms ticks, then as much silence as its delay.
    private func limited(_ samples: [Float], ceilingDB: Double) -> (out: [Float], latency: Int, reduction: Double) {
        var limiter = TruePeakLimiter(sampleRate: rate, channels: 2, ceilingDB: ceilingDB)
        var out: [Float] = []
        var reduction = 0.0
        let tick = rate / 50 * 2
        let padded = samples + [Float](repeating: 0, count: limiter.latency * 2)
        var at = 0
        while at < padded.count {
            var chunk = Array(padded[at..<min(padded.count, at + tick)])
            limiter.process(&chunk)
            reduction = max(reduction, limiter.takeReduction())
            out += chunk
            at += tick
        }
        return (Array(out.dropFirst(limiter.latency * 2)), limiter.latency, reduction)
    }

    /// Stereo: the same `f(i)` on both channels, for `frames` frames.
    private func stereo(_ frames: Int, _ f: (Int) -> Double) -> [Float] {
        (0..<frames).flatMap { i -> [Float] in let v = Float(f(i)); return [v, v] }
    }

    func testPeaksOverTheCeilingAreBroughtUnderItAndTheRestIsUntouched() throws {
        // A quiet 440 Hz tone with 5 ms bursts of 3 kHz at +6 dBFS every second.
        let frames = rate * 2
        let input = stereo(frames) { i in
            let t = Double(i) / Double(rate)
            let burst = i % rate < rate / 200 ? 2.0 * sin(2 * .pi * 3000 * t) : 0
            return 0.1 * sin(2 * .pi * 440 * t) + burst
        }
        XCTAssertGreaterThan(try truePeakDB(input), 5, "the input is over full scale")
        let (out, _, reduction) = limited(input, ceilingDB: -1)
        XCTAssertEqual(out.count, input.count)
        let peak = try truePeakDB(out)
        XCTAssertLessThanOrEqual(peak, -1, "true peak \(peak) dBTP is at most the ceiling")
        XCTAssertGreaterThan(peak, -2, "peaks are brought to the ceiling, not far under it: \(peak)")
        XCTAssertGreaterThan(reduction, 6, "its gain reduction is reported")
        // Away from the bursts (the gain back up after them), the tone comes out as it went in.
        let quiet = (rate - rate / 50)..<(rate - rate / 100)
        XCTAssertEqual(quiet.map { abs(out[$0 * 2] - input[$0 * 2]) }.max() ?? 1, 0, accuracy: 1e-3)
    }

    func testIntersamplePeaksAreCaught() throws {
        // A sine at a quarter of the rate, sampled 45° off its crests: every sample is at
        // 0.707 of its amplitude, so its samples stay under the ceiling but its true peak does not.
        let amplitude = 0.95
        let input = stereo(rate) { i in amplitude * sin(.pi / 2 * Double(i) + .pi / 4) }
        let samplePeak = 20 * log10(Double(input.map { abs($0) }.max() ?? 0))
        XCTAssertLessThan(samplePeak, -3, "every sample is under the ceiling")
        XCTAssertGreaterThan(try truePeakDB(input), -1, "the true peak is over it")
        let (out, _, reduction) = limited(input, ceilingDB: -1)
        XCTAssertLessThanOrEqual(try truePeakDB(out), -1)
        XCTAssertGreaterThan(reduction, 0)
    }

    func testAQuietMixGoesThroughUnchangedButLate() throws {
        let input = stereo(rate / 2) { i in 0.25 * sin(2 * .pi * 1000 * Double(i) / Double(rate)) }
        let (out, latency, reduction) = limited(input, ceilingDB: -1)
        XCTAssertEqual(reduction, 0)
        XCTAssertLessThanOrEqual(latency, rate / 100, "a few ms of lookahead")
        XCTAssertEqual(out, input)
    }

    func testLoudnessKeysAreReadAndBadValuesNamed() throws {
        let players = "players:\n  - source: a.mp3\n"
        let ok = try PresetTestKit.load(players + "audio:\n  loudness: { target: -16LUFS, true_peak: -1.5 dBTP, max_gain: 6dB }\n")
        XCTAssertEqual(ok.audio.loudness, LoudnessConfig(target: -16, truePeak: -1.5, maxGain: 6))
        XCTAssertEqual(try PresetTestKit.load(players + "audio:\n  loudness: {}\n").audio.loudness, LoudnessConfig())
        XCTAssertNil(try PresetTestKit.load(players).audio.loudness)
        let problems = PresetTestKit.problems(players + "audio:\n  loudness:\n    target: -80LUFS\n    true_peak: loud\n    max_gain: 30dB\n")
        XCTAssertEqual(problems.map(\.description), [
            "presets/t.yaml:5: audio.loudness.target: -80LUFS is out of range -40LUFS..-5LUFS",
            "presets/t.yaml:6: audio.loudness.true_peak: \"loud\" is not a level in dBTP (like -1dBTP)",
            "presets/t.yaml:7: audio.loudness.max_gain: 30dB is out of range 0dB..24dB",
        ])
    }
}

// An item's gain to the loudness target (docs/presets.md, audio.loudness): measured ahead
// with libebur128 and kept by file version; an item not measured when it begins starts at
// the conservative gain and moves evenly to its own over 3 s. And the output's meter.

import Foundation
import XCTest
@testable import MediaPub

final class ItemGainTests: XCTestCase {
    /// A 1 kHz sine of amplitude 1/8 on both channels: -18.06 LUFS (EBU R 128: a full-scale
    /// 1 kHz sine on one channel is -3.01 LUFS).
    private let sineLUFS = 20 * log10(0.125)

    func testAnItemMeasuredAfterItBeganMovesToItsGainOverThreeSeconds() throws {
        let dir = try makeTempDir()
        let item = try TestMedia.makeAudio(in: dir, seconds: 4, freq: 1000, ext: "wav", sampleRate: 48000).path
        let loudness = ItemLoudness(config: LoudnessConfig(), channels: 2)
        var gain = ItemGain(loudness: loudness, sampleRate: 48000)
        let session = ObjectIdentifier(loudness)
        let frames = 960  // a 20 ms tick
        var tick = [Float](repeating: 1, count: frames * 2)
        func play() {
            tick = [Float](repeating: 1, count: frames * 2)
            tick.withUnsafeMutableBufferPointer { _ = gain.apply(to: $0.baseAddress!, frames: frames, channels: 2, session: session, source: item, next: nil) }
        }
        XCTAssertNil(loudness.known(item), "not measured yet")
        play()
        XCTAssertEqual(gain.gainDB, LoudnessConfig().conservativeGain, "an item not measured begins at the conservative gain")
        XCTAssertEqual(Double(tick[0]), pow(10, LoudnessConfig().conservativeGain / 20), accuracy: 1e-4)
        loudness.wait(for: [item], until: MonotonicInstant.now.addingTimeInterval(60))
        let measured = try XCTUnwrap(loudness.known(item) ?? nil, "measured")
        let judged = try FFmpegEBUR128.measure(item, from: 0, to: 4).integrated
        XCTAssertEqual(measured, judged, accuracy: 0.2, "the file's integrated loudness, as ffmpeg measures it")
        var gains: [Double] = []
        var largestStep: Float = 0
        for _ in 0..<200 {
            let before = tick[tick.count - 1]
            play()
            largestStep = max(largestStep, abs(tick[0] - before))
            gains.append(gain.gainDB)
        }
        let goal = -23 - measured
        XCTAssertEqual(gains.last ?? 0, goal, accuracy: 0.01, "it reaches its own gain")
        let reached = try XCTUnwrap(gains.firstIndex { abs($0 - goal) < 0.01 })
        XCTAssertGreaterThanOrEqual(Double(reached + 1) * 0.02, 3, "over at least 3 s: \(reached + 1) ticks")
        let steps = zip(gains.dropFirst(), gains).map { $0 - $1 }
        XCTAssertLessThanOrEqual(steps.max() ?? 0, (goal - LoudnessConfig().conservativeGain) / 149, "evenly, in dB")
        XCTAssertLessThan(largestStep, 0.01, "no step in the samples from tick to tick")
        // Kept: asked again, the same file is not measured again; a changed file is.
        XCTAssertEqual(loudness.known(item) ?? nil, measured)
        try TestMedia.makeAudio(in: dir, name: "tone-1000.wav", seconds: 3, freq: 1000, ext: "wav", sampleRate: 48000)
        XCTAssertNil(loudness.known(item), "a file that changed is measured again")
    }

    func testAnR128OrReplayGainTrackGainIsTakenAtItsWord() throws {
        let dir = try makeTempDir()
        let tone = try TestMedia.makeAudio(in: dir, seconds: 2, freq: 1000, ext: "wav", sampleRate: 48000)
        let tagged = dir.appendingPathComponent("tagged.flac").path
        try TestMedia.ffmpegRun(["-i", tone.path, "-metadata", "REPLAYGAIN_TRACK_GAIN=-3.50 dB", tagged])
        let loudness = ItemLoudness(config: LoudnessConfig(), channels: 2)
        loudness.wait(for: [tagged], until: MonotonicInstant.now.addingTimeInterval(60))
        // ReplayGain 2: a track gain of 0 dB is -18 LUFS, whatever the sound measures.
        XCTAssertEqual(try XCTUnwrap(loudness.known(tagged) ?? nil), -14.5, accuracy: 0.001)
        // Opus' R128 track gain (1/256 dB, from -23 LUFS) goes before a ReplayGain one.
        let opus = dir.appendingPathComponent("tagged.opus").path
        try TestMedia.ffmpegRun(["-i", tone.path, "-c:a", "libopus", "-metadata", "R128_TRACK_GAIN=-1280",
                                 "-metadata", "REPLAYGAIN_TRACK_GAIN=-3.50 dB", opus])
        loudness.wait(for: [opus], until: MonotonicInstant.now.addingTimeInterval(60))
        XCTAssertEqual(try XCTUnwrap(loudness.known(opus) ?? nil), -18, accuracy: 0.001)
    }

    /// A mono item is measured in its one channel counted twice, as it plays on both of a
    /// stereo output: the same loudness as the same sound on two channels (and ffmpeg's
    /// dual-mono measure of it).
    func testAMonoItemIsMeasuredAsItPlaysOnBothChannels() throws {
        let stereo = try TestMedia.makeAudio(in: try makeTempDir(), seconds: 3, freq: 1000, ext: "flac", sampleRate: 48000).path
        let mono = stereo.replacingOccurrences(of: ".flac", with: "-mono.flac")
        try TestMedia.ffmpegRun(["-i", stereo, "-ac", "1", mono])
        let loudness = ItemLoudness(config: LoudnessConfig(), channels: 2)
        loudness.wait(for: [stereo, mono], until: MonotonicInstant.now.addingTimeInterval(60))
        let (two, one) = (try XCTUnwrap(loudness.known(stereo) ?? nil), try XCTUnwrap(loudness.known(mono) ?? nil))
        XCTAssertEqual(two, try FFmpegEBUR128.measure(stereo, from: 0, to: 3).integrated, accuracy: 0.2)
        XCTAssertEqual(one, two, accuracy: 0.01, "mono as it plays on both channels")
        XCTAssertEqual(one, try FFmpegEBUR128.measure(mono, from: 0, to: 3, dualMono: true).integrated, accuracy: 0.2)
    }

    /// A file over HTTP is measured ahead like a local one (read once more for it) and
    /// kept by its URL: asked again, it is not read again. An HLS item is not measured.
    func testAFileOverHTTPIsMeasuredOnceAndAnHLSItemIsNot() throws {
        let dir = try makeTempDir()
        let tone = try TestMedia.makeAudio(in: dir, seconds: 3, freq: 1000, ext: "flac", sampleRate: 48000)
        let server = try startHTTPServer(root: dir)
        let url = server.url(tone.lastPathComponent)
        let loudness = ItemLoudness(config: LoudnessConfig(), channels: 2)
        XCTAssertNil(loudness.known(url), "not measured yet")
        loudness.wait(for: [url], until: MonotonicInstant.now.addingTimeInterval(60))
        let measured = try XCTUnwrap(loudness.known(url) ?? nil, "measured")
        XCTAssertEqual(measured, try FFmpegEBUR128.measure(tone.path, from: 0, to: 3).integrated, accuracy: 0.2)
        let reads = { server.accessLog.components(separatedBy: "GET /\(tone.lastPathComponent)").count - 1 }
        let before = reads()
        XCTAssertGreaterThanOrEqual(before, 1)
        loudness.wait(for: [url], until: MonotonicInstant.now.addingTimeInterval(60))
        XCTAssertEqual(loudness.known(url) ?? nil, measured)
        XCTAssertEqual(reads(), before, "kept: not read again")
        let hls = server.url("live.m3u8")
        XCTAssertEqual(loudness.known(hls).map { $0 == nil }, true, "an HLS item has no loudness to go by")
    }

    func testTheOutputIsMeasuredAfterTheLimiter() throws {
        let format = MediaFormat(sampleRate: 48000, channels: 2, video: nil)
        let output = OutputLoudness(format: format, loudness: LoudnessConfig())
        XCTAssertNil(OutputLoudness(format: format, loudness: nil).reading, "not measured without audio.loudness")
        var n = 0
        for _ in 0..<200 {  // 4 s in 20 ms ticks
            var mix = [Float](repeating: 0, count: 960 * 2)
            for f in 0..<960 {
                let v = Float(0.125 * sin(2 * .pi * 1000 * Double(n) / 48000))
                mix[f * 2] = v
                mix[f * 2 + 1] = v
                n += 1
            }
            output.process(&mix)
        }
        let reading = try XCTUnwrap(output.reading)
        XCTAssertEqual(try XCTUnwrap(reading.momentary), sineLUFS, accuracy: 0.2)
        XCTAssertEqual(try XCTUnwrap(reading.shortTerm), sineLUFS, accuracy: 0.2)
        XCTAssertEqual(try XCTUnwrap(reading.integrated), sineLUFS, accuracy: 0.2)
        XCTAssertEqual(reading.gainReduction, 0, "under the ceiling: the limiter does nothing")
    }
}

// Crossfades between a playlist's items (docs/presets.md, Crossfades): the outgoing
// item fades out while the next one fades in, equal-power, the sum's level kept; the
// pictures dissolve over the same time; a fade takes at most half of either item;
// `next` fades the current item out from where it is. Runs as fast as possible;
// the recording is judged by ffmpeg (decoded PCM, each tone's level by a single-bin
// DFT; each frame's colour by signalstats).

import Foundation
import XCTest
@testable import MediaPub
@testable import MediaPubTestSupport

final class CrossfadeTests: XCTestCase {
    typealias K = PresetTestKit
    private let rate = 44100

    /// A stereo WAV of a `freq` Hz sine, `seconds` long.
    private func tone(_ dir: URL, _ name: String, _ freq: Double, _ seconds: Double) throws {
        try TestMedia.ffmpegRun(["-f", "lavfi", "-i", "sine=frequency=\(freq):sample_rate=\(rate):duration=\(seconds)",
                                 "-ac", "2", "-c:a", "pcm_s16le", dir.appendingPathComponent(name).path])
    }

    private func player(_ items: [String], crossfade: String, _ extra: [String] = []) -> String {
        "  - id: main\n" + extra.map { "    \($0)\n" }.joined()
            + "    progress_interval: 500ms\n"
            + "    playlist: { mode: once, crossfade: \(crossfade), items: [\(items.joined(separator: ", "))] }\n"
    }

    /// The recording's sound (mono) and its length in seconds from output time 0.
    private func sound(_ out: URL) throws -> (pcm: [Float], seconds: Double) {
        let pcm = try MediaProbe.decodePCM(out.path, rate: rate)
        let start = try MediaProbe.streamStartTime(out.path, type: "audio")
        return (pcm, Double(pcm.count) / Double(rate) + start)
    }

    /// The level of `freq` in the 100 ms around `t`.
    private func level(_ pcm: [Float], _ freq: Double, at t: Double) -> Double {
        MediaProbe.toneLevelDB(MediaProbe.slice(pcm, rate: rate, from: t - 0.05, to: t + 0.05), rate: rate, freq: freq)
    }

    /// Every 50 ms window's RMS from `from` to `to` within 1 dB of `steady` (no dip, no swell).
    private func assertLevelKept(_ pcm: [Float], from: Double, to: Double, steady: Double,
                                 file: StaticString = #filePath, line: UInt = #line) {
        let windows = MediaProbe.windowRMSDB(MediaProbe.slice(pcm, rate: rate, from: from, to: to), rate: rate, window: 0.05)
        let off = windows.enumerated().filter { abs($0.element - steady) > 1 }
            .map { String(format: "%.2f s: %.1f dB", from + Double($0.offset) * 0.05, $0.element - steady) }
        XCTAssertFalse(windows.isEmpty, file: file, line: line)
        XCTAssertTrue(off.isEmpty, "the sum's level moves more than 1 dB from the steady level: \(off.prefix(8))",
                      file: file, line: line)
    }

    /// Across a fade from `t0` to `t1`: `outgoing` falls and `incoming` rises, each
    /// 3 dB down at the middle (equal power), neither before/after its item.
    private func assertCrossfade(_ pcm: [Float], from t0: Double, to t1: Double, outgoing: Double, incoming: Double,
                                 steady: Double, file: StaticString = #filePath, line: UInt = #line) {
        let steps = (1...7).map { t0 + (t1 - t0) * Double($0) / 8 }
        let falling = steps.map { level(pcm, outgoing, at: $0) }, rising = steps.map { level(pcm, incoming, at: $0) }
        XCTAssertEqual(falling, falling.sorted(by: >), "\(outgoing) Hz falls across the fade", file: file, line: line)
        XCTAssertEqual(rising, rising.sorted(), "\(incoming) Hz rises across the fade", file: file, line: line)
        let middle = (t0 + t1) / 2
        XCTAssertEqual(level(pcm, outgoing, at: middle) - steady, -3, accuracy: 1, "outgoing at the middle", file: file, line: line)
        XCTAssertEqual(level(pcm, incoming, at: middle) - steady, -3, accuracy: 1, "incoming at the middle", file: file, line: line)
        XCTAssertLessThan(level(pcm, incoming, at: t0 - 0.15) - steady, -40, "\(incoming) Hz not before the fade", file: file, line: line)
        XCTAssertLessThan(level(pcm, outgoing, at: t1 + 0.15) - steady, -40, "\(outgoing) Hz not after the fade", file: file, line: line)
    }

    /// The recording `out` lasts `seconds` (within `accuracy`), its 440 Hz first item steady
    /// from 0.3 s to 0.9 s, and crossfades as each of `fades` says (`assertCrossfade`),
    /// the sum's level kept from 0.2 s to 0.2 s before the end. Returns the sound.
    @discardableResult
    private func assertRecording(_ out: URL, seconds: Double, accuracy: Double = 0.06,
                                 fades: [(from: Double, to: Double, outgoing: Double, incoming: Double)],
                                 file: StaticString = #filePath, line: UInt = #line) throws -> [Float] {
        let s = try sound(out)
        XCTAssertEqual(s.seconds, seconds, accuracy: accuracy, "the items' lengths less the fades", file: file, line: line)
        let steadyPart = MediaProbe.slice(s.pcm, rate: rate, from: 0.3, to: 0.9)
        let steady = MediaProbe.toneLevelDB(steadyPart, rate: rate, freq: 440)
        for f in fades {
            assertCrossfade(s.pcm, from: f.from, to: f.to, outgoing: f.outgoing, incoming: f.incoming, steady: steady,
                            file: file, line: line)
        }
        assertLevelKept(s.pcm, from: 0.2, to: seconds - 0.2, steady: MediaProbe.rmsDB(steadyPart), file: file, line: line)
        return s.pcm
    }

    // MARK: the preset

    func testCrossfadeIsReadAsADurationOrASectionAndCheckedAtItsKey() throws {
        let list = "players:\n  - playlist:\n      items: [a.mp3, b.mp3]\n      crossfade: "
        XCTAssertEqual(try K.load(list + "3s\n").players[0].playlist?.crossfade, CrossfadeConfig(seconds: 3, curve: .equalPower))
        XCTAssertEqual(try K.load(list + "{ duration: 2500ms, curve: linear }\n").players[0].playlist?.crossfade,
                       CrossfadeConfig(seconds: 2.5, curve: .linear))
        XCTAssertEqual(try K.load("players:\n  - playlist: [a.mp3]\n").players[0].playlist?.crossfade, CrossfadeConfig(),
                       "off unless given")
        let key = "players[0].playlist.crossfade"
        XCTAssertEqual(K.problems(list + "31s\n").map(\.description), ["presets/t.yaml:4: \(key): 31s is out of range 0s..30s"])
        XCTAssertEqual(K.problems(list + "soon\n").map(\.description),
                       ["presets/t.yaml:4: \(key): \"soon\" is not a duration (like 500ms, 2s, 10m, 1h30m, 01:30:00)"])
        XCTAssertEqual(K.problems(list + "{ duration: 2s, curve: cosine }\n").map(\.description),
                       ["presets/t.yaml:4: \(key).curve: \"cosine\" is not one of equal-power, linear"])
        XCTAssertEqual(K.problems(list + "{ durations: 2s }\n").map(\.description),
                       ["presets/t.yaml:4: \(key).durations: unknown key (did you mean duration?)"])
    }

    func testEqualPowerGainsKeepThePowerAndLinearOnesTheLevel() {
        let power = Crossfade(length: 1000, curve: .equalPower), linear = Crossfade(length: 1000, curve: .linear)
        for k in stride(from: 0, through: 1000, by: 50) {
            let (a, b) = power.gains(at: k), (c, d) = linear.gains(at: k)
            XCTAssertEqual(a * a + b * b, 1, accuracy: 1e-5, "equal power at \(k)")
            XCTAssertEqual(c + d, 1, accuracy: 1e-5, "linear at \(k)")
        }
        XCTAssertEqual([power.gains(at: 0).outgoing, power.gains(at: 0).incoming], [1, 0], "the outgoing item alone at first")
        XCTAssertEqual([power.gains(at: 1000).outgoing, power.gains(at: 1000).incoming], [0, 1], "the incoming one alone at the end")
    }

    // MARK: on air

    /// `crossfade: 2s` between a 4 s 440 Hz item and a 4 s 880 Hz one: 6 s in all; over
    /// 2 s to 4 s the 440 Hz tone falls as the 880 Hz one rises, each 3 dB down at the
    /// middle, and the sum's level stays within 1 dB of the steady level throughout. The
    /// second item's player.track comes when the first is 2 s from its end.
    func testTwoTonesCrossfadeOverTwoSecondsAndTheSumKeepsItsLevel() throws {
        let dir = try makeTempDir()
        try tone(dir, "a.wav", 440, 4)
        try tone(dir, "b.wav", 880, 4)
        let out = dir.appendingPathComponent("out.mkv"), log = dir.appendingPathComponent("events.jsonl")
        let yaml = PlayerPreset.audioOnly(players: [player(["a.wav", "b.wav"], crossfade: "2s")], output: out)
        let r = try runPreset(yaml, in: dir, args: ["--no-realtime", "--events", log.path])
        XCTAssertEqual(r.status, 0, r.summary("two tones crossfading"))

        try assertRecording(out, seconds: 6, fades: [(2, 4, 440, 880)])

        // Item 0's last progress is at 2 s at most: item 1 took over as the fade began.
        let events = try EventLog.read(log).filter { $0["player"] as? String == "main" }
        let trackOne = try XCTUnwrap(events.firstIndex { $0["event"] as? String == "player.track" && ($0["index"] as? NSNumber)?.intValue == 1 })
        let before = events[..<trackOne].filter { $0["event"] as? String == "player.progress" }.compactMap { ($0["position_ms"] as? NSNumber)?.intValue }
        XCTAssertEqual(before.max(), 2000, "the next item starts 2 s before the first one's end: \(before)")
    }

    /// Two 4 s videos of different solid colours, `crossfade: 2s`: 6 s in all; from 2 s to
    /// 4 s each frame is a blend of green and blue, blue's share rising to about a half
    /// at 3 s; green before, blue after.
    func testPicturesDissolveOverTheCrossfade() throws {
        let dir = try makeTempDir()
        try TestMedia.makeColorVideo(in: dir, name: "green.mp4", seconds: 4, color: "green", freq: 440)
        try TestMedia.makeColorVideo(in: dir, name: "blue.mp4", seconds: 4, color: "blue", freq: 880)
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.video(players: [player(["green.mp4", "blue.mp4"], crossfade: "2s")], output: out)
        let r = try runPreset(yaml, in: dir)
        XCTAssertEqual(r.status, 0, r.summary("two colours crossfading"))

        let frames = try MediaProbe.frameStats(out.path)
        XCTAssertEqual(Double(frames.count), 150, accuracy: 2, "4 s + 4 s less 2 s at 25 fps")
        let green = try XCTUnwrap(frames.first), blue = try XCTUnwrap(frames.last)
        XCTAssertGreaterThan(abs(blue.uavg - green.uavg), 100, "two different pictures")
        // Blue's share of each frame, from U (Y and V must agree with it).
        func share(_ f: FrameStat) -> Double { (f.uavg - green.uavg) / (blue.uavg - green.uavg) }
        let window = frames.filter { $0.pts > 2.05 && $0.pts < 3.95 }
        XCTAssertGreaterThan(window.count, 40)
        for f in window {
            let w = share(f)
            XCTAssertTrue(w > 0.01 && w < 0.99, String(format: "%.2f s: a blend, not one picture (%.2f)", f.pts, w))
            XCTAssertEqual(f.yavg, green.yavg + w * (blue.yavg - green.yavg), accuracy: 3, String(format: "Y at %.2f s", f.pts))
            XCTAssertEqual(f.vavg, green.vavg + w * (blue.vavg - green.vavg), accuracy: 3, String(format: "V at %.2f s", f.pts))
        }
        let falls = zip(window.dropFirst(), window).filter { share($0.0) < share($0.1) - 0.01 }.map(\.0.pts)
        XCTAssertEqual(falls, [], "blue's share only rises")
        let middle = try XCTUnwrap(frames.min { abs($0.pts - 3) < abs($1.pts - 3) })
        XCTAssertEqual(share(middle), 0.5, accuracy: 0.08, "half and half at the middle")
        XCTAssertTrue(frames.filter { $0.pts < 1.95 }.allSatisfy { share($0) < 0.01 }, "green before the fade")
        XCTAssertTrue(frames.filter { $0.pts > 4.05 }.allSatisfy { share($0) > 0.99 }, "blue after the fade")
    }

    /// A 1 s item between two 3 s ones, `crossfade: 2s`: each fade is 0.5 s (half the short
    /// item), so it plays whole, at its full level at its middle; 6 s in all.
    func testAnItemShorterThanTwiceTheFadePlaysWholeWithShorterFades() throws {
        let dir = try makeTempDir()
        try tone(dir, "a.wav", 440, 3)
        try tone(dir, "short.wav", 880, 1)
        try tone(dir, "c.wav", 660, 3)
        let out = dir.appendingPathComponent("out.mkv")
        let yaml = PlayerPreset.audioOnly(players: [player(["a.wav", "short.wav", "c.wav"], crossfade: "2s")], output: out)
        let r = try runPreset(yaml, in: dir)
        XCTAssertEqual(r.status, 0, r.summary("a short item between two"))

        // 3 + 1 + 3 s less two 0.5 s fades.
        let pcm = try assertRecording(out, seconds: 6, fades: [(2.5, 3, 440, 880), (3, 3.5, 880, 660)])
        let steady = MediaProbe.toneLevelDB(MediaProbe.slice(pcm, rate: rate, from: 0.3, to: 0.9), rate: rate, freq: 440)
        let peak = MediaProbe.toneLevelDB(MediaProbe.slice(pcm, rate: rate, from: 2.98, to: 3.02), rate: rate, freq: 880)
        XCTAssertEqual(peak - steady, 0, accuracy: 1, "the short item at its full level at its middle")
    }

    /// `next` 1 s into a 4 s 440 Hz item of a playlist with `crossfade: 2s` (what `ctl next`
    /// calls, on the output's second 1): the 440 Hz item fades out from where it is over
    /// 1 s to 3 s while the 880 Hz item fades in from its start; 1 s + 4 s in all.
    func testNextCrossfadesFromWhereTheItemIs() throws {
        let dir = try makeTempDir()
        try tone(dir, "a.wav", 440, 4)
        try tone(dir, "b.wav", 880, 4)
        let out = dir.appendingPathComponent("out.mkv")
        let yaml = PlayerPreset.audioOnly(players: [player(["a.wav", "b.wav"], crossfade: "2s")], output: out)
        let b = try makeBroadcast(yaml, in: dir)
        b.atOutputTime(1.0) { $0.player("main")?.next() }
        guard let result = runBounded(b, timeout: 90) else { return }
        XCTAssertEqual(result.exitCode, 0, result.reason)

        // 1 s of the first item, then all 4 s of the second.
        try assertRecording(out, seconds: 5, accuracy: 0.1, fades: [(1, 3, 440, 880)])
    }
}

// Crossfades at their edges (docs/presets.md, Crossfades): a shuffled playlist fades at
// the end of a pass too, a skip while a fade is on fades the item it drops out
// quickly (no click), and frame taps get what a tick publishes while the next item loads.
// A player rendered tick by tick as the capture does (20 ms ticks, as fast as possible
// unless said), its PCM judged sample by sample.

import Foundation
import XCTest
@testable import MediaPub

final class CrossfadeEdgeTests: XCTestCase {
    private let rate = 44100
    private let format = MediaFormat(sampleRate: 44100, channels: 2, video: nil)

    /// A stereo WAV of `expr` (an ffmpeg aevalsrc expression of t), `seconds` long.
    private func wav(_ dir: URL, _ name: String, _ expr: String, _ seconds: Double) throws -> String {
        let url = dir.appendingPathComponent(name)
        try TestMedia.ffmpegRun(["-f", "lavfi", "-i", "aevalsrc=\(expr):s=\(rate):d=\(seconds)",
                                 "-ac", "2", "-c:a", "pcm_s16le", url.path])
        return url.path
    }

    private func player(_ items: [String], mode: PlaylistMode, crossfade: Double) -> MediaPlayer {
        let list = PlaylistConfig(items: items, mode: mode, crossfade: CrossfadeConfig(seconds: crossfade, curve: .equalPower))
        return MediaPlayer(config: PlayerConfig(id: "p", playlist: list), format: format, feedsVideo: false)
    }

    /// One tick of `p` (tick `n`), as the capture asks it: the interleaved PCM it gives.
    private func tick(_ p: MediaPlayer, _ n: UInt64, wait: Double = 10) -> [Float] {
        let clock = format.tickClock
        let frames = Int(clock.audioFrames(atTick: n + 1) - clock.audioFrames(atTick: n))
        var out = [Float](repeating: 0, count: frames * format.channels)
        let r = out.withUnsafeMutableBufferPointer {
            p.render(frames: frames, tick: clock.time(ofTick: n + 1) - clock.time(ofTick: n), at: n, into: $0.baseAddress!, wait: wait)
        }
        return Array(out[0..<(r.audioFrames * format.channels)])
    }

    /// `ticks` ticks of `p` from its start, as fast as possible, `before[n]` run before tick n.
    /// Returns the left channel, each tick padded to its length (a tick's silence is silence).
    private func run(_ p: MediaPlayer, ticks: UInt64, before: [UInt64: () -> Void] = [:]) -> [Float] {
        p.start()
        var left: [Float] = []
        for n in 0..<ticks {
            before[n]?()
            let pcm = tick(p, n)
            let frames = Int(format.tickClock.audioFrames(atTick: n + 1) - format.tickClock.audioFrames(atTick: n))
            left += stride(from: 0, to: pcm.count, by: 2).map { pcm[$0] }
            left += [Float](repeating: 0, count: max(0, frames - pcm.count / 2))
        }
        p.stop()
        return left
    }

    private func level(_ pcm: [Float], _ freq: Double, at t: Double) -> Double {
        MediaProbe.toneLevelDB(MediaProbe.slice(pcm, rate: rate, from: t - 0.05, to: t + 0.05), rate: rate, freq: freq)
    }

    /// Two 3 s items shuffled with `crossfade: 1s`: each next item starts 1 s before the one
    /// before ends, also the next pass's first (drawn as the pass's last item starts, never
    /// the item just played): over 4 s to 5 s both tones sound, each about 3 dB down.
    func testAShuffledPlaylistCrossfadesIntoItsNextPass() throws {
        let dir = try makeTempDir()
        let a = try wav(dir, "a.wav", "0.25*sin(2*PI*440*t)", 3), b = try wav(dir, "b.wav", "0.25*sin(2*PI*880*t)", 3)
        let pcm = run(player([a, b], mode: .shuffle, crossfade: 1), ticks: 260)
        let first = level(pcm, 440, at: 0.5) > level(pcm, 880, at: 0.5) ? 440.0 : 880.0, second = first == 440 ? 880.0 : 440.0
        let steady = level(pcm, first, at: 0.5)
        XCTAssertLessThan(level(pcm, second, at: 0.5) - steady, -40, "one item at first")
        for (t, outgoing, incoming) in [(2.5, first, second), (4.5, second, first)] {
            XCTAssertEqual(level(pcm, outgoing, at: t) - steady, -3, accuracy: 1, "\(outgoing) Hz fading out at \(t) s")
            XCTAssertEqual(level(pcm, incoming, at: t) - steady, -3, accuracy: 1, "\(incoming) Hz fading in at \(t) s")
        }
        XCTAssertLessThan(level(pcm, second, at: 5.15) - steady, -40, "the second pass began with \(first) Hz, not the item just played")
    }

    /// Five items of constant levels (their sound has no steps), `crossfade: 2s`: `next` at
    /// 1 s and again at 1.2 s while the first fade is on, then twice in a row at 2.4 s (the
    /// item the first opens never sounds). The item dropped from its fade goes out quickly,
    /// the one fading in goes out from the gain it had reached, and the one fading out under
    /// a skipped item goes on fading: no step from one sample to the next larger than a
    /// gain's glide gives, and the last item at its level once the fades are over.
    func testSkipsDuringAFadeDoNotClick() throws {
        let dir = try makeTempDir()
        let levels = ["0.25", "-0.25", "0.2", "0.1", "-0.2"]
        let items = try levels.enumerated().map { try wav(dir, "\($0.offset).wav", $0.element, 4) }
        let p = player(items, mode: .once, crossfade: 2)
        let pcm = run(p, ticks: 250, before: [50: { p.next() }, 60: { p.next() }, 120: { p.next(); p.next() }])
        let steps = zip(pcm.dropFirst(), pcm).map { abs($0 - $1) }
        let largest = steps.enumerated().max { $0.element < $1.element }
        XCTAssertLessThan(largest?.element ?? 1, 0.01,
                          String(format: "a step of %.3f at %.3f s", largest?.element ?? 1, Double(largest?.offset ?? 0) / Double(rate)))
        // The levels as decoded (a mono source spread over two channels), the last item's -0.8 of the first's.
        let first = Double(pcm[Int(0.5 * Double(rate))]), last = Double(pcm[Int(4.6 * Double(rate))])
        XCTAssertGreaterThan(first, 0.1, "the first item before the skips")
        XCTAssertEqual(last, -0.8 * first, accuracy: 0.01, "the last item once its fade is over")
    }

    /// A skip whose next item is not ready at the next tick (realtime: a tick waits for
    /// nothing): the outgoing item goes on alone in that tick, and the audio taps get it,
    /// exactly what the player gives the capture.
    func testTapsGetTheTicksWhileTheNextItemLoads() throws {
        let dir = try makeTempDir()
        let a = try wav(dir, "a.wav", "0.25*sin(2*PI*440*t)", 4), b = try wav(dir, "b.wav", "0.25*sin(2*PI*880*t)", 4)
        let p = player([a, b], mode: .once, crossfade: 2)
        let tapped = Collector<AudioFrame>()
        p.addAudioTap { tapped.add($0) }
        p.start()
        var given: [Float] = []
        for n in UInt64(0)..<25 { given += tick(p, n) }
        p.next()
        XCTAssertFalse(p.state.withLock { $0.currentReady }, "the next item is still loading")
        let alone = tick(p, 25, wait: 0)
        XCTAssertFalse(alone.isEmpty, "the outgoing item sounds while the next one loads")
        given += alone
        for n in UInt64(26)..<40 { given += tick(p, n) }
        p.stop()
        XCTAssertEqual(tapped.all.flatMap(\.samples).count, given.count, "the taps got as many samples as the capture")
        XCTAssertTrue(tapped.all.flatMap(\.samples) == given, "the taps got the samples the capture did")
    }
}

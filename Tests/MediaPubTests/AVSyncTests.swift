// Custom capture (issue 4): A/V sync holds over many item changes. A 0.48 s
// item with a white flash and a 1 kHz beep at its start, listed 100 times in
// a playlist: in the recording, every flash (luma jump, ffmpeg signalstats)
// and its beep (onset in PCM decoded by ffmpeg) are within one frame.

import Foundation
import XCTest

final class AVSyncTests: XCTestCase {

    func testFlashAndBeepStayWithinOneFrameOverAHundredItems() throws {
        let dir = try makeTempDir()
        let item = try TestMedia.makeFlashBeepItem(in: dir, name: "item.mkv", seconds: 0.48, fps: 25, flashFrames: 2)
        let out = dir.appendingPathComponent("out.mp4")
        let items = Array(repeating: "\"\(item.lastPathComponent)\"", count: 100).joined(separator: ", ")
        let yaml = """
        name: sync
        video:
          size: 160x90
          fps: 25
          bitrate: 300k
          keyframe_interval: 1s
          encoder_preset: ultrafast
        audio:
          sample_rate: 48000
          channels: 2
          bitrate: 128k
        players:
          - id: main
            video: true
            playlist:
              mode: once
              items: [\(items)]
        outputs:
          - url: "file://\(out.path)"
        """
        let r = try runPreset(yaml, in: dir, timeout: 150)
        XCTAssertEqual(r.status, 0, r.summary("mediapub 100-item playlist"))
        let p = try assertH264AAC(out.path)
        XCTAssertEqual(p.duration ?? 0, 48, accuracy: 1.0, "100 items of 0.48 s (12 frames): \(p.rawJSON)")

        let frame = 1.0 / 25
        let stats = try MediaProbe.frameStats(out.path)
        var flashes: [Double] = []
        for (i, f) in stats.enumerated() where f.yavg > 128 && (i == 0 || stats[i - 1].yavg <= 128) {
            flashes.append(f.pts)
        }
        let audioStart = try MediaProbe.streamStartTime(out.path, type: "audio")
        let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
        let beeps = MediaProbe.onsets(pcm, rate: 16000, thresholdDB: -35, quiet: 0.2).map { $0 + audioStart }

        XCTAssertEqual(flashes.count, 100, "one flash per item: \(flashes.prefix(5))…")
        XCTAssertEqual(beeps.count, 100, "one beep per item: \(beeps.prefix(5))…")
        var worst = 0.0
        var bad: [String] = []
        for (k, flash) in flashes.enumerated() {
            guard let beep = beeps.min(by: { abs($0 - flash) < abs($1 - flash) }) else { break }
            let d = flash - beep
            worst = max(worst, abs(d))
            // One frame, plus 5 ms for where within a 2 ms hop the onset is found.
            if abs(d) > frame + 0.005 { bad.append(String(format: "item %d: flash %.3f beep %.3f (%+.0f ms)", k, flash, beep, d * 1000)) }
        }
        XCTAssertTrue(bad.isEmpty, "A/V offset over one frame (worst \(Int(worst * 1000)) ms): \(bad.prefix(10))")
    }
}

// Custom capture: A/V sync holds over many item changes. A short
// item with a white flash and a 1 kHz beep at its start, listed 100 times in
// a playlist: in the recording, every flash (luma jump, ffmpeg signalstats)
// and its beep (onset in PCM decoded by ffmpeg) are within half a frame, both
// when sound and picture are the same length (PCM in MKV) and when they are
// not (AAC in MP4, so item changes fall anywhere within a tick).

import Foundation
import XCTest

final class AVSyncTests: XCTestCase {

    func testFlashAndBeepStayWithinHalfAFrameOverAHundredItems() throws {
        let dir = try makeTempDir()
        let item = try TestMedia.makeFlashBeepItem(in: dir, name: "item.mkv", seconds: 0.48, fps: 25, flashFrames: 2)
        try assertInSync(playing: item, times: 100, in: dir, seconds: 47...49, meanWithin: 0.003)
    }

    /// AAC in MP4 decodes to a little less or more audio than the item's picture lasts,
    /// so item changes fall anywhere within a tick, not on its edges: the picture still
    /// follows the sound to the nearest frame.
    func testItemsWhoseSoundAndPictureDifferInLengthStayWithinHalfAFrame() throws {
        let dir = try makeTempDir()
        let item = try TestMedia.makeFlashBeepItem(in: dir, name: "item.mp4", seconds: 0.53, fps: 25, flashFrames: 2,
                                                   audioCodec: ["-c:a", "aac", "-b:a", "128k"])
        // The sound is each item's clock: GStreamer decodes 0.512 s of this AAC (ffmpeg
        // 0.533 s) against 13 frames (0.52 s) of picture.
        try assertInSync(playing: item, times: 100, in: dir, seconds: 50...54)
    }

    /// With B-frames (tune: quality) pictures are decoded before they are shown and the
    /// recording starts its sound before its first picture: the flashes still meet their beeps.
    /// The first item's flash is in the four pictures not encoded before the first keyframe.
    func testWithBFramesFlashAndBeepStayWithinHalfAFrame() throws {
        let dir = try makeTempDir()
        let item = try TestMedia.makeFlashBeepItem(in: dir, name: "item.mkv", seconds: 0.48, fps: 25, flashFrames: 2)
        try assertInSync(playing: item, times: 40, in: dir, seconds: 18.5...19.5, video: "tune: quality", flashesLost: 1)
    }

    /// Plays `item` `times` times in a playlist into an MP4, then pairs every flash
    /// (luma jump, ffmpeg signalstats) with the nearest beep (onset in PCM decoded by
    /// ffmpeg) and fails on any pair more than half a frame apart (the nearest frame), and,
    /// with `meanWithin`, when the offsets' mean is further from 0 than that: nothing on the
    /// way (the limiter's lookahead, the encoder) leaves the sound late on its picture.
    private func assertInSync(playing item: URL, times: Int, in dir: URL, seconds: ClosedRange<Double>,
                              video extra: String = "", flashesLost: Int = 0, meanWithin: Double? = nil,
                              file: StaticString = #filePath, line: UInt = #line) throws {
        let out = dir.appendingPathComponent("out.mp4")
        let items = Array(repeating: "\"\(item.lastPathComponent)\"", count: times).joined(separator: ", ")
        let yaml = """
        name: sync
        video:
          size: 160x90
          fps: 25
          bitrate: 300k
          keyframe_interval: 1s
          encoder_preset: ultrafast
        \(extra.isEmpty ? "" : "  " + extra)
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
        XCTAssertEqual(r.status, 0, r.summary("mediapub \(times)-item playlist"), file: file, line: line)
        let p = try assertH264AAC(out.path)
        XCTAssertTrue(seconds.contains(p.duration ?? 0), "\(times) items last \(seconds) s: \(p.rawJSON)", file: file, line: line)

        let frame = 1.0 / 25
        let stats = try MediaProbe.frameStats(out.path)
        var flashes: [Double] = []
        for (i, f) in stats.enumerated() where f.yavg > 128 && (i == 0 || stats[i - 1].yavg <= 128) {
            flashes.append(f.pts)
        }
        let audioStart = try MediaProbe.streamStartTime(out.path, type: "audio")
        let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
        let beeps = MediaProbe.onsets(pcm, rate: 16000, thresholdDB: -35, quiet: 0.2).map { $0 + audioStart }

        XCTAssertEqual(flashes.count, times - flashesLost, "one flash per item: \(flashes.prefix(5))…", file: file, line: line)
        XCTAssertEqual(beeps.count, times, "one beep per item: \(beeps.prefix(5))…", file: file, line: line)
        var worst = 0.0
        var offsets: [Double] = []
        var bad: [String] = []
        for (k, flash) in flashes.enumerated() {
            guard let beep = beeps.min(by: { abs($0 - flash) < abs($1 - flash) }) else { break }
            let d = flash - beep
            offsets.append(d)
            worst = max(worst, abs(d))
            // Each tick shows the picture due at its middle: never more than half a frame
            // off, plus 5 ms for where within a 2 ms hop the onset is found.
            if abs(d) > frame / 2 + 0.005 { bad.append(String(format: "item %d: flash %.3f beep %.3f (%+.0f ms)", k, flash, beep, d * 1000)) }
        }
        let mean = offsets.reduce(0, +) / Double(max(1, offsets.count))
        print(String(format: "A/V offset over %d items: mean %+.1f ms, worst %.1f ms, range %+.0f..%+.0f ms", offsets.count,
                     mean * 1000, worst * 1000, (offsets.min() ?? 0) * 1000, (offsets.max() ?? 0) * 1000))
        if let meanWithin {
            XCTAssertEqual(mean, 0, accuracy: meanWithin, "the sound's mean offset on its picture", file: file, line: line)
        }
        XCTAssertTrue(bad.isEmpty, "A/V offset over half a frame (worst \(Int(worst * 1000)) ms): \(bad.prefix(10))", file: file, line: line)
    }
}

import Foundation
import XCTest
@testable import MediaPub

/// A run that ends with its content (stop.at_end, docs/presets.md) ends on the
/// content's last picture: the last tick, which holds the end of the sound, shows
/// the content's picture, never the standby slate, with the checks of `monitor:` or
/// without. The source's sound (PCM, sample-exact) outlasts its picture by a third of
/// a second and ends in the first half of a tick, where no new picture is due.
final class ContentEndTests: XCTestCase {
    func testTheLastFrameOfARunEndingWithItsContentIsTheContents() throws {
        let dir = try makeTempDir("contentend")
        let source = dir.appendingPathComponent("red.mkv")
        try TestMedia.ffmpegRun([
            "-f", "lavfi", "-i", "color=c=red:s=320x180:r=25:d=1",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=1.33",
            "-map", "0:v", "-map", "1:a", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
            "-c:a", "pcm_s16le", "-ac", "2", source.path,
        ])
        for (label, monitor) in [("plain", ""), ("monitor", "monitor: { silence: { for: 10s } }")] {
            let out = dir.appendingPathComponent("\(label).mkv")
            let yaml = PlayerPreset.video(players: [PlayerPreset.player("main", source: source.path)], output: out,
                                          extra: "standby: { color: blue }\n" + monitor)
            let run = try runPreset(yaml, in: dir, name: "\(label).yaml")
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertTrue(run.stderr.contains("content ended"), run.stderr)
            let stats = try MediaProbe.frameStats(out.path)
            // 1.33 s of sound: 34 ticks, the last one partly filled.
            XCTAssertEqual(stats.count, 34, label)
            XCTAssertTrue(stats.allSatisfy(\.looksRed), "\(label): frames not the content's: "
                          + "\(stats.enumerated().filter { !$0.element.looksRed }.map { "\($0.offset): \($0.element)" })")
        }
    }
}

import XCTest
@testable import MediaPub
@testable import MediaPubTestSupport

/// The encoder keys of a preset's video section (docs/presets.md, video): `tune`, `bframes` and
/// `profile`, their defaults, ranges and the combinations that are refused, each at
/// its file, line and key. Pure: no pipelines.
final class VideoEncoderPresetTests: XCTestCase {
    typealias K = PresetTestKit

    private func video(_ lines: String, overrides: [String] = []) throws -> VideoConfig {
        let yaml = "video:\n" + lines.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
            + "\nplayers:\n  - source: a.mp4\n"
        return try XCTUnwrap(try K.load(yaml, overrides: overrides).video)
    }

    private func problems(_ lines: String) -> [String] {
        let yaml = "video:\n" + lines.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
            + "\nplayers:\n  - source: a.mp4\n"
        return K.problems(yaml).map(\.description)
    }

    func testDefaultsAreZeroLatencyHighProfileWithoutBFrames() throws {
        let v = try video("fps: 30")
        XCTAssertEqual(v.tune, .zerolatency)
        XCTAssertEqual(v.profile, .high)
        XCTAssertEqual(v.bframes, 0)
    }

    func testQualityGivesTwoBFramesUnlessTheProfileOrEncoderHasNone() throws {
        XCTAssertEqual(try video("tune: quality").bframes, 2)
        XCTAssertEqual(try video("tune: quality\nbframes: 4").bframes, 4)
        XCTAssertEqual(try video("tune: quality\nbframes: 0").bframes, 0)
        XCTAssertEqual(try video("tune: quality\nprofile: baseline").bframes, 0)
        XCTAssertEqual(try video("tune: quality\nencoder: openh264").bframes, 0)
        XCTAssertEqual(try video("tune: quality\nencoder: v4l2").bframes, 0)
        XCTAssertEqual(try video("tune: quality\nencoder: nvenc").bframes, 2)
        // Explicit B-frames win over zerolatency (as x264's own --bframes does).
        XCTAssertEqual(try video("bframes: 3").bframes, 3)
        XCTAssertEqual(try video("fps: 30", overrides: ["video.tune=quality", "video.profile=main"]).bframes, 2)
    }

    func testBadValuesAreNamedWithFileLineAndKey() {
        XCTAssertEqual(problems("fps: 30\ntune: film\nprofile: extended\nbframes: 17"), [
            "presets/t.yaml:3: video.tune: \"film\" is not one of zerolatency, quality",
            "presets/t.yaml:4: video.profile: \"extended\" is not one of baseline, main, high",
            "presets/t.yaml:5: video.bframes: 17 is out of range 0..16",
        ])
        XCTAssertEqual(problems("bframes: -1"), ["presets/t.yaml:2: video.bframes: -1 is out of range 0..16"])
        XCTAssertEqual(problems("bframes: two"), ["presets/t.yaml:2: video.bframes: \"two\" is not a whole number"])
    }

    func testBFramesAreRefusedWhereThereAreNone() {
        XCTAssertEqual(problems("profile: baseline\nbframes: 2"), [
            "presets/t.yaml:3: video.bframes: the baseline profile has no B-frames (use profile: main or high, or bframes: 0)",
        ])
        XCTAssertEqual(problems("encoder: openh264\nbframes: 1"), [
            "presets/t.yaml:3: video.bframes: openh264 makes no B-frames (use encoder: x264, or bframes: 0)",
        ])
        XCTAssertEqual(problems("encoder: v4l2\ntune: quality\nbframes: 2"), [
            "presets/t.yaml:4: video.bframes: v4l2 makes no B-frames (use encoder: x264, or bframes: 0)",
        ])
        XCTAssertEqual(problems("encoder: nvenc\nbframes: 5"), [
            "presets/t.yaml:3: video.bframes: 5 is more than nvenc makes (at most 4)",
        ])
    }

    func testTheResolvedPresetWritesTheEncoderKeys() throws {
        let yaml = "video:\n  tune: quality\n  profile: main\nplayers:\n  - source: a.mp4\n"
        let p = try K.load(yaml)
        let resolved = p.resolvedYAML(maskSecrets: false)
        for line in ["  encoder: x264", "  tune: quality", "  profile: main", "  bframes: 2"] {
            XCTAssertTrue(resolved.contains(line + "\n"), "\(line) in\n\(resolved)")
        }
        XCTAssertEqual(try K.load(resolved), p)
    }

    /// An MP4 file starts its tracks apart: cut into segments, every file after the first
    /// would show its pictures the B-frames' reorder delay late. MKV and MPEG-TS keep time.
    func testSegmentedMP4RecordingsTakeNoBFrames() throws {
        let yaml = { (video: String, url: String) in
            "video: {\(video)}\nplayers:\n  - source: a.mp4\noutputs:\n  - url: \(url)\n    segment: 1h\n"
        }
        XCTAssertEqual(K.problems(yaml("tune: quality", "/rec/a-%H.mp4")).map(\.description), [
            "presets/t.yaml:6: outputs[0].segment: MP4 files cut into segments lose their sync with B-frames "
                + "(video.bframes: 2); use .mkv or .ts, or video.bframes: 0",
        ])
        XCTAssertEqual(try K.load(yaml("tune: quality, bframes: 0", "/rec/a-%H.mp4")).outputs[0].segment, 3600)
        XCTAssertEqual(try K.load(yaml("tune: quality", "/rec/a-%H.ts")).video?.bframes, 2)
        XCTAssertEqual(try K.load(yaml("tune: quality", "/rec/a-%H.mkv")).video?.bframes, 2)
    }
}

// Custom capture (docs/design.md, the frame's path): nothing a player does breaks the output
// timeline. In one realtime recording the video player is paused, resumed,
// seeked, sped up, slowed down, given a missing source (refused: it plays on) and
// then a good one; the file must stay one unbroken timeline (checked with
// ffprobe/ffmpeg).

import Foundation
import XCTest
@testable import MediaPub

final class TimelineContinuityTests: XCTestCase {

    func testPauseSeekSpeedAndFailedLoadNeverBreakTheTimeline() throws {
        let dir = try makeTempDir()
        // Each longer than it plays: blue reaches 13.5 s by 7 s (the seek to 8 s, a second at twice the speed), green 3 s.
        try TestMedia.makeColorVideo(in: dir, name: "blue.mp4", seconds: 16, color: "blue", freq: 440)
        try TestMedia.makeColorVideo(in: dir, name: "green.mp4", seconds: 6, color: "green", freq: 660)
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.video(players: [PlayerPreset.player("main", source: "blue.mp4", ["video: true"])],
                                      output: out, extra: "standby:\n  color: \"#FF0000\"")
        let b = try makeBroadcast(yaml, in: dir, duration: 10, realtime: true)
        let player = try XCTUnwrap(b.player("main"))
        b.atOutputTime(1.0) { _ in player.pause() }
        b.atOutputTime(1.8) { _ in player.resume() }
        b.atOutputTime(2.5) { _ in _ = player.seek(toMs: 8000) }
        b.atOutputTime(3.5) { _ in try? player.setSpeed(2.0) }
        b.atOutputTime(4.5) { _ in try? player.setSpeed(1.0) }
        b.atOutputTime(5.5) { _ in player.load(source: dir.appendingPathComponent("missing.mp4").path) }
        b.atOutputTime(7.0) { _ in player.load(source: dir.appendingPathComponent("green.mp4").path) }
        guard let result = runBounded(b, timeout: 60) else { return }
        XCTAssertEqual(result.exitCode, 0, "run: \(result.reason)")

        let stats = try assertUnbrokenTimeline(out.path, seconds: 10)
        try assertDecodesCleanly(out.path)

        func frames(_ from: Double, _ to: Double) -> [FrameStat] { stats.filter { $0.pts >= from && $0.pts < to } }
        let isBlue: (FrameStat) -> Bool = { $0.uavg > 200 }
        let isGreen: (FrameStat) -> Bool = { $0.uavg < 110 && $0.vavg < 110 }  // #008000: Y≈81 U≈91 V≈81
        XCTAssertTrue(frames(0.2, 5.4).allSatisfy(isBlue), "the blue source plays (paused, seeked, sped) until the load")
        XCTAssertTrue(frames(5.4, 7.0).allSatisfy(isBlue), "a load of a missing file changes nothing: blue plays on")
        XCTAssertTrue(frames(7.6, 10).allSatisfy(isGreen), "the good source plays after it is loaded: \(frames(7.0, 10).map { String(format: "%.2f:%.0f/%.0f/%.0f", $0.pts, $0.yavg, $0.uavg, $0.vavg) })")
        XCTAssertEqual(player.currentState, .stopped, "stopped at the end of the run")
    }

    /// Items with pictures and no sound, back to back: each output frame is the next
    /// source frame, none shown twice or left out at the item changes. Each item is
    /// a 1 s luma clock (Y rises 7.2 per frame), so a repeated frame is a zero step.
    func testSilentVideoItemsFollowEachOtherFrameByFrame() throws {
        let dir = try makeTempDir()
        for name in ["a.mp4", "b.mp4", "c.mp4"] {
            try TestMedia.makeLumaClock(in: dir, name: name, seconds: 1, lumaBase: 40, lumaPerSecond: 180, withSound: false)
        }
        let out = dir.appendingPathComponent("out.mp4")
        let player = "  - id: main\n    video: true\n    playlist:\n      mode: once\n      items: [a.mp4, b.mp4, c.mp4]\n"
        let r = try runPreset(PlayerPreset.video(players: [player], output: out), in: dir)
        XCTAssertEqual(r.status, 0, r.summary("three silent video items"))
        let stats = try MediaProbe.frameStats(out.path)
        XCTAssertEqual(stats.count, 75, accuracy: 1, "three 1 s items at 25 fps")
        let steps = zip(stats, stats.dropFirst()).map { $1.yavg - $0.yavg }
        let repeats = steps.enumerated().filter { abs($0.element) < 3 }.map { String(format: "%.2f s", stats[$0.offset + 1].pts) }
        XCTAssertTrue(repeats.isEmpty, "frames shown twice at \(repeats): \(stats.prefix(30).map { Int($0.yavg) })")
        let restarts = steps.filter { $0 < -100 }.count
        XCTAssertEqual(restarts, 2, "the clock starts over at each of the two item changes: \(stats.map { Int($0.yavg) })")
    }
}

// Gapless item changes: a prerolled next item starts on the frame and
// the sample its predecessor ends, and is never reported as loading; MP3 items
// lose their encoder delay and padding (as ffmpeg trims them from the LAME tag),
// so a playlist of MP3 cuts of one continuous tone, or a repeating MP3, plays as
// one continuous tone. Checked with ffmpeg's signalstats (every frame's colour)
// and numeric analysis of the recording's PCM.

import Foundation
import XCTest

final class GaplessItemTests: XCTestCase {

    private func events(_ all: [[String: Any]], _ name: String) -> [[String: Any]] {
        all.filter { $0["event"] as? String == name && $0["player"] as? String == "main" }
    }

    private func playlistPlayer(_ items: [String], _ fields: [String] = []) -> String {
        "  - id: main\n" + fields.map { "    \($0)\n" }.joined()
            + "    playlist:\n      mode: once\n      items: [\(items.joined(separator: ", "))]\n"
    }

    /// 10 ms windows of `pcm` (44.1 kHz mono) more than 30 dB below the median
    /// window, leaving out `margin` seconds at each end (the output encoder's
    /// priming at the start, the end of the content and the encoder's padding at
    /// the end). Times in s.
    private func dips(_ pcm: [Float], margin: Double = 0.1) -> [Double] {
        let levels = MediaProbe.windowRMSDB(pcm, rate: 44100, window: 0.01)
        guard !levels.isEmpty else { return [] }
        let median = levels.sorted()[levels.count / 2]
        let skip = Int(margin / 0.01)
        return levels.enumerated()
            .filter { $0.offset >= skip && $0.offset < levels.count - skip && $0.element < median - 30 }
            .map { Double($0.offset) * 0.01 }
    }

    /// A playlist of short prerolled items in realtime: one loading → playing at the
    /// start, one player.track per item, no loading/playing pair at any item change.
    func testPrerolledItemsAreNotReportedAsLoading() throws {
        let dir = try makeTempDir()
        let colours = ["green", "blue", "yellow", "magenta", "cyan", "white"]
        for (i, c) in colours.enumerated() {
            try TestMedia.makeColorVideo(in: dir, name: "\(c).mp4", seconds: 0.5, color: c, freq: 300 + 100 * Double(i))
        }
        let out = dir.appendingPathComponent("out.mp4")
        let log = dir.appendingPathComponent("events.jsonl")
        let yaml = PlayerPreset.video(players: [playlistPlayer(colours.map { "\($0).mp4" }, ["video: true"])], output: out)
        let r = try runPreset(yaml, in: dir, args: ["--realtime", "--events", log.path])
        XCTAssertEqual(r.status, 0, r.summary("six short items"))
        let all = try EventLog.read(log)
        let states = events(all, "player.state").compactMap { $0["state"] as? String }
        XCTAssertEqual(Array(states.prefix(3)), ["loading", "playing", "ended"],
                       "loading once, then playing through every item change: \(states)")
        let tracks = events(all, "player.track").compactMap { ($0["index"] as? NSNumber)?.intValue }
        XCTAssertEqual(tracks, Array(0..<colours.count), "one player.track per item, in order")
    }

    /// Realtime on a busy machine (two `yes` processes on the CI's two cores): every
    /// frame at every item change is the items' own colour (never the red slate
    /// nor black), the sound has no dip, and the player never reports loading again.
    func testRealtimeVideoPlaylistUnderLoadHasNoSlateOrSilenceAtItemChanges() throws {
        let dir = try makeTempDir()
        let colours = ["green", "blue", "yellow", "magenta"]
        for c in colours {
            try TestMedia.makeColorVideo(in: dir, name: "\(c).mp4", seconds: 0.6, color: c, freq: 440)
        }
        let items = (0..<10).map { "\(colours[$0 % colours.count]).mp4" }
        // Busy loops for the run's length: `exec` so that the killed process is `yes` itself.
        for _ in 0..<2 { _ = try startTool("sh", ["-c", "exec yes > /dev/null"]) }
        let out = dir.appendingPathComponent("out.mp4")
        let log = dir.appendingPathComponent("events.jsonl")
        let yaml = PlayerPreset.video(players: [playlistPlayer(items, ["video: true"])], output: out,
                                      extra: "standby:\n  color: \"#FF0000\"")
        let r = try runPreset(yaml, in: dir, args: ["--realtime", "--events", log.path])
        XCTAssertEqual(r.status, 0, r.summary("ten items in realtime under load"))

        let stats = try MediaProbe.frameStats(out.path)
        XCTAssertGreaterThan(stats.count, 140, "ten 0.6 s items at 25 fps")
        // The content ends within the last tick: that last frame is the end, not an item change.
        let wrong = stats.dropLast().filter { $0.looksRed || $0.yavg < 30 }
            .map { String(format: "%.2f s Y%.0f U%.0f V%.0f", $0.pts, $0.yavg, $0.uavg, $0.vavg) }
        XCTAssertTrue(wrong.isEmpty, "slate or black frames: \(wrong)")
        let pcm = try MediaProbe.decodePCM(out.path, rate: 44100)
        XCTAssertEqual(dips(pcm), [], "10 ms windows 30 dB below the tone's level")
        let states = events(try EventLog.read(log), "player.state").compactMap { $0["state"] as? String }
        XCTAssertEqual(states.filter { $0 == "loading" }.count, 1, "loading only at the start: \(states)")
    }

    /// Three MP3s cut sample-exactly from one continuous 3 s tone: played one after
    /// the other they are that tone again, 3 s long (not 3 × 1.045 s), with no dip.
    func testMP3PlaylistIsOneContinuousTone() throws {
        let dir = try makeTempDir()
        for i in 0..<3 {
            try TestMedia.ffmpegRun([
                "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=3",
                "-af", "atrim=start_sample=\(i * 44100):end_sample=\((i + 1) * 44100)",
                "-ac", "2", "-c:a", "libmp3lame", "-b:a", "128k", dir.appendingPathComponent("part\(i).mp3").path,
            ])
        }
        let out = dir.appendingPathComponent("out.mkv")
        let yaml = PlayerPreset.audioOnly(players: [playlistPlayer(["part0.mp3", "part1.mp3", "part2.mp3"])], output: out)
        let r = try runPreset(yaml, in: dir)
        XCTAssertEqual(r.status, 0, r.summary("three MP3 items"))
        let pcm = try MediaProbe.decodePCM(out.path, rate: 44100)
        let start = try MediaProbe.streamStartTime(out.path, type: "audio")
        XCTAssertEqual(Double(pcm.count) / 44100 + start, 3.0, accuracy: 0.06,
                       "three 1 s MP3s make 3 s (ffmpeg decodes each to 1 s)")
        XCTAssertEqual(dips(pcm), [], "10 ms windows 30 dB below the tone's level")
    }

    /// A repeating 1 s MP3 of a whole number of cycles: a continuous tone, no dip at each loop.
    func testRepeatingMP3HasNoGapAtTheLoop() throws {
        let dir = try makeTempDir()
        try TestMedia.ffmpegRun([
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=1",
            "-ac", "2", "-c:a", "libmp3lame", "-b:a", "128k", dir.appendingPathComponent("loop.mp3").path,
        ])
        let out = dir.appendingPathComponent("out.mkv")
        let yaml = PlayerPreset.audioOnly(players: [PlayerPreset.player("main", source: "loop.mp3", ["repeat: true"])],
                                          output: out)
        let r = try runPreset(yaml, in: dir, args: ["--no-realtime", "--duration", "3.5"])
        XCTAssertEqual(r.status, 0, r.summary("a repeating MP3"))
        let pcm = try MediaProbe.decodePCM(out.path, rate: 44100)
        XCTAssertGreaterThan(pcm.count, 44100 * 3, "3.5 s recorded")
        XCTAssertEqual(dips(pcm), [], "10 ms windows 30 dB below the tone's level")
    }
}

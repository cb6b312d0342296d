// Sources (docs/presets.md, How values are written: a live HLS playlist): an endless HLS playlist as a player
// source. A real producer (ffmpeg's hls muxer at wall-clock pace, a sliding
// window of 4 one-second segments, old ones deleted, never an #EXT-X-ENDLIST)
// is served by nginx; mediapub plays it in realtime for a fixed duration.
// The recording must be one unbroken 25 fps H.264/AAC timeline carrying the
// producer's 880 Hz tone, nginx must have served the playlist again and again
// (an endless playlist is re-read) and many segments, and the player must never
// think the stream ended.

import Foundation
import XCTest

final class EndlessHLSTests: XCTestCase {

    /// `#EXTINF` entries in the playlist at `url`, and whether it is closed
    /// (`#EXT-X-ENDLIST`); (0, false) while it does not exist yet.
    private func playlistState(_ url: URL) -> (segments: Int, closed: Bool) {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return (0, false) }
        let lines = text.split(whereSeparator: \.isNewline)
        return (lines.filter { $0.hasPrefix("#EXTINF") }.count, lines.contains { $0.hasPrefix("#EXT-X-ENDLIST") })
    }

    func testEndlessHLSPlaylistFromNginxPlaysUnbrokenAndNeverEnds() throws {
        let dir = try makeTempDir()
        let www = dir.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        let playlist = www.appendingPathComponent("live.m3u8")

        // The endless producer: runs until teardown (startTool), paced by -re.
        let producer = try startTool("ffmpeg", [
            "-nostdin", "-hide_banner", "-v", "error", "-y",
            "-re", "-f", "lavfi", "-i", "sine=frequency=880",
            "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25",
            "-c:v", "libx264", "-g", "25", "-c:a", "aac",
            "-f", "hls", "-hls_time", "1", "-hls_list_size", "4", "-hls_flags", "delete_segments",
            playlist.path,
        ], stdoutURL: dir.appendingPathComponent("ffmpeg.out"), stderrURL: dir.appendingPathComponent("ffmpeg.err"))
        let ready = Ports.waitUntil(timeout: 15) { playlistState(playlist).segments >= 2 || !producer.isRunning }
        guard ready, producer.isRunning else {
            return XCTFail("the live HLS producer did not list 2 segments within 15 s (running: \(producer.isRunning)):\n"
                           + "\(producer.stderr)\nplaylist:\n\((try? String(contentsOf: playlist, encoding: .utf8)) ?? "<none>")")
        }
        XCTAssertFalse(playlistState(playlist).closed, "a live playlist has no #EXT-X-ENDLIST")

        let server = try startHTTPServer(root: www)
        let out = dir.appendingPathComponent("out.mp4")
        let events = dir.appendingPathComponent("events.jsonl")
        let yaml = PlayerPreset.video(players: [PlayerPreset.player("main", source: server.url("live.m3u8"), ["video: true"])],
                                      output: out)
        let r = try runPreset(yaml, in: dir, args: ["--realtime", "--duration", "8s", "--events", events.path], timeout: 40)
        let access = server.accessLog
        XCTAssertFalse(r.timedOut || r.signaled, r.summary("mediapub with a live HLS source"))
        XCTAssertEqual(r.status, 0, r.summary("mediapub with a live HLS source"))
        XCTAssertTrue(producer.isRunning, "the producer was live all through the run:\n\(producer.stderr)")
        XCTAssertFalse(playlistState(playlist).closed, "the playlist stayed live (no #EXT-X-ENDLIST)")
        guard FileManager.default.fileExists(atPath: out.path) else {
            return XCTFail("no recording from the live HLS source\n\(r.summary("mediapub"))")
        }

        // The recording: H.264 + AAC, 8 s, one frame every 40 ms.
        let p = try assertH264AAC(out.path)
        XCTAssertEqual(p.duration ?? 0, 8, accuracy: 0.2, "recording length: \(p.rawJSON)")
        let pts = try MediaProbe.videoPacketPTS(out.path).sorted()
        XCTAssertEqual(Double(pts.count), 200, accuracy: 2, "8 s at 25 fps")
        let steps = zip(pts.dropFirst(), pts).map { $0 - $1 }
        let bad = steps.enumerated().filter { abs($0.element - 0.04) > 0.002 }
        XCTAssertTrue(bad.isEmpty, "video PTS steps other than 40 ms (index, step): \(bad.prefix(10))")
        try assertDecodesCleanly(out.path)

        // Sound: once the endless stream has been joined (after ~2 s), the
        // producer's 880 Hz tone, with no silent stretch.
        let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
        XCTAssertEqual(Double(pcm.count) / 16000, 8, accuracy: 0.2, "audio as long as the video")
        let joined = MediaProbe.slice(pcm, rate: 16000, from: 2.0, to: 7.9)
        XCTAssertEqual(MediaProbe.dominantFrequency(joined, rate: 16000) ?? 0, 880, accuracy: 10, "the live tone dominates after 2 s")
        XCTAssertGreaterThan(MediaProbe.rmsDB(joined), -30, "the live stream is not silent after 2 s")
        let windows = MediaProbe.windowRMSDB(joined, rate: 16000, window: 0.1)
        XCTAssertFalse(windows.isEmpty)
        let quiet = windows.enumerated().filter { $0.element < -40 }.map { String(format: "%.1fs", 2.0 + Double($0.offset) * 0.1) }
        XCTAssertTrue(quiet.isEmpty, "silent 100 ms windows after 2 s (a stall in the live source): \(quiet)")
        let windowTone = stride(from: 2.0, to: 7.9 - 0.99, by: 1.0).map {
            MediaProbe.toneLevelDB(MediaProbe.slice(pcm, rate: 16000, from: $0, to: $0 + 1), rate: 16000, freq: 880)
        }
        XCTAssertTrue(windowTone.allSatisfy { $0 > -30 }, "880 Hz in every second after 2 s: \(windowTone)")

        // nginx: the endless playlist was re-read, and many segments were served.
        let requests = access.split(whereSeparator: \.isNewline).map(String.init)
        let playlistGets = requests.filter { $0.contains("\"GET /live.m3u8 ") }
        XCTAssertGreaterThan(playlistGets.count, 1, "a live playlist is re-read; nginx log:\n\(access)")
        let segmentsServed = Set(requests.compactMap { line -> String? in
            guard line.contains("\" 200 "), let range = line.range(of: #"GET /live[0-9]+\.ts "#, options: .regularExpression)
            else { return nil }
            return String(line[range])
        })
        XCTAssertGreaterThanOrEqual(segmentsServed.count, 5, "several live segments served (200); nginx log:\n\(access)")

        // Events: the player played and never reported `ended` (nor `error`)
        // before the run stopped on its duration.
        let all = try EventLog.read(events)
        guard let stoppedIndex = all.firstIndex(where: { $0["event"] as? String == "run.stopped" }) else {
            return XCTFail("no run.stopped event: \(all)")
        }
        XCTAssertEqual((all[stoppedIndex]["exit_code"] as? NSNumber)?.intValue, 0, "run.stopped: \(all[stoppedIndex])")
        let states = all[..<stoppedIndex]
            .filter { $0["event"] as? String == "player.state" && $0["player"] as? String == "main" }
            .compactMap { $0["state"] as? String }
        XCTAssertTrue(states.contains("playing"), "the player reached playing: \(states)")
        XCTAssertFalse(states.contains("ended"), "a live source never ends: player.state before run.stopped: \(states)")
        XCTAssertFalse(states.contains("error"), "player.state before run.stopped: \(states)")
    }
}

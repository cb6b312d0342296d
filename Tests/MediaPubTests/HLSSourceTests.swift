// HLS sources (README, HLS sources): a VOD playlist with a segment that
// answers 404 skips that segment and goes on (one clean warning line); a
// VOD playlist with `memory: true` is fetched whole (playlist and segments)
// and decoded from memory, an endless one is refused with a clear line; an endless
// origin that dies (no #EXT-X-ENDLIST) is retried with the backoff while the
// standby fills, and never replayed; one that comes back as a restarted encoder
// (its media sequence from 0 again) is joined again, and the stale window is
// never played again. Origins are ffmpeg's
// hls muxer, served by nginx on loopback; the recordings are checked with
// ffprobe/signalstats and tone levels of the decoded PCM.

import Foundation
import XCTest

final class HLSSourceTests: XCTestCase {

    /// A VOD HLS presentation in `www`: `seconds` of `color` and a `freq` tone, in
    /// `segment`-second MPEG-TS segments seg000.ts, seg001.ts, … (ffmpeg's hls muxer).
    private func makeVOD(in www: URL, seconds: Int, segment: Int, color: String, freq: Double) throws -> [String] {
        try TestMedia.ffmpegRun([
            "-f", "lavfi", "-i", "color=c=\(color):s=320x180:r=25:d=\(seconds)",
            "-f", "lavfi", "-i", "sine=frequency=\(freq):sample_rate=44100:duration=\(seconds)",
            "-map", "0:v", "-map", "1:a",
            "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "25", "-bf", "0",
            "-c:a", "aac", "-b:a", "128k", "-ac", "2", "-t", "\(seconds)",
            "-f", "hls", "-hls_time", "\(segment)", "-hls_playlist_type", "vod",
            "-hls_segment_filename", www.appendingPathComponent("seg%03d.ts").path,
            www.appendingPathComponent("index.m3u8").path,
        ])
        let text = try String(contentsOf: www.appendingPathComponent("index.m3u8"), encoding: .utf8)
        return text.split(whereSeparator: \.isNewline).map(String.init).filter { $0.hasSuffix(".ts") }
    }

    private func warnings(_ events: [[String: Any]]) -> [String] {
        events.filter { $0["event"] as? String == "warning" }.compactMap { $0["message"] as? String }
    }

    /// The endless origins' runs (realtime, mostly waiting: for the origins, the retries'
    /// backoff, a 20 s --duration) and the VOD runs whose segments answer 404, each with
    /// its own folder, server and control socket: all at once, each checked as its own
    /// test was.
    func testEndlessOriginsThatDieRestartOrCloseAndVODSegmentsThatAnswer404EachInARunOfItsOwnAtOnce() {
        atOnce([("live origins", endlessOriginThatDiesIsNeverReplayedOneThatRestartsIsJoinedAgainAndOneThatClosesItsPlaylistHasNoDuration),
                ("a VOD segment that answers 404", vodSegmentThatAnswers404IsSkippedAndTheItemGoesOn),
                ("a VOD's first segment that answers 404", vodFirstSegmentThatAnswers404IsSkipped)])
    }

    /// 10 s in five 2 s segments; the 3rd answers 404. The item plays the other
    /// 8 s (it played 4 s and the run ended "content ended"), and one warning
    /// line says which segment was skipped, in our words.
    private func vodSegmentThatAnswers404IsSkippedAndTheItemGoesOn() throws {
        let dir = try makeTempDir()
        let www = dir.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        let segments = try makeVOD(in: www, seconds: 10, segment: 2, color: "red", freq: 440)
        XCTAssertEqual(segments.count, 5, "five 2 s segments: \(segments)")
        try FileManager.default.removeItem(at: www.appendingPathComponent("seg002.ts"))
        let server = try startHTTPServer(root: www)
        let url = server.url("index.m3u8")
        let out = dir.appendingPathComponent("out.mp4")
        let events = dir.appendingPathComponent("events.jsonl")
        // Named for itself: its control socket is not the endless runs' (they go at once).
        let yaml = PlayerPreset.video(name: "vod404", players: [PlayerPreset.player("main", source: url, ["video: true"])], output: out)
        let r = try runPreset(yaml, in: dir, args: ["--no-realtime", "--events", events.path], timeout: 90)
        XCTAssertEqual(r.status, 0, r.summary("mediapub with a VOD HLS missing its 3rd segment"))
        XCTAssertTrue(server.accessLog.contains("\"GET /seg002.ts HTTP/1.1\" 404"), "nginx answered 404:\n\(server.accessLog)")
        XCTAssertTrue(server.accessLog.contains("\"GET /seg004.ts HTTP/1.1\" 200"), "the segments after it were fetched:\n\(server.accessLog)")

        // The recording: the 8 s that exist, red with the 440 Hz tone.
        let p = try assertH264AAC(out.path)
        XCTAssertEqual(p.duration ?? 0, 8, accuracy: 0.4, "8 of the 10 s play: \(p.rawJSON)")
        let stats = try MediaProbe.frameStats(out.path)
        let red = stats.filter { Colour.red.matches($0) }.count
        XCTAssertEqual(Double(red), 200, accuracy: 15, "8 s of the red source at 25 fps (\(stats.count) frames in all)")
        let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
        XCTAssertGreaterThan(MediaProbe.toneLevelDB(MediaProbe.slice(pcm, rate: 16000, from: 5, to: 7.5), rate: 16000, freq: 440), -25,
                             "the tone goes on after the skipped segment")

        // One warning line, in our words: no GStreamer source paths or element paths.
        let all = try EventLog.read(events)
        let said = warnings(all)
        XCTAssertEqual(said, ["player main: segment 3 of \(url) could not be fetched (404 Not Found): skipped"],
                       "one clean warning: \(said)")
        let stderrWarnings = r.stderr.split(whereSeparator: \.isNewline).filter { $0.contains("warn") }
        XCTAssertEqual(stderrWarnings.count, 1, "one warning line on stderr:\n\(r.stderr)")
        for bad in ["gst", "Gst", ".c(", "/GstPipeline", "hlsdemux"] {
            XCTAssertFalse(r.stderr.contains(bad), "stderr carries GStreamer internals (\(bad)):\n\(r.stderr)")
        }
        let stopped = all.last { $0["event"] as? String == "run.stopped" }
        XCTAssertEqual(stopped?["reason"] as? String, "content ended", "the item ended at its end: \(String(describing: stopped))")
        let tracks = all.filter { $0["event"] as? String == "player.track" }
        XCTAssertEqual(tracks.count, 1, "skipping a segment starts no new track: \(tracks)")
    }

    /// The 1st of five 2 s segments answers 404: hlsdemux prerolls on a playlist's
    /// first segment, so the rest is read from a playlist of our own that starts
    /// after it (it failed with GStreamer's multi-line text, nothing played, exit 1).
    /// That file is ours and goes with the session.
    private func vodFirstSegmentThatAnswers404IsSkipped() throws {
        let dir = try makeTempDir()
        let www = dir.appendingPathComponent("www")
        let tmp = dir.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        _ = try makeVOD(in: www, seconds: 10, segment: 2, color: "red", freq: 440)
        try FileManager.default.removeItem(at: www.appendingPathComponent("seg000.ts"))
        let server = try startHTTPServer(root: www)
        let url = server.url("index.m3u8")
        let out = dir.appendingPathComponent("out.mp4")
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "preset.yaml",
                                   PlayerPreset.audioOnly(name: "vodfirst404", players: [PlayerPreset.player("main", source: url)], output: out))
        let r = try CLI.run(["--preset", preset.path, "--no-realtime", "--events", events.path], env: ["TMPDIR": tmp.path], timeout: 90)
        XCTAssertEqual(r.status, 0, r.summary("mediapub with a VOD HLS missing its 1st segment"))
        let p = try MediaProbe.probe(out.path)
        XCTAssertEqual(p.duration ?? 0, 8, accuracy: 0.4, "8 of the 10 s play: \(p.rawJSON)")
        let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
        XCTAssertGreaterThan(MediaProbe.toneLevelDB(MediaProbe.slice(pcm, rate: 16000, from: 0.5, to: 7.5), rate: 16000, freq: 440), -25)
        XCTAssertEqual(warnings(try EventLog.read(events)),
                       ["player main: segment 1 of \(url) could not be fetched (404 Not Found): skipped"], r.stderr)
        XCTAssertFalse(r.stderr.contains("gst"), r.stderr)
        let left = try FileManager.default.contentsOfDirectory(atPath: tmp.path)
        XCTAssertTrue(left.isEmpty, "mediapub's own playlist file is removed: \(left)")
    }

    /// `memory: true` with a VOD playlist: the playlist and every segment are
    /// fetched into memory, and it plays like the playlist itself (it failed:
    /// "Invalid playlist", GLib-CRITICAL lines, exit 1).
    func testMemoryTrueHLSFetchesTheWholePresentation() throws {
        let dir = try makeTempDir()
        let www = dir.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        let segments = try makeVOD(in: www, seconds: 4, segment: 1, color: "blue", freq: 880)
        let server = try startHTTPServer(root: www)
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.video(players: [
            PlayerPreset.player("main", source: server.url("index.m3u8"), ["video: true", "memory: true"]),
        ], output: out)
        let r = try runPreset(yaml, in: dir, timeout: 60)
        XCTAssertEqual(r.status, 0, r.summary("mediapub with memory: true HLS"))
        XCTAssertFalse(r.stderr.contains("CRITICAL"), r.stderr)
        for name in segments {
            XCTAssertTrue(server.accessLog.contains("\"GET /\(name) HTTP/1.1\" 200"), "\(name) was fetched:\n\(server.accessLog)")
        }
        let p = try assertH264AAC(out.path)
        XCTAssertEqual(p.duration ?? 0, 4, accuracy: 0.3, p.rawJSON)
        try assertFrames(out.path, show: .blue, from: 0.2, to: 3.8)
        let pcm = MediaProbe.slice(try MediaProbe.decodePCM(out.path, rate: 16000), rate: 16000, from: 0.2, to: 3.8)
        XCTAssertGreaterThan(MediaProbe.toneLevelDB(pcm, rate: 16000, freq: 880), -25, "the playlist's tone, decoded from memory")
    }

    /// `memory: true` with an endless playlist (no #EXT-X-ENDLIST): it never ends, so
    /// memory cannot hold it: exit 1 with one line that names the URL and says so.
    func testMemoryTrueEndlessHLSIsRefusedWithAClearLine() throws {
        let dir = try makeTempDir()
        let www = dir.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        _ = try makeVOD(in: www, seconds: 3, segment: 1, color: "blue", freq: 880)
        // The same segments as an endless window: no #EXT-X-ENDLIST, no VOD type.
        let vod = try String(contentsOf: www.appendingPathComponent("index.m3u8"), encoding: .utf8)
        let endless = vod.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("#EXT-X-ENDLIST") && !$0.hasPrefix("#EXT-X-PLAYLIST-TYPE") }
        try writeFile(www, "live.m3u8", endless.joined(separator: "\n") + "\n")
        let server = try startHTTPServer(root: www)
        let url = server.url("live.m3u8")
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.audioOnly(players: [PlayerPreset.player("main", source: url, ["memory: true"])], output: out)
        // An endless source: realtime (as fast as possible is refused).
        let r = try runPreset(yaml, in: dir, args: [], timeout: 60)
        XCTAssertEqual(r.status, 1, r.summary("mediapub with memory: true on a live playlist"))
        XCTAssertFalse(r.stderr.contains("CRITICAL"), r.stderr)
        let lines = r.stderr.split(whereSeparator: \.isNewline)
        XCTAssertTrue(lines.contains { $0.contains(url) && $0.contains("memory: true cannot hold a live HLS playlist") },
                      "a line names the URL and why:\n\(r.stderr)")
    }

    // MARK: an endless origin that dies and comes back

    /// An endless origin: ffmpeg's hls muxer at wall-clock pace, 1 s segments, a
    /// window of 4, old segments deleted, into `www/live.m3u8`; killed with
    /// SIGKILL it leaves its last window behind, with no #EXT-X-ENDLIST.
    /// `picture`: a lavfi video source in place of the colour.
    private func startEndlessOrigin(_ www: URL, dir: URL, label: String, color: String, freq: Double,
                                 picture: String? = nil) throws -> RunningProcess {
        try startTool("ffmpeg", [
            "-nostdin", "-hide_banner", "-v", "error", "-y",
            "-re", "-f", "lavfi", "-i", "sine=frequency=\(freq)",
            "-f", "lavfi", "-i", picture ?? "color=c=\(color):s=320x180:r=25",
            "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-c:a", "aac",
            "-f", "hls", "-hls_time", "1", "-hls_list_size", "4", "-hls_flags", "delete_segments",
            www.appendingPathComponent("live.m3u8").path,
        ], stdoutURL: dir.appendingPathComponent("\(label).out"), stderrURL: dir.appendingPathComponent("\(label).err"))
    }

    /// An endless origin (`startEndlessOrigin`, 440 Hz) in `dir/www`, listing 2 segments, served by nginx.
    private func servedEndlessOrigin(_ dir: URL, color: String, picture: String? = nil) throws
        -> (playlist: URL, origin: RunningProcess, server: HTTPServer) {
        let www = dir.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        let playlist = www.appendingPathComponent("live.m3u8")
        let origin = try startEndlessOrigin(www, dir: dir, label: "a", color: color, freq: 440, picture: picture)
        XCTAssertTrue(Ports.waitUntil(timeout: 15) { (endlessState(playlist)?.segments ?? 0) >= 2 || !origin.isRunning },
                      "the origin lists 2 segments: \(origin.stderr)")
        return (playlist, origin, try startHTTPServer(root: www))
    }

    /// The media sequence and segment count of the playlist at `url`; nil while there is none.
    private func endlessState(_ url: URL) -> (sequence: Int, segments: Int)? {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return nil }
        let lines = text.split(whereSeparator: \.isNewline)
        guard let line = lines.first(where: { $0.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") }),
              let sequence = Int(line.dropFirst("#EXT-X-MEDIA-SEQUENCE:".count)) else { return nil }
        return (sequence, lines.filter { $0.hasPrefix("#EXTINF") }.count)
    }

    private func progressEvents(_ url: URL) -> [[String: Any]] {
        ((try? EventLog.read(url)) ?? []).filter { $0["event"] as? String == "player.progress" }
    }

    /// Three endless origins, each with its own run, folder, origin, server and control
    /// socket, at once: one that closes its playlist, one that dies for good and one that
    /// restarts. The runs are realtime and mostly wait on their origin, so their waits
    /// overlap: the closing origin's run is started, the dying one's started and its origin
    /// killed, the closing origin stopped (its run has played 3 s by then), the restarting
    /// one followed through; then the other two are checked as their own tests did.
    private func endlessOriginThatDiesIsNeverReplayedOneThatRestartsIsJoinedAgainAndOneThatClosesItsPlaylistHasNoDuration() throws {
        let dir = try makeTempDir()
        func folder(_ name: String) throws -> URL {
            let sub = dir.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
            return sub
        }
        let stopTheClosingOrigin = try endlessSourceHasNoDurationEvenWhenItsPlaylistCloses(in: try folder("closes"))
        let died = try endlessOriginThatDiesIsNeverReplayedAndTheStandbyFills(in: try folder("dies"))
        let closed = try stopTheClosingOrigin()
        try endlessOriginThatRestartsIsJoinedAgainWithoutTheStaleWindow(in: try folder("restarts"))
        try closed()
        try died()
    }

    /// Origin A (red, 440 Hz) plays, then dies (SIGKILL: its last window stays, no
    /// #EXT-X-ENDLIST); the standby fills. Origin B (blue, 880 Hz), a restarted
    /// encoder whose media sequence starts at 0 again, comes up: the player joins it
    /// at its next retry and never plays A's stale
    /// window again. The endless source has no duration: null in `ctl status`,
    /// `player.track` and `player.progress`.
    private func endlessOriginThatRestartsIsJoinedAgainWithoutTheStaleWindow(in dir: URL) throws {
        let www = dir.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        let playlist = www.appendingPathComponent("live.m3u8")
        let originA = try startEndlessOrigin(www, dir: dir, label: "a", color: "red", freq: 440)
        XCTAssertTrue(Ports.waitUntil(timeout: 15) { (endlessState(playlist)?.segments ?? 0) >= 2 || !originA.isRunning },
                      "origin A lists 2 segments: \(originA.stderr)")
        let server = try startHTTPServer(root: www)
        let out = dir.appendingPathComponent("out.mp4")
        let events = dir.appendingPathComponent("events.jsonl")
        let socket = dir.appendingPathComponent("c.sock").path
        let yaml = PlayerPreset.video(players: [PlayerPreset.player("main", source: server.url("live.m3u8"), ["video: true"])],
                                      output: out, extra: "standby:\n  color: \"#000000\"")
        let preset = try writeFile(dir, "preset.yaml", yaml)
        let run = try startMediaPub(["--preset", preset.path, "--realtime", "--duration", "90s", "--events", events.path,
                                     "--control", socket])

        // A plays for 3 s, long enough for its media sequence to have moved on.
        let playedA = Ports.waitUntil(timeout: 30) {
            (progressEvents(events).last?["position_ms"] as? Int ?? 0) >= 3000 && (endlessState(playlist)?.sequence ?? 0) >= 2
        }
        guard playedA else { return XCTFail("origin A did not play 3 s:\n\(run.stderr)") }
        let status = try CLI.run(["ctl", "--socket", socket, "status"], timeout: 20)
        let reply = (try? JSONSerialization.jsonObject(with: status.stdoutData)) as? [String: Any]
        let player = ((reply?["status"] as? [String: Any])?["players"] as? [[String: Any]])?.first
        XCTAssertNotNil(player, status.summary("ctl status"))
        XCTAssertTrue(player?["duration_ms"] is NSNull, "a live source has no duration: \(String(describing: player))")

        // A dies. The player keeps re-reading the stale playlist (hlsdemux, and more).
        originA.kill9()
        let deadAt = server.accessLog.components(separatedBy: "GET /live.m3u8 ").count
        XCTAssertTrue(Ports.waitUntil(timeout: 30) { server.accessLog.components(separatedBy: "GET /live.m3u8 ").count >= deadAt + 6 },
                      "the stale playlist is re-read:\n\(server.accessLog)")
        XCTAssertFalse((try String(contentsOf: playlist, encoding: .utf8)).contains("#EXT-X-ENDLIST"), "A left a live playlist")

        // B: the encoder restarted, media sequence 0 again.
        let originB = try startEndlessOrigin(www, dir: dir, label: "b", color: "blue", freq: 880)
        XCTAssertTrue(Ports.waitUntil(timeout: 15) { endlessState(playlist)?.sequence == 0 || !originB.isRunning },
                      "origin B writes its playlist: \(originB.stderr)")
        let before = progressEvents(events).count
        // Joined at the next retry (1 s, 2 s, 4 s … since A stalled): progress resumes.
        let joined = Ports.waitUntil(timeout: 12) { progressEvents(events).count > before }
        XCTAssertTrue(joined, "the player joined the restarted origin within 12 s: \(progressEvents(events).suffix(3))")
        XCTAssertTrue(Ports.waitUntil(timeout: 30) { progressEvents(events).count >= before + 5 }, "B plays on:\n\(run.stderr)")
        XCTAssertTrue(run.stop(signal: SIGINT, grace: 20), "mediapub stops on SIGINT")
        XCTAssertEqual(run.result().status, 0, run.result().summary("mediapub"))

        // The recording: A's red, the standby's black, then B's blue, in that order:
        // once A's picture has given way, it never comes back.
        let stats = try MediaProbe.frameStats(out.path)
        let red = stats.indices.filter { Colour.red.matches(stats[$0]) }
        let blue = stats.indices.filter { Colour.blue.matches(stats[$0]) }
        guard let lastRed = red.last, let firstBlue = blue.first else {
            return XCTFail("both origins in the recording: \(red.count) red, \(blue.count) blue of \(stats.count) frames")
        }
        XCTAssertGreaterThan(red.count, 50, "A played")
        XCTAssertGreaterThan(blue.count, 60, "B played")
        XCTAssertLessThan(lastRed, firstBlue, "no red after B began")
        let firstRed = red.first ?? 0
        let gaps = (firstRed...lastRed).filter { !Colour.red.matches(stats[$0]) }
        XCTAssertTrue(gaps.isEmpty, "A played once, unbroken: \(gaps.count) other frames inside it, from \(stats[gaps.first ?? 0].pts) s")
        XCTAssertTrue(blue.last.map { (firstBlue...$0).allSatisfy { Colour.blue.matches(stats[$0]) } } ?? false,
                      "once B is there, every frame is B")
        let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
        let start = stats.first?.pts ?? 0
        let bSound = MediaProbe.slice(pcm, rate: 16000, from: stats[firstBlue].pts - start + 0.3, to: stats[blue.last ?? firstBlue].pts - start - 0.2)
        XCTAssertGreaterThan(MediaProbe.toneLevelDB(bSound, rate: 16000, freq: 880), -30, "B's tone under B's picture")
        XCTAssertLessThan(MediaProbe.toneLevelDB(bSound, rate: 16000, freq: 440), -45, "none of A's tone once B plays")

        // Events: no duration for the endless source, anywhere.
        let all = try EventLog.read(events)
        let withDuration = all.filter { ["player.track", "player.progress"].contains($0["event"] as? String ?? "") && !($0["duration_ms"] is NSNull) }
        XCTAssertTrue(withDuration.isEmpty, "a live source has no duration: \(withDuration.prefix(3))")
        XCTAssertEqual(all.filter { $0["event"] as? String == "player.track" }.count, 1, "one track: the same live source")
    }

    /// An endless origin that dies (its ffmpeg killed with SIGKILL: the last window stays
    /// listed, no #EXT-X-ENDLIST) is a stalled source: once what was queued has played,
    /// the player is `loading` and the standby (red) fills; the origin is retried at
    /// 1 s, 2 s, 4 s …, and nothing it played plays again. Before: the last 4.5 s came
    /// back every 15 s, the player `playing` again each time. The origin's picture is a
    /// luma clock (Y = 16 + 8 per second), so a segment played twice is a step back in Y.
    /// The run has only a file output and no --realtime: the endless source makes it
    /// realtime (before: as fast as possible, it never ended), and --duration ends it.
    /// Its run is started and its origin killed; the checks that follow its end are returned.
    private func endlessOriginThatDiesIsNeverReplayedAndTheStandbyFills(in dir: URL) throws -> () throws -> Void {
        let clock = "color=c=gray:s=320x180:r=25,format=yuv420p,geq=lum='16+8*T':cb=128:cr=128"
        let (_, origin, server) = try servedEndlessOrigin(dir, color: "gray", picture: clock)
        let out = dir.appendingPathComponent("out.mp4")
        let events = dir.appendingPathComponent("events.jsonl")
        let yaml = PlayerPreset.video(players: [PlayerPreset.player("main", source: server.url("live.m3u8"), ["video: true"])],
                                      output: out, extra: "standby:\n  color: \"#FF0000\"")
        let preset = try writeFile(dir, "preset.yaml", yaml)
        // An endless source cannot be played as fast as possible: refused before anything starts.
        let refused = try CLI.run(["--preset", preset.path, "--no-realtime", "--duration", "25s"], timeout: 30)
        XCTAssertEqual(refused.status, 2, refused.summary("--no-realtime with a live source"))
        XCTAssertTrue(refused.stderr.contains("--no-realtime: \(server.url("live.m3u8")) is a live source"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), "nothing started")
        // Only a file output, and no --realtime: the endless source paces the run.
        let run = try startMediaPub(["--preset", preset.path, "--duration", "20s", "--events", events.path,
                                     "--control", dir.appendingPathComponent("c.sock").path])
        XCTAssertTrue(Ports.waitUntil(timeout: 30, watching: events) {
            !run.isRunning || (progressEvents(events).last?["position_ms"] as? Int ?? 0) >= 3000
        }, "the live source plays:\n\(run.stderr)")
        origin.kill9()
        return { [self] in try checkTheOriginThatDied(run, events: events, out: out) }
    }

    /// The run of `endlessOriginThatDiesIsNeverReplayedAndTheStandbyFills` ends at --duration,
    /// having taken its time: its wall time is read on its own events' stamps, from the
    /// first to `run.stopped`, as it may end while another run is being watched.
    private func checkTheOriginThatDied(_ run: RunningProcess, events: URL, out: URL) throws {
        XCTAssertTrue(run.waitForExit(timeout: 60), "the run ends at --duration")
        let stamps = ((try? EventLog.read(events)) ?? []).compactMap(EventLog.time)
        let wall = (stamps.last ?? .distantPast).timeIntervalSince(stamps.first ?? .distantFuture)
        XCTAssertEqual(run.exitStatus, 0, run.result().summary("mediapub"))

        // The recording: 20 s, taking its time (paced by the endless source).
        let duration = try XCTUnwrap(try MediaProbe.probe(out.path).duration)
        XCTAssertEqual(duration, 20, accuracy: 0.3, "recording length")
        XCTAssertGreaterThan(wall, duration * 0.8, "a live source is played in real time")
        // The origin's frames (grey) in order, none again; then the standby (red) to the end.
        let stats = try MediaProbe.frameStats(out.path)
        let isOrigin = { (f: FrameStat) in abs(f.uavg - 128) < 12 && abs(f.vavg - 128) < 12 }
        let originFrames = stats.indices.filter { isOrigin(stats[$0]) }
        guard let firstOrigin = originFrames.first, let lastOrigin = originFrames.last else { return XCTFail("no frame of the origin: \(stats.count) frames") }
        XCTAssertGreaterThan(originFrames.count, 75, "the origin played 3 s and more")
        var highest = 0.0
        var back: [String] = []
        for i in originFrames {
            if stats[i].yavg < highest - 4 { back.append(String(format: "%.2f s: Y %.0f after %.0f", stats[i].pts, stats[i].yavg, highest)) }
            highest = max(highest, stats[i].yavg)
        }
        XCTAssertTrue(back.isEmpty, "the origin's pictures played again: \(back.prefix(5))")
        let neither = stats.indices.filter { $0 > firstOrigin && !isOrigin(stats[$0]) && !stats[$0].looksRed }
        XCTAssertTrue(neither.isEmpty, "frames neither the origin's nor the standby's: \(neither.prefix(5).map { stats[$0] })")
        XCTAssertTrue(stats[(lastOrigin + 1)...].allSatisfy(\.looksRed), "the standby once the origin is gone")
        XCTAssertGreaterThan(stats.count - lastOrigin, 200, "the standby filled 8 s and more")

        // Events: loading once the origin is gone, never playing again; retried with the backoff.
        let all = try EventLog.read(events)
        let states = all.filter { $0["event"] as? String == "player.state" }.compactMap { $0["state"] as? String }
        XCTAssertEqual(Array(states.prefix(3)), ["loading", "playing", "loading"], "\(states)")
        XCTAssertFalse(states.dropFirst(2).contains("playing"), "not playing again: \(states)")
        let retries = warnings(all).compactMap { w in w.range(of: "retrying in ").map { String(w[$0.upperBound...]) } }
        XCTAssertEqual(Array(retries.prefix(4)), ["1s", "2s", "4s", "8s"], "the backoff: \(warnings(all))")
    }

    /// An endless origin stopped cleanly (SIGTERM: ffmpeg closes its playlist with
    /// #EXT-X-ENDLIST): the player plays out the window and the item ends. It was
    /// endless all along: no duration in any event, before or after the playlist closed
    /// (the window's 3.3 s showed up as its duration, under a position of 7 s).
    /// Its origin and run are started; returned: the origin's stop once the run has
    /// played 3 s, which returns the checks that follow the run to its end.
    private func endlessSourceHasNoDurationEvenWhenItsPlaylistCloses(in dir: URL) throws -> () throws -> () throws -> Void {
        let (playlist, origin, server) = try servedEndlessOrigin(dir, color: "red")
        let out = dir.appendingPathComponent("out.mp4")
        let events = dir.appendingPathComponent("events.jsonl")
        let yaml = PlayerPreset.video(players: [PlayerPreset.player("main", source: server.url("live.m3u8"), ["video: true"])],
                                      output: out)
        let preset = try writeFile(dir, "preset.yaml", yaml)
        let run = try startMediaPub(["--preset", preset.path, "--realtime", "--duration", "60s", "--events", events.path,
                                     "--control", dir.appendingPathComponent("c.sock").path])
        return { [self] in
            XCTAssertTrue(Ports.waitUntil(timeout: 30) { (progressEvents(events).last?["position_ms"] as? Int ?? 0) >= 3000 },
                          "the live source plays:\n\(run.stderr)")
            XCTAssertTrue(origin.stop(signal: SIGTERM, grace: 10), "the origin stops")
            XCTAssertTrue((try String(contentsOf: playlist, encoding: .utf8)).contains("#EXT-X-ENDLIST"), "the origin closed its playlist")
            return { [self] in
                let stopped = Ports.waitUntil(timeout: 30) {
                    ((try? EventLog.read(events)) ?? []).contains { $0["event"] as? String == "run.stopped" }
                }
                XCTAssertTrue(stopped, "the item ends once the closed playlist has played:\n\(run.stderr)")
                XCTAssertTrue(run.waitForExit(timeout: 20), "mediapub exits")
                let all = try EventLog.read(events)
                let withDuration = all.filter {
                    ["player.track", "player.progress"].contains($0["event"] as? String ?? "") && !($0["duration_ms"] is NSNull)
                }
                XCTAssertTrue(withDuration.isEmpty, "a live source has no duration: \(withDuration.prefix(3))")
                XCTAssertGreaterThan(progressEvents(events).count, 3, "progress was reported")
            }
        }
    }
}

// Recordings stay playable if the process is killed (kill -9, power loss), at most
// the last 1.5 s lost, whatever the keyframe interval and the bitrate
// (docs/presets.md, Outputs). Checked with ffprobe and ffmpeg.

import Foundation
import XCTest

final class CrashSafeRecordingTests: XCTestCase {

    /// Starts each preset (its yaml and its folder) in realtime, all at once, waits (on
    /// player.progress) for 12 s of output of each in turn and kills it with SIGKILL as
    /// soon as it has them. Returns the positions reached.
    private func killNineAfterTwelveSeconds(_ runs: [(yaml: String, dir: URL)]) throws -> [Double] {
        let started = try runs.map { yaml, dir in
            let events = dir.appendingPathComponent("events.jsonl")
            let preset = try writeFile(dir, "t.yaml", yaml)
            return (events, try startMediaPub(["--preset", preset.path, "--realtime", "--events", events.path]))
        }
        return started.map { events, mp in
            func position() -> Int {
                ((try? EventLog.read(events)) ?? []).filter { $0["event"] as? String == "player.progress" }
                    .compactMap { $0["position_ms"] as? Int }.max() ?? 0
            }
            XCTAssertTrue(Ports.waitUntil(timeout: 60) { position() >= 12000 || !mp.isRunning }, mp.stderr)
            let reached = Double(position()) / 1000
            XCTAssertTrue(mp.isRunning, "still recording at \(reached) s: \(mp.stderr)")
            mp.kill9()
            return reached
        }
    }

    /// What `ffmpeg -v error` says decoding the file (an FLV's header included: before,
    /// flvmux reserved room there for an index with a string ffmpeg could not read).
    private func decodeErrors(_ path: String) throws -> String {
        try MediaProbe.decodeErrors(path)
    }

    /// The media a stream of the file holds: from its first packet to its last.
    private func held(_ path: String, stream: String) throws -> Double {
        let pts = try MediaProbe.packetPTS(path, stream: stream)
        return (pts.max() ?? 0) - (pts.min() ?? 0)
    }

    /// Two runs killed at once (each its own process, name and folder; realtime, so each
    /// takes its 12 s whether alone or not).
    /// A keyframe every 10 s and a simple picture (few bytes a second): each container
    /// holds all but the last 1.5 s and decodes without an error.
    /// Sound alone at 64 kb/s (a 64 KB write buffer was 8 s of it): one MP4, one
    /// Matroska, and an MP4 cut every 5 s, whose file just begun holds what was written.
    func testEveryRecordingPlaysAfterKillNineAtALongKeyframeIntervalAndAtALowAudioBitrate() throws {
        let dir = try makeTempDir()
        let files = ["mp4", "mkv", "flv", "ts"].map { dir.appendingPathComponent("rec.\($0)") }
        let yaml = E2EPreset.basic(source: "testsrc:?pattern=ball&freq=440", outputs: files.map(\.path))
            .replacingOccurrences(of: "keyframe_interval: 1s", with: "keyframe_interval: 10s")
        let audioDir = try makeTempDir()
        let reachedBoth = try killNineAfterTwelveSeconds([(yaml, dir), (try lowBitrateAudio(in: audioDir), audioDir)])
        let reached = reachedBoth[0]
        for file in files {
            let name = file.lastPathComponent
            XCTAssertEqual(try decodeErrors(file.path), "", "\(name) decodes cleanly after kill -9")
            let probe = try MediaProbe.probe(file.path)
            XCTAssertEqual(probe.video?.codecName, "h264", "\(name): \(probe.rawJSON)")
            XCTAssertEqual(probe.audio?.codecName, "aac", "\(name): \(probe.rawJSON)")
            for stream in ["v:0", "a:0"] {
                let got = try held(file.path, stream: stream)
                XCTAssertGreaterThanOrEqual(got, max(10.5, reached - 1.5), "\(name) \(stream) holds all but the last 1.5 s (\(got) of \(reached) s)")
            }
            // The duration a reader is told is what the file holds (before: an FLV said 24 h,
            // the placeholder flvmux writes until the end it never reached). Matroska tells
            // none until finished; the others tell one.
            let video = try held(file.path, stream: "v:0")
            if name.hasSuffix(".mkv") { continue }
            XCTAssertEqual(try XCTUnwrap(probe.duration, "\(name): \(probe.rawJSON)"), video, accuracy: 1.5,
                           "\(name) tells the duration it holds")
        }
        try assertLowBitrateAudio(in: audioDir, reached: reachedBoth[1])
    }

    /// The low-bitrate sound preset: its recordings in `dir`.
    private func lowBitrateAudio(in dir: URL) throws -> String {
        let files = ["mp4", "mkv"].map { dir.appendingPathComponent("rec.\($0)") }
        let pattern = dir.appendingPathComponent("cut-%Y%m%d%H%M%S.mp4")
        return """
        name: t2
        audio:
          sample_rate: 44100
          channels: 2
          bitrate: 64k
        players:
          - id: main
            source: "testsrc:?pattern=ball&freq=440"
        outputs:
          - url: "\(files[0].path)"
          - url: "\(files[1].path)"
          - url: "\(pattern.path)"
            segment: 5s

        """
    }

    /// The low-bitrate sound recordings in `dir`, killed at `reached` s.
    private func assertLowBitrateAudio(in dir: URL, reached: Double) throws {
        let files = ["mp4", "mkv"].map { dir.appendingPathComponent("rec.\($0)") }
        for file in files {
            let name = file.lastPathComponent
            XCTAssertEqual(try decodeErrors(file.path), "", "\(name) decodes cleanly after kill -9")
            let got = try held(file.path, stream: "a:0")
            XCTAssertGreaterThanOrEqual(got, max(10.5, reached - 1.5), "\(name) holds all but the last 1.5 s (\(got) of \(reached) s)")
        }
        // Each file of the cut recording starts at zero: together they hold all but the last 1.5 s.
        let cut = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("cut-") }.sorted()
        XCTAssertGreaterThanOrEqual(cut.count, 3, "files of 5 s after 12 s: \(cut)")
        var total = 0.0
        for name in cut {
            let path = dir.appendingPathComponent(name).path
            XCTAssertEqual(try decodeErrors(path), "", "\(name) decodes cleanly after kill -9")
            total += (try MediaProbe.packetPTS(path, stream: "a:0").max() ?? -1) + 1024.0 / 44100
        }
        XCTAssertGreaterThanOrEqual(total, max(10.5, reached - 1.5), "the cut files hold all but the last 1.5 s: \(cut)")
    }
}

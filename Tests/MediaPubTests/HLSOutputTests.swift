// docs/presets.md, Outputs: hls:///path/index.m3u8?segment=4s&window=6 writes a live playlist and
// MPEG-TS segments any web server can serve; old segments go, the playlist is
// valid at every moment, an ended run closes it with #EXT-X-ENDLIST.

import Foundation
import XCTest
@testable import MediaPub

final class HLSOutputTests: XCTestCase {

    /// The playlist's segment names, or nil when the text is not a playlist.
    private func segments(_ text: String) -> [String]? {
        guard text.hasPrefix("#EXTM3U\n") else { return nil }
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }.map(String.init)
    }

    func testLivePlaylistStaysValidSlidesAndEnds() throws {
        let dir = try makeTempDir()
        let folder = dir.appendingPathComponent("www/live")
        let playlist = folder.appendingPathComponent("index.m3u8")
        let events = dir.appendingPathComponent("events.jsonl")
        // A moving picture: x264 puts a keyframe every 0.4 s into a still one, whatever key-int-max says.
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: "testsrc:?pattern=ball&freq=440",
                                                                  outputs: ["hls://\(playlist.path)?segment=1s&window=3"]))
        // No --realtime: an HLS output is watched as it comes, so the run is realtime.
        let www = try startHTTPServer(root: dir.appendingPathComponent("www"))
        let mp = try startMediaPub(["--preset", preset.path, "--duration", "8s", "--events", events.path])
        var reads = 0, longest = 0
        var served: FFProbeResult? = nil
        let deadline = Date().addingTimeInterval(60)   // bounds a hang, not the run
        while mp.isRunning, Date() < deadline {
            // Whenever it is read, the playlist is whole and names segments that exist.
            if let text = try? String(contentsOf: playlist, encoding: .utf8) {
                let listed = segments(text)
                XCTAssertNotNil(listed, "a torn playlist: \(text.debugDescription)")
                for name in listed ?? [] {
                    XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path), "\(name) listed but missing")
                }
                longest = max(longest, listed?.count ?? 0)
                reads += 1
                if served == nil, (listed?.count ?? 0) >= 3 {
                    // A player reads it from a web server while it is written.
                    served = try? MediaProbe.probe(www.url("live/index.m3u8"), timeout: 20)
                    XCTAssertTrue(mp.isRunning, "probed while the run was going")
                }
            }
            usleep(50_000)
        }
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr)
        XCTAssertTrue(mp.stderr.contains("running t1: realtime"), mp.stderr)
        XCTAssertGreaterThan(reads, 20, "read while it was written")
        XCTAssertEqual(longest, 3, "the window")
        XCTAssertEqual(served?.video?.codecName, "h264", "ffprobe read the live playlist over HTTP: \(served?.rawJSON ?? "nothing")")
        XCTAssertEqual(served?.audio?.codecName, "aac", served?.rawJSON ?? "")
        XCTAssertTrue(www.accessLog.contains("GET /live/index.m3u8"), www.accessLog)
        let text = try String(contentsOf: playlist, encoding: .utf8)
        XCTAssertTrue(text.hasSuffix("#EXT-X-ENDLIST\n") || text.hasSuffix("#EXT-X-ENDLIST"), text)
        let listed = try XCTUnwrap(segments(text))
        XCTAssertEqual(listed.count, 3, text)
        // Segments that left the window are deleted (a couple are kept for late readers).
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".ts") }
        XCTAssertLessThanOrEqual(onDisk.count, 5, "\(onDisk)")
        XCTAssertTrue(Set(listed).isSubset(of: Set(onDisk)))
        // A player reads it: H.264 + AAC, the window's length, decodes cleanly.
        let p = try MediaProbe.probe(playlist.path)
        XCTAssertEqual(p.video?.codecName, "h264", p.rawJSON)
        XCTAssertEqual(p.audio?.codecName, "aac", p.rawJSON)
        let lengths = text.split(separator: "\n").filter { $0.hasPrefix("#EXTINF:") }
            .compactMap { Double($0.dropFirst("#EXTINF:".count).prefix { $0 != "," }) }
        XCTAssertEqual(lengths.count, 3, text)
        XCTAssertTrue(lengths.dropLast().allSatisfy { abs($0 - 1) <= 0.1 }, "segments of the asked length: \(lengths)")
        XCTAssertEqual(p.duration ?? 0, lengths.reduce(0, +), accuracy: 0.2, p.rawJSON)
        let decode = try Proc.run(try Tools.path("ffmpeg"), ["-nostdin", "-v", "error", "-i", playlist.path, "-f", "null", "-"], timeout: 60)
        XCTAssertEqual(decode.status, 0, decode.summary("ffmpeg decodes the playlist"))
        XCTAssertEqual(decode.stderr, "", decode.stderr)
    }

    func testHLSURLsAreChecked() {
        XCTAssertEqual(try OutputURL("hls:///srv/live/index.m3u8?segment=2s&window=5").target,
                       .hls(OutputURL.HLS(playlist: "/srv/live/index.m3u8", segment: 2, window: 5)))
        XCTAssertEqual(try OutputURL("hls:///srv/live/index.m3u8").target, .hls(OutputURL.HLS(playlist: "/srv/live/index.m3u8", segment: 4, window: 6)))
        let refused: [(String, String)] = [
            ("hls://live/index.m3u8", "\"hls://live/index.m3u8\" needs an absolute path: hls:///path/index.m3u8?segment=4s&window=6"),
            ("hls:///srv/live/index.txt", "\"hls:///srv/live/index.txt\": the playlist must end in .m3u8"),
            ("hls:///srv/i.m3u8?segment=0.5s", "\"hls:///srv/i.m3u8?segment=0.5s\": segment must be whole seconds from 1s to 60s, got 0.5s"),
            ("hls:///srv/i.m3u8?window=2", "\"hls:///srv/i.m3u8?window=2\": window must be a number of segments from 3 to 100, got 2"),
            ("hls:///srv/i.m3u8?size=2", "\"hls:///srv/i.m3u8?size=2\": unknown parameter size (segment, window)"),
        ]
        for (url, message) in refused {
            XCTAssertEqual(OutputURL.resolve(url, base: "/"), .failure(OutputURL.Failure(message: message)), url)
        }
    }

    /// hlssink2 reads its segments' path as a printf format: `a%s%n` in the folder crashed
    /// the run (SIGSEGV or SIGABRT), `%Y%m%d` wrote to `%YSuccess0/`. A `%` in an HLS path
    /// is refused before anything starts (exit 2), and nothing is written.
    func testAPercentInTheHLSPathIsRefusedCleanly() throws {
        let dir = try makeTempDir()
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc))
        for folder in ["a%s%n", "%Y%m%d"] {
            let url = "hls://\(dir.path)/\(folder)/index.m3u8?segment=1s&window=3"
            let r = try CLI.run(["--preset", preset.path, "--output", url, "--duration", "3s"], timeout: 60)
            XCTAssertFalse(r.signaled, r.summary(url))
            XCTAssertEqual(r.status, 2, r.summary(url))
            XCTAssertTrue(r.stderr.contains("an HLS path takes no %"), r.stderr)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["t.yaml"], "nothing written")
        }
        // However an HLS output is made, its segments' location has a `%` written `%%`.
        let target = OutputTarget.hls(OutputURL.HLS(playlist: "/x/a%s%n/i%d.m3u8", segment: 2, window: 3))
        XCTAssertTrue(target.muxAndSink(location: "20261202-101010").contains("location=\"/x/a%%s%%n/i%%d-20261202-101010-%05d.ts\""),
                      target.muxAndSink(location: "20261202-101010"))
    }

    /// Two runs to one playlist overwrote each other's segments: the second is refused
    /// at start (exit 2), naming the instance that writes it; the first goes on.
    func testASecondRunToTheSamePlaylistIsRefusedNamingTheFirst() throws {
        let dir = try makeTempDir()
        let playlist = dir.appendingPathComponent("live/index.m3u8")
        let events = dir.appendingPathComponent("events.jsonl")
        let url = "hls://\(playlist.path)?segment=1s&window=3"
        let a = try writeFile(dir, "a.yaml", E2EPreset.basic(name: "run-a", source: E2EPreset.testsrc, outputs: [url]))
        let b = try writeFile(dir, "b.yaml", E2EPreset.basic(name: "run-b", source: E2EPreset.testsrc, outputs: [url]))
        let first = try startMediaPub(["--preset", a.path, "--duration", "60s", "--events", events.path])
        defer { first.cleanUp() }
        XCTAssertTrue(EventLog.waitFor(events, of: first, timeout: 60) {
            $0["event"] as? String == "output.state" && $0["state"] as? String == "publishing"
        }, first.stderr)
        let second = try CLI.run(["--preset", b.path, "--duration", "2s"], timeout: 60)
        XCTAssertEqual(second.status, 2, second.summary("a second run to the same playlist"))
        XCTAssertTrue(second.stderr.contains("is written by the running instance \"run-a\" (pid \(first.pid))"), second.stderr)
        XCTAssertTrue(first.isRunning, "the first run goes on")
        XCTAssertTrue(first.stop(grace: 30), "the first run stops on SIGTERM")
        XCTAssertEqual(first.exitStatus, 0, first.stderr)
        XCTAssertEqual(try MediaProbe.probe(playlist.path).video?.codecName, "h264")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("live/.index.m3u8.lock").path),
                       "the lock goes with the run")
    }

    /// An HLS folder that cannot be made fails the output at once with the system's reason,
    /// never `publishing` first: one below a regular file (Not a directory), and one on a
    /// read-only tmpfs (Read-only file system: refused to root too, which permission bits are not).
    func testAnHLSFolderThatCannotBeMadeFailsWithTheReason() throws {
        let dir = try makeTempDir()
        try Data("not a folder".utf8).write(to: dir.appendingPathComponent("plain-file"))
        let readOnly = dir.appendingPathComponent("read-only")
        try FileManager.default.createDirectory(at: readOnly, withIntermediateDirectories: true)
        let mount = try Proc.run(try Tools.path("mount"), ["-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", readOnly.path], timeout: 30)
        XCTAssertEqual(mount.status, 0, mount.summary("mount a read-only tmpfs (as root)"))
        addTeardownBlock { _ = try? Proc.run(try Tools.path("umount"), [readOnly.path], timeout: 30) }
        let cases = [(dir.appendingPathComponent("plain-file/live"), "Not a directory"),
                     (readOnly.appendingPathComponent("live"), "Read-only file system")]
        for (n, (folder, why)) in cases.enumerated() {
            let events = dir.appendingPathComponent("events-\(n).jsonl")
            let preset = try writeFile(dir, "t\(n).yaml", E2EPreset.basic(source: E2EPreset.testsrc,
                                                                          outputs: ["hls://\(folder.path)/index.m3u8"]))
            let r = try CLI.run(["--preset", preset.path, "--no-realtime", "--duration", "2s", "--events", events.path], timeout: 60)
            XCTAssertEqual(r.status, 1, r.summary("an HLS folder that cannot be made"))
            let states = try EventLog.read(events).filter { $0["event"] as? String == "output.state" }
            XCTAssertEqual(states.compactMap { $0["state"] as? String }, ["failed"], "never publishing first: \(states)")
            XCTAssertEqual(states.first?["error"] as? String, "Could not make the folder \"\(folder.path)\": \(why)")
        }
    }
}

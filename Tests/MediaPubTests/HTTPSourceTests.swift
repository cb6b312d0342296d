// HTTP sources (README, sources that fail; standby): progressive HTTP from
// a real nginx on loopback, `memory: true` for a file and an HTTP source,
// clear errors for a 404 and a non-media file, and a source whose first byte
// comes late (a small python3 server) showing the slate first, then content.

import Foundation
import XCTest

final class HTTPSourceTests: XCTestCase {

    /// A progressive MP4 from nginx, and a source whose first byte comes late, each its
    /// own run, folder, server and control socket, at once: the slow source's run is
    /// realtime and mostly waits. It is started, the progressive one followed through,
    /// then the slow one checked: each as its own test did.
    func testProgressiveMP4FromNginxAndASlowHTTPSourceGivesSlateFirstThenContentWithNoGap() throws {
        let slow = try slowHTTPSourceGivesSlateFirstThenContentWithNoGap()
        try progressiveMP4FromNginx()
        try slow()
    }

    private func progressiveMP4FromNginx() throws {
        let dir = try makeTempDir("progressive")
        let www = dir.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        try TestMedia.makeColorVideo(in: www, name: "clip.mp4", seconds: 2, color: "red", freq: 440)
        let server = try startHTTPServer(root: www)
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.video(players: [PlayerPreset.player("main", source: server.url("clip.mp4"), ["video: true"])],
                                      output: out)
        let r = try runPreset(yaml, in: dir, args: ["--no-realtime", "--control", dir.appendingPathComponent("c.sock").path])
        XCTAssertEqual(r.status, 0, r.summary("mediapub with an HTTP source"))
        XCTAssertTrue(server.accessLog.contains("GET /clip.mp4"), "nginx served the source:\n\(server.accessLog)")
        let p = try assertH264AAC(out.path)
        XCTAssertEqual(p.duration ?? 0, 2, accuracy: 0.3, p.rawJSON)
        try assertFrames(out.path, show: .red, from: 0.2, to: 1.8)
        let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
        XCTAssertEqual(MediaProbe.dominantFrequency(pcm, rate: 16000) ?? 0, 440, accuracy: 10)
    }

    func testMemoryTrueForAFileAndAnHTTPSource() throws {
        let dir = try makeTempDir()
        let www = dir.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        try TestMedia.makeColorVideo(in: www, name: "clip.mp4", seconds: 2, color: "blue", freq: 880)
        try TestMedia.makeAudio(in: dir, name: "local.flac", seconds: 2, freq: 440, ext: "flac")
        let server = try startHTTPServer(root: www)
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.video(players: [
            PlayerPreset.player("remote", source: server.url("clip.mp4"), ["video: true", "memory: true"]),
            PlayerPreset.player("local", source: "local.flac", ["memory: true"]),
        ], output: out)
        let r = try runPreset(yaml, in: dir)
        XCTAssertEqual(r.status, 0, r.summary("mediapub with memory: true sources"))
        XCTAssertTrue(server.accessLog.contains("GET /clip.mp4"), "the remote bytes came from nginx:\n\(server.accessLog)")
        let p = try assertH264AAC(out.path)
        XCTAssertEqual(p.duration ?? 0, 2, accuracy: 0.3, p.rawJSON)
        try assertFrames(out.path, show: .blue, from: 0.2, to: 1.8)
        let pcm = MediaProbe.slice(try MediaProbe.decodePCM(out.path, rate: 16000), rate: 16000, from: 0.2, to: 1.8)
        XCTAssertGreaterThan(MediaProbe.toneLevelDB(pcm, rate: 16000, freq: 880), -25, "the HTTP source's tone, decoded from memory")
        XCTAssertGreaterThan(MediaProbe.toneLevelDB(pcm, rate: 16000, freq: 440), -25, "the file's tone, decoded from memory")
    }

    /// The only player's source cannot be played: exit 1, and a line of
    /// stderr names the URL.
    private func assertUnplayable(_ url: String, in dir: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        let out = dir.appendingPathComponent("out-\(UUID().uuidString.prefix(4)).mp4")
        let yaml = PlayerPreset.audioOnly(players: [PlayerPreset.player("main", source: url)], output: out)
        let r = try runPreset(yaml, in: dir, timeout: 60)
        XCTAssertFalse(r.timedOut, r.summary("mediapub with \(url)"), file: file, line: line)
        XCTAssertEqual(r.status, 1, r.summary("mediapub with \(url): nothing playable"), file: file, line: line)
        let lines = r.stderr.split(whereSeparator: \.isNewline)
        XCTAssertTrue(lines.contains { $0.contains(url) },
                      "a stderr line names \(url):\n\(r.stderr)", file: file, line: line)
    }

    func testHTTP404IsAClearErrorNamingTheURL() throws {
        let dir = try makeTempDir()
        let www = dir.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        let server = try startHTTPServer(root: www)
        let url = server.url("missing.mp4")
        try assertUnplayable(url, in: dir)
        XCTAssertTrue(server.accessLog.contains("\"GET /missing.mp4 HTTP/1.1\" 404"), "nginx answered 404:\n\(server.accessLog)")
    }

    func testNonMediaFileIsAClearErrorNamingTheURL() throws {
        let dir = try makeTempDir()
        let www = dir.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        let text = String(repeating: "This is a plain text file, not media at all.\n", count: 400)
        try text.write(to: www.appendingPathComponent("notes.mp3"), atomically: true, encoding: .utf8)
        let server = try startHTTPServer(root: www)
        try assertUnplayable(server.url("notes.mp3"), in: dir)
    }

    /// A source whose first byte comes 2 s late, in realtime: the
    /// output starts on the standby slate at once, then shows the content,
    /// one frame every 40 ms throughout. Its run is started; returned: the checks once it
    /// has ended.
    private func slowHTTPSourceGivesSlateFirstThenContentWithNoGap() throws -> () throws -> Void {
        let dir = try makeTempDir("slow")
        let www = dir.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        try TestMedia.makeColorVideo(in: www, name: "late.mp4", seconds: 8, color: "red", freq: 440)
        let server = try startSlowHTTPServer(root: www, delay: 2.0)
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.video(players: [PlayerPreset.player("main", source: server.url("late.mp4"), ["video: true"])],
                                      output: out, extra: "standby:\n  color: \"#0000FF\"")
        let preset = try writeFile(dir, "preset.yaml", yaml)
        let began = Date()
        let run = try startMediaPub(["--preset", preset.path, "--realtime", "--duration", "6s",
                                     "--control", dir.appendingPathComponent("c.sock").path])
        return { [self] in try checkTheSlowHTTPSource(run, began: began, server: server, out: out) }
    }

    /// The run of `slowHTTPSourceGivesSlateFirstThenContentWithNoGap`, to its end (40 s from its start at most).
    private func checkTheSlowHTTPSource(_ run: RunningProcess, began: Date, server: SlowHTTPServer, out: URL) throws {
        let exited = run.waitForExit(timeout: max(0, 40 - Date().timeIntervalSince(began)))
        let r = run.result(timedOut: !exited)
        XCTAssertEqual(r.status, 0, r.summary("mediapub with a slow HTTP source"))
        XCTAssertTrue(server.log.contains("GET /late.mp4"), "the slow server was asked:\n\(server.log)")

        let stats = try MediaProbe.frameStats(out.path)
        XCTAssertEqual(Double(stats.count), 150, accuracy: 3, "6 s at 25 fps")
        let steps = zip(stats.dropFirst(), stats).map { $0.pts - $1.pts }
        XCTAssertTrue(steps.allSatisfy { abs($0 - 0.04) < 0.002 }, "one frame every 40 ms: \(Set(steps.map { ($0 * 1000).rounded() }))")
        let start = stats.first?.pts ?? 0
        guard let firstContent = stats.firstIndex(where: { Colour.red.matches($0) }) else {
            return XCTFail("the content never appeared: \(stats.prefix(5)) … \(stats.suffix(5))")
        }
        let switchAt = stats[firstContent].pts - start
        XCTAssertTrue(stats[..<firstContent].allSatisfy { Colour.blue.matches($0) },
                      "before the content: only the blue slate (switch at \(switchAt) s)")
        XCTAssertGreaterThanOrEqual(switchAt, 1.0, "the first byte came after 2 s: the slate must lead the output")
        XCTAssertLessThanOrEqual(switchAt, 4.0, "the content shows soon after it arrives")
        XCTAssertTrue(stats[firstContent...].allSatisfy { Colour.red.matches($0) },
                      "once the content is there, every frame is content")

        // Sound: silence (no ringtone) under the slate, then the tone with no dropout.
        let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
        XCTAssertEqual(Double(pcm.count) / 16000, 6, accuracy: 0.1, "audio as long as the video")
        let rms = MediaProbe.windowRMSDB(MediaProbe.slice(pcm, rate: 16000, from: switchAt + 0.1, to: 5.9), rate: 16000, window: 0.01)
        XCTAssertFalse(rms.isEmpty)
        XCTAssertGreaterThan(rms.min() ?? -200, -40, "no audio gap after the content started")
    }
}

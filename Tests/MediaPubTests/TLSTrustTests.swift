// One TLS trust path. SSL_CERT_FILE (a private CA) is honoured for
// streamed HLS (the playlist and every segment), `mediapub probe`, `memory: true`,
// plain HTTPS files and webhooks alike; without it each says the certificate is
// not trusted. Real servers: nginx over TLS on loopback with a CA and certificate
// made by openssl now; media made by ffmpeg; the recording checked by decoding it.

import Foundation
import XCTest

final class TLSTrustTests: XCTestCase {

    /// nginx over TLS serving a VOD HLS playlist (3 segments, 440 Hz), tone.mp3
    /// (660 Hz) and fetched.mp3 (880 Hz), and answering webhook POSTs on /hook.
    private func startServer(in dir: URL) throws -> (HTTPServer, TestPKI) {
        let www = dir.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        try TestMedia.makeHLS(in: www, name: "vod.m3u8", seconds: 3, color: "blue", freq: 440)
        try TestMedia.makeAudio(in: www, name: "tone.mp3", seconds: 1, freq: 660, ext: "mp3")
        try TestMedia.makeAudio(in: www, name: "fetched.mp3", seconds: 1, freq: 880, ext: "mp3")
        let pki = try TestPKI(in: dir)
        return (try startHTTPServer(root: www, tls: pki), pki)
    }

    /// Runs an audio-only preset: player music plays `items` once, player fetched
    /// plays fetched.mp3 with `memory: true`, events also go to the webhook.
    private func run(_ items: [String], server: HTTPServer, in dir: URL,
                     env: [String: String]) throws -> (ProcessResult, [[String: Any]], URL) {
        let out = dir.appendingPathComponent("out-\(UUID().uuidString.prefix(4)).mp4")
        let list = items.map { "\"\($0)\"" }.joined(separator: ", ")
        let players = ["  - id: music\n    playlist:\n      mode: once\n      items: [\(list)]\n",
                       PlayerPreset.player("fetched", source: server.url("fetched.mp3"), ["memory: true"])]
        let preset = try writeFile(dir, "preset.yaml", PlayerPreset.audioOnly(
            players: players, output: out, extra: "events:\n  webhook: \"\(server.url("hook"))\"\n"))
        let events = dir.appendingPathComponent("events-\(UUID().uuidString.prefix(4)).jsonl")
        let r = try CLI.run(["--preset", preset.path, "--no-realtime", "--events", events.path], env: env, timeout: 90)
        XCTAssertFalse(r.timedOut, r.summary("mediapub"))
        return (r, (try? EventLog.read(events)) ?? [], out)
    }

    private func warnings(_ events: [[String: Any]]) -> [String] {
        events.filter { $0["event"] as? String == "warning" }.compactMap { $0["message"] as? String }
    }

    private func tracks(_ events: [[String: Any]], player: String) -> [Int] {
        events.filter { $0["event"] as? String == "player.track" && $0["player"] as? String == player }
            .compactMap { $0["index"] as? Int }
    }

    /// Before: the playlist came (the source was given the CA) and no segment was
    /// ever asked for: the HLS demuxer's downloads were not, and the item failed
    /// with "connection refused, failed or dropped".
    func testPrivateCATrustedByStreamedHLSPlainHTTPSMemoryAndWebhook() throws {
        let dir = try makeTempDir()
        let (server, pki) = try startServer(in: dir)
        let (r, events, out) = try run([server.url("vod.m3u8"), server.url("tone.mp3")], server: server, in: dir,
                                       env: ["SSL_CERT_FILE": pki.ca.path])
        XCTAssertEqual(r.status, 0, r.summary("every HTTPS source is signed by the private CA"))
        XCTAssertEqual(warnings(events), [], "nothing went wrong")
        XCTAssertEqual(tracks(events, player: "music"), [0, 1])
        XCTAssertEqual(tracks(events, player: "fetched"), [0])
        let log = server.accessLog
        for path in ["/vod.m3u8", "/seg000.ts", "/seg001.ts", "/seg002.ts", "/tone.mp3", "/fetched.mp3"] {
            XCTAssertTrue(log.contains("\"GET \(path) HTTP/1.1\" 200"), "\(path) came over TLS: \(log)")
        }
        XCTAssertTrue(log.contains("\"POST /hook HTTP/1.1\" 200"), "the webhook got events over TLS: \(log)")
        let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
        XCTAssertGreaterThan(MediaProbe.toneLevelDB(MediaProbe.slice(pcm, rate: 16000, from: 0.2, to: 0.8), rate: 16000, freq: 880),
                             -25, "the fetched source (memory: true)")
        XCTAssertGreaterThan(MediaProbe.toneLevelDB(MediaProbe.slice(pcm, rate: 16000, from: 1.2, to: 2.8), rate: 16000, freq: 440),
                             -25, "the HLS segments after the first")
        XCTAssertGreaterThan(MediaProbe.toneLevelDB(MediaProbe.slice(pcm, rate: 16000, from: 3.2, to: 3.8), rate: 16000, freq: 660),
                             -25, "the plain HTTPS file after the playlist")
    }

    /// Without SSL_CERT_FILE each use says the certificate is not trusted, in one line.
    func testWithoutTheCAEachUseSaysTheCertificateIsNotTrusted() throws {
        let dir = try makeTempDir()
        let (server, _) = try startServer(in: dir)
        try TestMedia.makeAudio(in: dir, name: "after.flac", seconds: 1, freq: 330, ext: "flac")
        let hls = server.url("vod.m3u8")
        let (r, events, _) = try run([hls, "after.flac"], server: server, in: dir, env: [:])
        XCTAssertEqual(r.status, 0, r.summary("the playlist goes on"))
        let w = warnings(events)
        XCTAssertTrue(w.contains { $0.hasPrefix("player music: skipping \(hls): TLS certificate not trusted (") }, "\(w)")
        XCTAssertTrue(w.contains { $0.hasPrefix("webhook https://127.0.0.1:\(server.port)/…: TLS certificate not trusted (") }, "\(w)")
        let fetched = events.filter { $0["event"] as? String == "player.state" && $0["player"] as? String == "fetched" }
            .compactMap { $0["error"] as? String }
        XCTAssertTrue(fetched.contains { $0.hasPrefix("\(server.url("fetched.mp3")): TLS certificate not trusted (") }, "\(fetched)")
        XCTAssertEqual(tracks(events, player: "music"), [1], "only the local file plays")
        XCTAssertFalse(server.accessLog.contains("GET /seg"), "no segment is asked for")
    }

    /// `mediapub probe https://…` of an HLS playlist. Before: "Internal data stream
    /// error." with SSL_CERT_FILE and without it.
    func testProbeTrustsTheCAAndSaysWhenTheCertificateIsNotTrusted() throws {
        let dir = try makeTempDir()
        let (server, pki) = try startServer(in: dir)
        let url = server.url("vod.m3u8")
        let trusted = try CLI.run(["probe", url], env: ["SSL_CERT_FILE": pki.ca.path], timeout: 60)
        XCTAssertEqual(trusted.status, 0, trusted.summary("probe with the private CA"))
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(trusted.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(Double(json["duration_ms"] as? Int ?? 0), 3000, accuracy: 300, "\(json)")
        let types = (json["streams"] as? [[String: Any]] ?? []).compactMap { $0["type"] as? String }
        XCTAssertEqual(Set(types), ["audio", "video"], "\(json)")
        XCTAssertTrue(server.accessLog.contains("\"GET /seg000.ts HTTP/1.1\" 200"), "a segment was read: \(server.accessLog)")
        let untrusted = try CLI.run(["probe", url], timeout: 60)
        XCTAssertNotEqual(untrusted.status, 0, untrusted.summary("probe without the CA"))
        XCTAssertTrue(untrusted.stderr.contains("source \(url): TLS certificate not trusted ("), untrusted.summary("probe without the CA"))
    }
}

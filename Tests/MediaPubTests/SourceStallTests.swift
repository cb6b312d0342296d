// Sources that deliver nothing, and errors said in our words.
// A server that sends its headers and then nothing, a FIFO nobody writes to
// and one whose writer goes quiet mid-way are each reported within seconds
// ("sends nothing (stalled)") and retried/skipped like any failed source; a
// redirect loop, an untrusted certificate, an unknown host and a playlist file
// given as a source each get a message that says what happened; a private CA
// given by SSL_CERT_FILE is trusted (GStreamer's HTTP source and libcurl).
// Real servers on loopback: python3 http.server (plain and TLS, with a CA and
// a certificate made by openssl at test time).

import Foundation
import XCTest
@testable import MediaPub

/// A python3 script serving on a free loopback port (its first argument).
final class ScriptServer {
    let port: UInt16
    let process: RunningProcess

    init(script: String, in dir: URL, args: [String] = []) throws {
        let file = dir.appendingPathComponent("server-\(UUID().uuidString.prefix(6)).py")
        try script.write(to: file, atomically: true, encoding: .utf8)
        var lastError = ""
        for _ in 0..<3 {
            let port = try Ports.free()
            let p = try RunningProcess(executable: "python3", arguments: [file.path, "\(port)"] + args)
            if Ports.waitUntil(timeout: 10, { Ports.tcpAccepts(port) || !p.isRunning }), p.isRunning {
                self.port = port
                self.process = p
                return
            }
            lastError = "python3 server did not listen on \(port): \(p.stderr)"
            p.cleanUp()
        }
        throw HarnessError(lastError)
    }

    func url(_ path: String, scheme: String = "http") -> String { "\(scheme)://127.0.0.1:\(port)/\(path)" }

    func stop() {
        process.stop(signal: SIGTERM, grace: 3)
        process.cleanUp()
    }

    /// /stall.mp3: 200 and its headers, then not a byte (the connection stays open);
    /// /loop: a redirect to /loop2, which redirects back to /loop.
    static let odd = """
    import http.server, socketserver, sys, threading, time
    class H(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path.startswith("/loop"):
                self.send_response(302)
                self.send_header("Location", "/loop2" if self.path == "/loop" else "/loop")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if self.path.startswith("/stall"):
                self.send_response(200)
                self.send_header("Content-Type", "audio/mpeg")
                self.send_header("Content-Length", "1000000")
                self.end_headers()
                self.wfile.flush()
                threading.Event().wait()  # holds the connection until the server is killed
                return
            self.send_response(404)
            self.end_headers()
        def log_message(self, fmt, *args):
            sys.stderr.write("%s\\n" % (fmt % args)); sys.stderr.flush()
    class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True
        allow_reuse_address = True
    S(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
    """

    /// Serves the file argv[2] (Range requests too); the first request from the start
    /// gets the headers and 40 % of the bytes, then nothing more (the connection stays open).
    static let midway = """
    import http.server, socketserver, sys, time, threading
    data = open(sys.argv[2], "rb").read()
    lock = threading.Lock()
    stalled = [False]
    class H(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            rng = self.headers.get("Range") or ""
            start = int(rng[6:].split("-")[0] or 0) if rng.startswith("bytes=") else 0
            with lock:
                stall = start == 0 and not stalled[0]
                stalled[0] = True
            sys.stderr.write("GET %s range=%s stall=%s\\n" % (self.path, rng, stall)); sys.stderr.flush()
            if start > 0:
                self.send_response(206)
                self.send_header("Content-Range", "bytes %d-%d/%d" % (start, len(data) - 1, len(data)))
            else:
                self.send_response(200)
            self.send_header("Content-Type", "audio/mpeg")
            self.send_header("Accept-Ranges", "bytes")
            self.send_header("Content-Length", str(len(data) - start))
            self.end_headers()
            if stall:
                self.wfile.write(data[:len(data) * 4 // 10]); self.wfile.flush()
                threading.Event().wait()  # holds the connection until the server is killed
                return
            self.wfile.write(data[start:])
        def log_message(self, fmt, *args):
            pass
    class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True
        allow_reuse_address = True
    S(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
    """

    /// Serves the folder argv[2] over HTTPS with the certificate argv[3] and key argv[4];
    /// a client that refuses the certificate does not stop the server.
    static let tls = """
    import http.server, socketserver, ssl, sys, os
    os.chdir(sys.argv[2])
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(sys.argv[3], sys.argv[4])
    class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True
        allow_reuse_address = True
        def get_request(self):
            sock, addr = self.socket.accept()
            return ctx.wrap_socket(sock, server_side=True, do_handshake_on_connect=False), addr
    class H(http.server.SimpleHTTPRequestHandler):
        def setup(self):
            try:
                self.request.do_handshake()
            except Exception:
                pass
            super().setup()
        def log_message(self, fmt, *args):
            sys.stderr.write("%s\\n" % (fmt % args)); sys.stderr.flush()
    S(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
    """
}

final class SourceStallTests: XCTestCase {

    private func startServer(_ script: String, in dir: URL, args: [String] = []) throws -> ScriptServer {
        let s = try ScriptServer(script: script, in: dir, args: args)
        addTeardownBlock { s.stop() }
        return s
    }

    /// An audio-only preset whose one player plays `items` once, as fast as possible
    /// (`pace`: the run options that say otherwise; a FIFO is endless, and a run with one
    /// is realtime), started in the background.
    private func startPlaylist(_ items: [String], in dir: URL, env: [String: String] = [:], extraPlayers: [String] = [],
                               pace: [String] = ["--no-realtime"]) throws -> Run {
        let out = dir.appendingPathComponent("out.mp4")
        let list = items.map { "\"\($0)\"" }.joined(separator: ", ")
        let player = "  - id: music\n    playlist:\n      mode: once\n      items: [\(list)]\n"
        let preset = try writeFile(dir, "preset.yaml", PlayerPreset.audioOnly(players: [player] + extraPlayers, output: out))
        return try start(["--preset", preset.path] + pace, in: dir, env: env)
    }

    /// Runs what `startPlaylist` starts, to its end; returns the run, its events and its recording.
    private func runPlaylist(_ items: [String], in dir: URL, env: [String: String] = [:], extraPlayers: [String] = [],
                             pace: [String] = ["--no-realtime"], timeout: TimeInterval) throws -> (ProcessResult, [[String: Any]], URL) {
        try startPlaylist(items, in: dir, env: env, extraPlayers: extraPlayers, pace: pace).finish(within: timeout)
    }

    /// mediapub with `args`, and its events file and control socket in `dir` (so that
    /// runs of one preset name go at once), started in the background.
    private func start(_ args: [String], in dir: URL, env: [String: String] = [:]) throws -> Run {
        let events = dir.appendingPathComponent("events.jsonl")
        let began = Date()
        let process = try startMediaPub(args + ["--events", events.path, "--control", dir.appendingPathComponent("c.sock").path], env: env)
        return Run(process: process, events: events, out: dir.appendingPathComponent("out.mp4"), began: began)
    }

    /// A run started in the background: its process, events file and recording.
    private struct Run {
        let process: RunningProcess
        let events: URL
        let out: URL
        let began: Date

        /// Waits for the run's end, `timeout` from its start at most, as `CLI.run` would
        /// (so a run waited for after others keeps its own bound); returns the run, its
        /// events and its recording.
        func finish(within timeout: TimeInterval) -> (ProcessResult, [[String: Any]], URL) {
            let ended = process.waitForExit(timeout: max(0, timeout - Date().timeIntervalSince(began)))
            if !ended { process.kill9() }
            let r = process.result(timedOut: !ended)
            XCTAssertFalse(r.timedOut, r.summary("mediapub"))
            return (r, (try? EventLog.read(events)) ?? [], out)
        }
    }

    private func warnings(_ events: [[String: Any]]) -> [String] {
        events.filter { $0["event"] as? String == "warning" }.compactMap { $0["message"] as? String }
    }

    private func tracks(_ events: [[String: Any]], player: String = "music") -> [Int] {
        events.filter { $0["event"] as? String == "player.track" && $0["player"] as? String == player }
            .compactMap { $0["index"] as? Int }
    }

    /// A folder of its own in `dir`, for one of a test's runs.
    private func folder(_ dir: URL, _ name: String) throws -> URL {
        let sub = dir.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        return sub
    }

    /// Sources that send nothing, each run its own process and folder, all at once:
    /// most of each run is a source waited for (10 s at a time), so the waits overlap.
    /// The server that sends nothing and the other failures beside it, the FIFOs, and
    /// the as-fast-as-possible run with --duration go in the background; the HTTP
    /// source that stalls mid-way, whose status is asked mid-run, goes meanwhile, and
    /// then the `memory: true` failures (their own runs, their own folder).
    /// Each run is then checked as its own test did.
    func testSourcesThatSendNothingAreReportedAndPassedAndOtherFailuresSayWhatHappened() throws {
        let dir = try makeTempDir()
        let checks = [try serverThatSendsNothingBesideOtherFailures(in: try folder(dir, "server")),
                      try fifosWithNoWriterAndOneThatStallsMidway(in: try folder(dir, "fifo")),
                      try durationEndingAnAsFastAsPossibleRunWhoseSourceStalls(in: try folder(dir, "duration"))]
        try httpSourceThatStallsMidwayIsRetriedFromWhereItStoppedAndStatusIsAnsweredMeanwhile(in: try folder(dir, "midway"))
        try memoryTrueSaysWhatHappenedToo(in: try folder(dir, "memory"))
        for check in checks { try check() }
    }

    /// Before: a server that sends headers and no body held the playlist for 127 s
    /// (30 s of preroll timeout, four times, with the retry pauses).
    /// Beside it in the same run, a player of its own (so that its items are tried
    /// while the stalled source is waited for): a redirect loop, an untrusted
    /// certificate and an unknown host each say what happened (before: "Found", and
    /// "cannot read from the server (connection refused, failed or dropped)" for both
    /// an untrusted certificate and an unknown host).
    private func serverThatSendsNothingBesideOtherFailures(in dir: URL) throws -> () throws -> Void {
        let server = try startServer(ScriptServer.odd, in: dir)
        try TestMedia.makeAudio(in: dir, name: "after.flac", seconds: 1, freq: 880, ext: "flac")
        let www = dir.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        try TestMedia.makeAudio(in: www, name: "tone.mp3", seconds: 1, freq: 440, ext: "mp3")
        let pki = try TestPKI(in: dir)
        let tls = try startServer(ScriptServer.tls, in: dir, args: [www.path, pki.cert.path, pki.key.path])
        try TestMedia.makeAudio(in: dir, name: "web-after.flac", seconds: 1, freq: 660, ext: "flac")
        let loop = server.url("loop"), secure = tls.url("tone.mp3", scheme: "https"), unknown = "http://no-such-host.invalid/x.mp3"
        let web = "  - id: web\n    playlist:\n      mode: once\n      items: [\"\(loop)\", \"\(secure)\", \"\(unknown)\", web-after.flac]\n"
        let url = server.url("stall.mp3")
        let run = try startPlaylist([url, "after.flac"], in: dir, extraPlayers: [web])
        return { [self] in
            let (r, events, out) = run.finish(within: 75)
            XCTAssertEqual(r.status, 0, r.summary("the playlists go on after the stalled source and the failures"))
            let w = warnings(events)
            XCTAssertTrue(w.contains("player music: \(url): sends nothing (stalled); retrying in 1s"), "\(w)")
            XCTAssertTrue(w.contains("player music: \(url): sends nothing (stalled); retrying in 4s"), "\(w)")
            XCTAssertTrue(w.contains("player music: skipping \(url): sends nothing (stalled)"), "\(w)")
            XCTAssertEqual(tracks(events), [1], "the next item plays")
            XCTAssertTrue(server.process.stderr.contains("GET /stall.mp3"), "the server was asked: \(server.process.stderr)")
            let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
            XCTAssertGreaterThan(MediaProbe.toneLevelDB(pcm, rate: 16000, freq: 880), -25, "the next item is recorded")
            XCTAssertTrue(w.contains("player web: skipping \(loop): too many redirects"), "\(w)")
            XCTAssertTrue(w.contains { $0.hasPrefix("player web: skipping \(secure): TLS certificate not trusted (") }, "\(w)")
            XCTAssertTrue(w.contains("player web: skipping \(unknown): host not found"), "\(w)")
            XCTAssertEqual(tracks(events, player: "web"), [3], "only the last item plays")
        }
    }

    /// As fast as possible, a run with --duration ends at its duration even when a
    /// source stalls: past the duration's wall time (and a few seconds), sources are no
    /// longer waited for and the standby fills the rest. Here a looping playlist: a 2 s
    /// file, then a server that sends nothing. Before: each round waited some 50 s for
    /// the stalled source (its retries) for 2 s of output, and the run did not end
    /// within the harness's 60 s (still its bound, from its start).
    private func durationEndingAnAsFastAsPossibleRunWhoseSourceStalls(in dir: URL) throws -> () throws -> Void {
        let server = try startServer(ScriptServer.odd, in: dir)
        try TestMedia.makeAudio(in: dir, name: "first.flac", seconds: 2, freq: 440, ext: "flac")
        let out = dir.appendingPathComponent("out.mp4")
        let player = "  - id: music\n    playlist:\n      mode: loop\n      items: [first.flac, \"\(server.url("stall.mp3"))\"]\n"
        let yaml = PlayerPreset.audioOnly(players: [player], output: out)
        let preset = try writeFile(dir, "preset.yaml", yaml)
        let run = try start(["--preset", preset.path, "--no-realtime", "--duration", "8s"], in: dir)
        return { [self] in
            let (r, events, _) = run.finish(within: 60)
            XCTAssertFalse(r.timedOut, r.summary("mediapub with a stalled source"))
            XCTAssertEqual(r.status, 0, r.summary("mediapub with a stalled source"))
            let stopped = events.last { $0["event"] as? String == "run.stopped" }
            XCTAssertEqual(stopped?["reason"] as? String, "duration reached")
            XCTAssertEqual(try MediaProbe.probe(out.path).duration ?? 0, 8, accuracy: 0.2, "the recording is as long as --duration")
            let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
            XCTAssertGreaterThan(toneLevel(pcm, from: 0.2, to: 1.8, freq: 440), -25,
                                 "the file played first")
        }
    }

    /// Two FIFOs in one realtime run, each in a player of its own, so that their waits
    /// overlap. One nobody writes to is reported and skipped (before: it stayed "loading"
    /// for ever, with no warning). One whose writer sends 2 s of a tone and then keeps it
    /// open without a word: what came plays, then the player moves on (before: it
    /// waited for ever).
    private func fifosWithNoWriterAndOneThatStallsMidway(in dir: URL) throws -> () throws -> Void {
        let empty = dir.appendingPathComponent("empty.fifo").path
        XCTAssertEqual(mkfifo(empty, 0o600), 0, "mkfifo")
        try TestMedia.makeAudio(in: dir, name: "idle-after.flac", seconds: 1, freq: 660, ext: "flac")
        let idle = "  - id: idle\n    playlist:\n      mode: once\n      items: [\"\(empty)\", idle-after.flac]\n"
        let fifo = dir.appendingPathComponent("in.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0, "mkfifo")
        let wav = try TestMedia.makeAudio(in: dir, name: "first.wav", seconds: 2, freq: 440, ext: "wav")
        try TestMedia.makeAudio(in: dir, name: "after.flac", seconds: 1, freq: 880, ext: "flac")
        _ = try startTool("sh", ["-c", "exec 3>\"$1\"; cat \"$2\" >&3; exec tail -f /dev/null", "writer", fifo, wav.path])
        let run = try startPlaylist([fifo, "after.flac"], in: dir, extraPlayers: [idle], pace: [])
        return { [self] in
            let (r, events, out) = run.finish(within: 40)
            XCTAssertEqual(r.status, 0, r.summary("the playlists go on after the FIFOs"))
            XCTAssertTrue(warnings(events).contains("player idle: skipping \(empty): sends nothing (stalled): nothing writes to the FIFO"),
                          "\(warnings(events))")
            XCTAssertEqual(tracks(events, player: "idle"), [1], "the next item plays")
            XCTAssertTrue(warnings(events).contains("player music: \(fifo): sends nothing (stalled); moving on after what decoded"),
                          "\(warnings(events))")
            XCTAssertEqual(tracks(events), [0, 1], "the FIFO played, then the next item")
            let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
            let seconds = Double(pcm.count) / 16000
            XCTAssertGreaterThan(toneLevel(pcm, from: 0.2, to: 1.8, freq: 440), -25,
                                 "what the writer sent plays")
            XCTAssertGreaterThan(toneLevel(pcm, from: seconds - 0.8, to: seconds - 0.1, freq: 880), -25, "then the next item")
        }
    }

    /// A server that stops sending mid-way (the connection open): what came plays,
    /// the stall is reported within seconds and the source is retried from where it
    /// stopped, and plays to its end (before: 15 s of nothing and no word of it, until
    /// GStreamer's HTTP source timed out and asked again on its own).
    /// As fast as possible, the stall keeps the capture waiting up to 10 s for its
    /// decoder; `ctl status` is answered meanwhile, three times, each before the stall
    /// is reported (before: the capture waited holding the player's lock, and `status`
    /// waited with it, until the stall was over). One run carries both checks.
    private func httpSourceThatStallsMidwayIsRetriedFromWhereItStoppedAndStatusIsAnsweredMeanwhile(in dir: URL) throws {
        let song = try TestMedia.makeAudio(in: dir, name: "song.mp3", seconds: 6, freq: 440, ext: "mp3")
        let server = try startServer(ScriptServer.midway, in: dir, args: [song.path])
        let url = server.url("song.mp3")
        let player = "  - id: music\n    progress_interval: 100ms\n    source: \"\(url)\"\n"
        let out = dir.appendingPathComponent("out.mp4")
        let preset = try writeFile(dir, "preset.yaml", PlayerPreset.audioOnly(players: [player], output: out))
        let events = dir.appendingPathComponent("events.jsonl")
        let socket = dir.appendingPathComponent("c.sock").path
        let run = try startMediaPub(["--preset", preset.path, "--no-realtime", "--events", events.path, "--control", socket])
        func read() -> [[String: Any]] { (try? EventLog.read(events)) ?? [] }
        let stalled = "player music: \(url): sends nothing (stalled); retrying in 1s"
        // What the server sent (40 % of 6 s) has played: the capture now waits for more.
        XCTAssertTrue(Ports.waitUntil(timeout: 60, watching: events) {
            read().contains { $0["event"] as? String == "player.progress" && ($0["position_ms"] as? Int ?? 0) >= 2000 } || !run.isRunning
        }, "the first two seconds play")
        for n in 0..<3 {
            let status = try CLI.run(["ctl", "--socket", socket, "status"], timeout: 30)
            XCTAssertEqual(status.status, 0, status.summary("ctl status \(n)"))
            XCTAssertFalse(warnings(read()).contains(stalled), "status \(n) is answered before the stall is reported")
        }
        XCTAssertTrue(run.waitForExit(timeout: 60), "the source is retried and plays to its end")
        XCTAssertEqual(run.result().status, 0, run.result().summary("mediapub"))
        XCTAssertEqual(warnings(read()), [stalled])
        XCTAssertEqual(tracks(read()), [0, 0], "played, then again after the retry")
        let log = server.process.stderr
        XCTAssertTrue(log.contains("stall=True"), "the first request stalled: \(log)")
        XCTAssertTrue(log.contains("range=bytes=") && log.contains("stall=False"), "the retry asked from where it stopped: \(log)")
        let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
        let seconds = Double(pcm.count) / 16000
        XCTAssertGreaterThan(toneLevel(pcm, from: 0.2, to: 1.5, freq: 440), -25,
                             "what came before the stall plays")
        XCTAssertGreaterThan(toneLevel(pcm, from: seconds - 1.5, to: seconds - 0.2, freq: 440), -25, "and the rest after the retry")
    }

    /// `memory: true` (libcurl) says the same as a streamed source (before: curl's
    /// "SSL certificate problem: …" and "Could not resolve host: …" as they came).
    /// The two runs go at once, each its own folder, events file and control socket.
    private func memoryTrueSaysWhatHappenedToo(in dir: URL) throws {
        let www = dir.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        try TestMedia.makeAudio(in: www, name: "tone.mp3", seconds: 1, freq: 440, ext: "mp3")
        let pki = try TestPKI(in: dir)
        let tls = try startServer(ScriptServer.tls, in: dir, args: [www.path, pki.cert.path, pki.key.path])
        let cases = [(tls.url("tone.mp3", scheme: "https"), "TLS certificate not trusted ("),
                     ("http://no-such-host.invalid/x.mp3", "host not found")]
        let runs = try cases.enumerated().map { n, source in
            let sub = try folder(dir, "run\(n)")
            let preset = try writeFile(sub, "preset.yaml", PlayerPreset.audioOnly(
                players: [PlayerPreset.player("music", source: source.0, ["memory: true"])], output: sub.appendingPathComponent("out.mp4")))
            return try start(["--preset", preset.path, "--no-realtime"], in: sub)
        }
        for ((url, expected), run) in zip(cases, runs) {
            let (r, events, _) = run.finish(within: 60)
            XCTAssertEqual(r.status, 1, r.summary("nothing playable"))
            let errors = events.filter { $0["event"] as? String == "player.state" }.compactMap { $0["error"] as? String }
            XCTAssertEqual(errors.count, 1, "\(errors)")
            XCTAssertTrue(errors.first?.hasPrefix("\(url): \(expected)") == true, "\(errors)")
        }
    }

    /// SSL_CERT_FILE names the test's private CA: an HTTPS source signed by it plays,
    /// streamed (GStreamer) and fetched whole (`memory: true`, libcurl).
    func testPrivateCAFromSSLCertFileIsTrusted() throws {
        let dir = try makeTempDir()
        let www = dir.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        try TestMedia.makeAudio(in: www, name: "a.mp3", seconds: 2, freq: 440, ext: "mp3")
        try TestMedia.makeAudio(in: www, name: "b.mp3", seconds: 2, freq: 880, ext: "mp3")
        let pki = try TestPKI(in: dir)
        let tls = try startServer(ScriptServer.tls, in: dir, args: [www.path, pki.cert.path, pki.key.path])
        let fetched = PlayerPreset.player("fetched", source: tls.url("b.mp3", scheme: "https"), ["memory: true"])
        let (r, events, out) = try runPlaylist([tls.url("a.mp3", scheme: "https")], in: dir, env: ["SSL_CERT_FILE": pki.ca.path],
                                               extraPlayers: [fetched], timeout: 60)
        XCTAssertEqual(r.status, 0, r.summary("HTTPS sources signed by the private CA"))
        XCTAssertEqual(warnings(events), [], "nothing went wrong")
        XCTAssertEqual(tracks(events), [0])
        XCTAssertEqual(tracks(events, player: "fetched"), [0])
        let log = tls.process.stderr
        XCTAssertTrue(log.contains("GET /a.mp3") && log.contains("GET /b.mp3"), "both came over TLS: \(log)")
        let pcm = MediaProbe.slice(try MediaProbe.decodePCM(out.path, rate: 16000), rate: 16000, from: 0.2, to: 1.8)
        XCTAssertGreaterThan(MediaProbe.toneLevelDB(pcm, rate: 16000, freq: 440), -25, "the streamed source's tone")
        XCTAssertGreaterThan(MediaProbe.toneLevelDB(pcm, rate: 16000, freq: 880), -25, "the fetched source's tone")
    }

    /// SSL_CERT_FILE is read for a source that speaks TLS, never for a file: the
    /// system's CA bundle is some 3 MB of memory and tens of ms of parsing, for nothing.
    /// A CA file that cannot be read is reported for the HTTP source only.
    func testTheCertificateFileIsReadOnlyForSourcesThatSpeakTLS() throws {
        let dir = try makeTempDir()
        let notPEM = try writeFile(dir, "not-a-ca.pem", "not a certificate\n")
        let file = try XCTUnwrap(Element(factory: "filesrc"))
        let http = try XCTUnwrap(Element(factory: "souphttpsrc"))
        XCTAssertFalse(file.hasObjectProperty("tls-database"))
        XCTAssertTrue(http.hasObjectProperty("tls-database"))
        XCTAssertNil(TLSTrust.apply(to: file, caFile: notPEM.path), "a file source leaves the CA file alone")
        XCTAssertEqual(TLSTrust.apply(to: http, caFile: notPEM.path), "SSL_CERT_FILE \(notPEM.path): no certificate can be read from it")
    }

    /// Before: a .m3u/.pls given as `source:` passed validate and failed at run time
    /// as a missing GStreamer plug-in.
    func testPlaylistFileAsSourceIsCaughtByValidate() throws {
        let dir = try makeTempDir()
        _ = try writeFile(dir, "music.m3u", "a.mp3\nb.mp3\n")
        _ = try writeFile(dir, "list.txt", "#EXTM3U\n#EXTINF:-1,A\na.mp3\n")
        _ = try writeFile(dir, "live.m3u8", "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n")
        let cases: [(source: String, name: String)] = [("music.m3u", "music.m3u"), ("http://radio.example/stream.pls?x=1", "stream.pls"),
                                                       ("list.txt", "list.txt")]
        for c in cases {
            let preset = try writeFile(dir, "p.yaml", "name: t\nplayers:\n  - id: music\n    source: \"\(c.source)\"\noutputs:\n  - url: \"null://\"\n")
            let r = try CLI.run(["validate", preset.path], timeout: 30)
            XCTAssertEqual(r.status, 2, r.summary("validate \(c.source)"))
            XCTAssertTrue(r.stderr.contains("\(preset.path):4: players[0].source: \(c.name) is a playlist file: use playlist.file"),
                          r.summary("validate \(c.source)"))
        }
        // HLS is a stream: an .m3u8 (local or remote) is a source.
        for source in ["live.m3u8", "http://radio.example/live.m3u8"] {
            let preset = try writeFile(dir, "p.yaml", "name: t\nplayers:\n  - id: music\n    source: \"\(source)\"\noutputs:\n  - url: \"null://\"\n")
            let r = try CLI.run(["validate", preset.path], timeout: 30)
            XCTAssertEqual(r.status, 0, r.summary("validate \(source)"))
        }
    }
}

private extension SourceStallTests {
    /// The level of `freq` in `from`..`to` s of 16 kHz PCM, in dB.
    func toneLevel(_ pcm: [Float], from: Double, to: Double, freq: Double) -> Double {
        MediaProbe.toneLevelDB(MediaProbe.slice(pcm, rate: 16000, from: from, to: to), rate: 16000, freq: freq)
    }
}

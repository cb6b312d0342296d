// docs/events.md, `output.state`: an RTMP output is `publishing` only while the server acknowledges data;
// a refused key is `rejected`; a server that dies and comes back is rejoined; every
// stop is bounded, whatever the server does. Against nginx-rtmp and a TCP server
// that accepts and never answers, on loopback.

import Foundation
import XCTest
@testable import MediaPub
#if canImport(Glibc)
import Glibc
#endif

final class RTMPHealthTests: XCTestCase {

    /// The output.state events of the output shown as `url`.
    private func states(_ events: URL, url: String? = nil) -> [[String: Any]] {
        ((try? EventLog.read(events)) ?? []).filter {
            $0["event"] as? String == "output.state" && (url == nil || $0["url"] as? String == url)
        }
    }

    /// A TCP server that accepts every connection and never reads or answers.
    private func startSilentServer() throws -> UInt16 {
        let port = try Ports.free()
        let script = """
        import socket, time
        s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", \(port))); s.listen(16)
        held = []
        end = time.time() + 300
        s.settimeout(1)
        while time.time() < end:
            try: held.append(s.accept()[0])
            except socket.timeout: pass
        """
        _ = try startTool(try Tools.path("python3"), ["-c", script])
        XCTAssertTrue(Ports.waitForTCP(port), "the silent server listens")
        return port
    }

    /// A server that accepts and never answers is never reported publishing; SIGTERM
    /// while it holds the connection exits within 10 s with the recording finalised.
    /// Its run is started; what follows (two failed connects, the stop, the checks) is returned.
    private func serverThatNeverAnswersIsNeverPublishingAndTheStopIsBounded(in dir: URL) throws -> () throws -> Void {
        let port = try startSilentServer()
        let url = "rtmp://127.0.0.1:\(port)/live/silentKey"
        let shown = SecretMask.mask(url: url)
        let out = dir.appendingPathComponent("rec.mp4")
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: [url, out.path],
                                                                  extra: "reconnect: {initial: 500ms, max: 1s, give_up_after: never, stall: 3s}"))
        let mp = try startMediaPub(["--preset", preset.path, "--realtime", "--events", events.path,
                                    "--control", dir.appendingPathComponent("c.sock").path])
        return { [self] in
            // The connect gets no answer for reconnect.stall (3 s, not the default 5 s) and fails, and is tried again: twice.
            XCTAssertTrue(Ports.waitUntil(timeout: 60) {
                states(events, url: shown).filter { $0["state"] as? String == "reconnecting" }.count >= 2 || !mp.isRunning
            }, "\(states(events)) \(mp.stderr)")
            XCTAssertEqual(states(events, url: shown).compactMap { $0["state"] as? String }.filter { $0 == "publishing" }, [],
                           "nothing was acknowledged, so it never published: \(states(events, url: shown))")
            let asked = Date()
            mp.terminate()
            XCTAssertTrue(mp.waitForExit(timeout: 10), "SIGTERM while the server holds the connection exits within 10 s")
            XCTAssertLessThan(Date().timeIntervalSince(asked), 10)
            XCTAssertEqual(mp.exitStatus, 0, mp.stderr)
            XCTAssertFalse(mp.stderr.contains("silentKey"), mp.stderr)
            try assertH264AAC(out.path)
            try assertDecodesCleanly(out.path)
        }
    }

    /// The runs against servers that refuse a key, go and come back, never answer or
    /// freeze, or sit among hundreds of other sockets: realtime, mostly waiting on the
    /// wall clock, each with its own server, folder and preset name (so its own control
    /// socket): all at once, each checked as its own test was.
    func testServersThatRefuseGoNeverAnswerFreezeOrHideAmongOtherSocketsEachInARunOfItsOwnAtOnce() {
        atOnce([("a server killed and back, one that never answers", aServerKilledAndBackIsRejoinedWithoutAGapAndOneThatNeverAnswersIsNeverPublishingAndStopsInTime),
                ("a refused key", aRefusedKeyIsRejectedAndAcceptedKeysBesideItPublish),
                ("SIGTERM while the server is frozen", sigtermWhileTheServerIsFrozenExitsWithinTenSeconds),
                ("among hundreds of other sockets", publishingIsToldAmongHundredsOfOtherSockets)])
    }

    /// A key the server refuses is `rejected` with what the server did, masked, and
    /// retried on the slow end of the backoff; accepted keys to the same server publish,
    /// each judged by its own connection.
    private func aRefusedKeyIsRejectedAndAcceptedKeysBesideItPublish() throws {
        let dir = try makeTempDir()
        let rtmp = try startRTMPServer(keyPrefix: "good")
        let bad = rtmp.url(key: "refusedKey42x")
        let goods = [rtmp.url(key: "goodOne"), rtmp.url(key: "goodTwo")]
        let events = dir.appendingPathComponent("events.jsonl")
        let socket = dir.appendingPathComponent("c.sock").path
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: [bad] + goods,
                                                                  extra: "reconnect: {initial: 200ms, max: 2s, give_up_after: never}"))
        let mp = try startMediaPub(["--preset", preset.path, "--realtime", "--events", events.path, "--control", socket])
        func said(_ id: String, _ state: String) -> [[String: Any]] {
            states(events).filter { $0["output"] as? String == id && $0["state"] as? String == state }
        }
        XCTAssertTrue(Ports.waitUntil(timeout: 30) {
            (!said("0", "reconnecting").isEmpty && !said("1", "publishing").isEmpty && !said("2", "publishing").isEmpty) || !mp.isRunning
        }, "\(states(events)) \(mp.stderr)")
        let refusal = try XCTUnwrap(said("0", "reconnecting").first)
        XCTAssertEqual(refusal["error"] as? String, "rejected: the server refused the stream key (publish: it closed the connection)")
        XCTAssertEqual(refusal["url"] as? String, SecretMask.mask(url: bad))
        // Both accepted outputs are acknowledged, each on its own socket.
        let status = try CLI.run(["ctl", "--socket", socket, "status"], timeout: 20)
        let outputs = try XCTUnwrap((((try JSONSerialization.jsonObject(with: Data(status.stdout.utf8))) as? [String: Any])?["status"]
                                     as? [String: Any])?["outputs"] as? [[String: Any]], status.stdout)
        XCTAssertEqual(outputs.map { $0["state"] as? String }, ["reconnecting", "publishing", "publishing"], status.stdout)
        XCTAssertTrue(outputs[1...].allSatisfy { ($0["bytes_acked"] as? Int ?? 0) > 0 }, status.stdout)
        // Retried, but not hammered: with 200 ms initial backoff a refusal waits the
        // maximum (2 s, less at most 20 % of jitter: over 1.5 s) before the next try. Read on the
        // events' own stamps, so a slow machine can only make the gaps longer.
        XCTAssertTrue(EventLog.waitFor(events, of: mp) { _ in said("0", "reconnecting").count >= 3 })
        let stamps = said("0", "reconnecting").compactMap(EventLog.time)
        XCTAssertGreaterThanOrEqual(stamps.count, 3, "\(said("0", "reconnecting"))")
        for (a, b) in zip(stamps, stamps.dropFirst()) {
            XCTAssertGreaterThan(b.timeIntervalSince(a), 1.5, "each refusal waits the slow end of the backoff (2 s less 20 %, never the 200 ms initial): \(said("0", "reconnecting"))")
        }
        mp.terminate()
        XCTAssertTrue(mp.waitForExit(timeout: 20))
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr)
        let all = (try? String(contentsOf: events, encoding: .utf8)) ?? ""
        XCTAssertFalse(mp.stderr.contains("refusedKey42x") || all.contains("refusedKey42x"), "the key is masked everywhere")
    }

    /// nginx-rtmp killed mid-stream and started again 10 s later: the output goes
    /// reconnecting, then publishing, the server records the stream again, and the
    /// recording made beside it has no gap.
    /// The run to a server that never answers (each its own process, folder and control
    /// socket) goes beside it, started first and followed to its end while this one's
    /// server is down (10 s): each is checked as its own test did.
    private func aServerKilledAndBackIsRejoinedWithoutAGapAndOneThatNeverAnswersIsNeverPublishingAndStopsInTime() throws {
        let top = try makeTempDir()
        let dir = top.appendingPathComponent("back"), silentDir = top.appendingPathComponent("silent")
        for sub in [dir, silentDir] { try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true) }
        let silent = try serverThatNeverAnswersIsNeverPublishingAndTheStopIsBounded(in: silentDir)
        let received = dir.appendingPathComponent("received")
        try FileManager.default.createDirectory(at: received, withIntermediateDirectories: true)
        let port = try Ports.free()
        let first = try RTMPServer(port: port, recordTo: received)
        addTeardownBlock { first.stop() }
        let url = first.url(key: "backAgainKey")
        let out = dir.appendingPathComponent("rec.mkv")
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(name: "back", source: "testsrc:?pattern=ball&freq=440", outputs: [url, out.path],
                                                                  extra: "reconnect: {initial: 500ms, max: 1s, give_up_after: never}"))
        let mp = try startMediaPub(["--preset", preset.path, "--realtime", "--duration", "20s", "--events", events.path])
        func rtmpStates() -> [String] { states(events, url: SecretMask.mask(url: url)).compactMap { $0["state"] as? String } }
        XCTAssertTrue(Ports.waitUntil(timeout: 30) { rtmpStates().contains("publishing") || !mp.isRunning }, mp.stderr)
        first.process.kill9()
        XCTAssertTrue(Ports.waitUntil(timeout: 30) { rtmpStates().last == "reconnecting" || !mp.isRunning }, "\(rtmpStates())")
        try silent()
        // The server stays down until mediapub has said, in its own events, that it has
        // been trying for 10 s: a refused retry stamped 10 s after the first failure.
        func failureTimes() -> [Date] {
            states(events, url: SecretMask.mask(url: url)).filter { $0["state"] as? String == "reconnecting" }.compactMap(EventLog.time)
        }
        XCTAssertTrue(Ports.waitUntil(timeout: 60) {
            let times = failureTimes()
            return (times.last.map { last in times.first.map { last.timeIntervalSince($0) >= 10 } ?? false } ?? false) || !mp.isRunning
        }, "the output kept retrying for 10 s: \(failureTimes())")
        let second = try RTMPServer(port: port, recordTo: received)
        addTeardownBlock { second.stop() }
        XCTAssertTrue(Ports.waitUntil(timeout: 30) { rtmpStates().last == "publishing" || !mp.isRunning }, "\(rtmpStates()) \(mp.stderr)")
        XCTAssertTrue(mp.waitForExit(timeout: 60), "the run ends at --duration")
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr)
        XCTAssertEqual(rtmpStates().filter { $0 == "publishing" }.count, 2, "\(rtmpStates())")

        // The server got the stream again after it came back.
        let streams = second.recordings(in: received)
        XCTAssertGreaterThanOrEqual(streams.count, 2, "one recording per publish: \(streams)")
        let again = try assertH264AAC(try XCTUnwrap(streams.last).path)
        XCTAssertGreaterThan(again.duration ?? 0, 3, "the stream after the server came back: \(again.rawJSON)")
        // The recording beside it: 20 s, every frame one step after the last, every sample there.
        try assertUnbrokenTimeline(out.path, seconds: 20)
    }
}

extension RTMPHealthTests {
    /// nginx frozen (SIGSTOP) mid-stream: once it is noticed as stalled and the output
    /// calls it again, SIGTERM to mediapub exits within 10 s with the recording finalised.
    private func sigtermWhileTheServerIsFrozenExitsWithinTenSeconds() throws {
        let dir = try makeTempDir()
        let rtmp = try startRTMPServer()
        addTeardownBlock { kill(rtmp.process.pid, SIGCONT) }
        let out = dir.appendingPathComponent("rec.mp4")
        let events = dir.appendingPathComponent("events.jsonl")
        var yaml = E2EPreset.basic(name: "frozen", source: "testsrc:?pattern=snow&freq=440", outputs: [rtmp.url(key: "frozenKey"), out.path],
                                   extra: "reconnect: {initial: 500ms, max: 1s, give_up_after: never, stall: 3s}")
        yaml = yaml.replacingOccurrences(of: "bitrate: 800k", with: "bitrate: 6000k")   // fills the server's buffers in seconds
        let preset = try writeFile(dir, "t.yaml", yaml)
        let mp = try startMediaPub(["--preset", preset.path, "--realtime", "--events", events.path])
        func rtmpStates() -> [[String: Any]] { states(events).filter { $0["output"] as? String == "0" } }
        XCTAssertTrue(Ports.waitUntil(timeout: 30) { rtmpStates().contains { $0["state"] as? String == "publishing" } || !mp.isRunning },
                      mp.stderr)
        kill(rtmp.process.pid, SIGSTOP)
        XCTAssertTrue(Ports.waitUntil(timeout: 60) {
            rtmpStates().contains { ($0["error"] as? String)?.hasPrefix("stalled") == true } || !mp.isRunning
        }, "\(rtmpStates()) \(mp.stderr)")
        let asked = Date()
        mp.terminate()
        XCTAssertTrue(mp.waitForExit(timeout: 10), "SIGTERM during the freeze exits within 10 s")
        XCTAssertLessThan(Date().timeIntervalSince(asked), 10)
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr)
        try assertH264AAC(out.path)
        try assertDecodesCleanly(out.path)
    }
}

extension RTMPHealthTests {
    /// Hundreds of other TCP connections on the host (another process's, to and from
    /// loopback): the output still finds its own socket and publishes. (When this read
    /// /proc/self/net/tcp, Foundation's String(contentsOfFile:) returned only procfs's
    /// first page, and the output's socket was never found.)
    private func publishingIsToldAmongHundredsOfOtherSockets() throws {
        let dir = try makeTempDir()
        let held = """
        import signal, socket
        ls = socket.socket(); ls.bind(("127.0.0.1", 0)); ls.listen(512)
        port = ls.getsockname()[1]
        pairs = [(socket.create_connection(("127.0.0.1", port)), ls.accept()[0]) for _ in range(300)]
        print("held", flush=True)
        signal.pause()   # until the test's teardown ends it
        """
        let holder = try startTool(try Tools.path("python3"), ["-c", held])
        XCTAssertTrue(Ports.waitUntil(timeout: 30) { holder.stdout.contains("held") || !holder.isRunning }, holder.stderr)
        let rtmp = try startRTMPServer()
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(name: "crowd", source: E2EPreset.testsrc, outputs: [rtmp.url(key: "crowdKey")]))
        let r = try CLI.run(["--preset", preset.path, "--realtime", "--duration", "3s", "--events", events.path], timeout: 60)
        XCTAssertEqual(r.status, 0, r.summary("RTMP among 600 other sockets"))
        XCTAssertEqual(states(events).compactMap { $0["state"] as? String }, ["publishing", "stopped"], r.stderr)
    }
}

// Every connect has a deadline. An RTMP server that takes the TCP
// connection and then says nothing, sends garbage, or answers the handshake and
// then nothing, fails each connect within `reconnect.stall` (rtmp2sink's own 5 s
// for a server that answers nothing at all; garbage that fails rtmp2sink's
// assertions, at the first of them), with an error that says what happened; the output is retried and given up on like after any failure. Against
// small TCP servers (python3) on loopback.

import Foundation
import XCTest
@testable import MediaPub

final class ConnectDeadlineTests: XCTestCase {

    /// One output to each bad server: each is retried (reconnecting, with why, the
    /// reconnect count growing) and given up on after `give_up_after`: failed, and the
    /// run, whose every output failed, exits 1. Before: the garbage and handshake
    /// outputs stayed `connecting` for ever (no retry, no give-up), and the silent one
    /// failed only at rtmp2sink's own deadline, as "Socket I/O timed out".
    func testAServerThatTakesTheConnectionAndNeverAnswersInRTMPIsRetriedThenGivenUp() throws {
        let dir = try makeTempDir()
        let ports = try startBadRTMPServers()
        let outputs = ports.keys.sorted().map { "  - url: \"rtmp://127.0.0.1:\(ports[$0]!)/live/key\"\n    id: \($0)" }
        let events = dir.appendingPathComponent("events.jsonl")
        let socket = dir.appendingPathComponent("c.sock").path
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: []) + outputs.joined(separator: "\n")
                                   + "\nreconnect: {initial: 500ms, max: 1s, stall: 2s, give_up_after: 6s}\n")
        let mp = try startMediaPub(["--preset", preset.path, "--realtime", "--events", events.path, "--control", socket])

        func states(_ id: String) -> [[String: Any]] {
            ((try? EventLog.read(events)) ?? []).filter { $0["event"] as? String == "output.state" && $0["output"] as? String == id }
        }
        func retries(_ id: String) -> [String] {
            states(id).filter { $0["state"] as? String == "reconnecting" }.compactMap { $0["error"] as? String }
        }
        // Two failed connects of each, then their reconnect counts.
        XCTAssertTrue(EventLog.waitFor(events, of: mp, timeout: 60) { _ in ports.keys.allSatisfy { retries($0).count >= 2 } },
                      "each is retried: \(ports.keys.map { ($0, retries($0)) })")
        let status = try CLI.run(["ctl", "--socket", socket, "status"], timeout: 20)
        let reply = (try? JSONSerialization.jsonObject(with: status.stdoutData)) as? [String: Any]
        let shown = ((reply?["status"] as? [String: Any])?["outputs"] as? [[String: Any]]) ?? []
        XCTAssertEqual(shown.count, 3, status.summary("ctl status"))
        for output in shown { XCTAssertGreaterThanOrEqual(output["reconnects"] as? Int ?? 0, 1, "\(output)") }

        guard mp.waitForExit(timeout: 60) else { return XCTFail("the run ends once every output has failed") }
        XCTAssertEqual(mp.exitStatus, 1, mp.stderr)
        // The stall (2 s) comes before rtmp2sink's own deadline (5 s) for the silent one too.
        // The garbage fails rtmp2sink's assertions: that connection is given up at the first.
        let why = "connect: the server answered nothing in RTMP for 2s"
        let broke = "the server's answer broke rtmp2sink: gst_rtmp_"
        for id in ports.keys {
            if id == "garbage" {
                XCTAssertTrue(retries(id).allSatisfy { $0.hasPrefix(broke) }, "\(id): \(states(id))")
                XCTAssertTrue((states(id).last?["error"] as? String)?.hasPrefix(broke) == true, id)
            } else {
                XCTAssertEqual(Set(retries(id)), [why], "\(id): \(states(id))")
                XCTAssertEqual(states(id).last?["error"] as? String, why, id)
            }
            XCTAssertEqual(states(id).last?["state"] as? String, "failed", "\(id): \(states(id))")
            XCTAssertFalse(states(id).contains { $0["state"] as? String == "publishing" }, id)
        }
    }

    /// Each stage has the whole deadline from when it was reached; progress starts it over.
    func testEachStageOfAConnectHasItsDeadline() {
        let t0 = MonotonicInstant(nanoseconds: 1_000_000_000_000_000)
        var d = ConnectDeadline(limit: 2, now: t0)
        XCTAssertFalse(d.observe(.tcp, at: t0 + 1.9))
        XCTAssertFalse(d.observe(.rtmp, at: t0 + 1.95), "reaching the next stage is progress")
        XCTAssertFalse(d.observe(.rtmp, at: t0 + 3.9))
        XCTAssertTrue(d.observe(.rtmp, at: t0 + 3.95))
        XCTAssertEqual(d.failure, "connect: the server answered nothing in RTMP for 2s")
        d.restart(at: t0 + 10)
        XCTAssertEqual(d.stage, .tcp)
        XCTAssertFalse(d.observe(.tcp, at: t0 + 19.9), "the TCP connect has twice rtmp2sink's own deadline at least")
        XCTAssertTrue(d.observe(.tcp, at: t0 + 20))
        XCTAssertEqual(d.failure, "connect: no TCP connection to the server for 10s")
        XCTAssertEqual(ConnectDeadline.Stage.media.failure(after: 10), "connect: the server acknowledged none of the stream for 10s")
        XCTAssertEqual(ConnectDeadline.sinkTimedOut("Failed to connect: Socket I/O timed out"), "connect: the server answered nothing for 5s")
        XCTAssertNil(ConnectDeadline.sinkTimedOut("Failed to connect: Connection refused"))
    }
}

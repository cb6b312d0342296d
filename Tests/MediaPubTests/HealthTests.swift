// `/health` on the metrics server (docs/metrics.md): 200 while the timeline
// advances and an output publishes, 503 with a one-line JSON reason otherwise.

import Foundation
import XCTest
@testable import MediaPub

final class HealthTests: XCTestCase {

    /// `GET url`: the HTTP status and the body, read by python's urllib.
    private func get(_ url: String) throws -> (status: Int, body: String) {
        let script = """
        import sys, urllib.request, urllib.error
        try:
            r = urllib.request.urlopen(sys.argv[1], timeout=5); code, body = r.status, r.read()
        except urllib.error.HTTPError as e:
            code, body = e.code, e.read()
        sys.stdout.write(str(code) + "\\n" + body.decode())
        """
        let r = try Proc.run(try Tools.path("python3"), ["-c", script, url], timeout: 15)
        let lines = r.stdout.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        return (Int(lines.first ?? "") ?? 0, lines.count > 1 ? String(lines[1]) : "")
    }

    /// Asks `/health` until it answers `status` (a bounded wait, not a timing claim), again
    /// each time mediapub writes an event (an output's state change is what moves it): the last answer.
    private func health(_ port: UInt16, becomes status: Int, within seconds: TimeInterval,
                        watching events: URL) throws -> (status: Int, body: String) {
        var last = (status: 0, body: "")
        var failure: Error?
        _ = Ports.waitUntil(timeout: seconds, watching: events) {
            do { last = try get("http://127.0.0.1:\(port)/health") } catch { failure = error; return true }
            return last.status == status
        }
        if let failure { throw failure }
        return last
    }

    /// The only output's server frozen (SIGSTOP): once the output stops publishing,
    /// `/health` answers 503 naming it (masked); the server thawed, the output publishes
    /// again and `/health` answers 200.
    func testHealthFailsWhileTheOnlyOutputStallsAndRecovers() throws {
        let dir = try makeTempDir()
        let rtmp = try startRTMPServer()
        let key = "healthKey31z"
        let port = try Ports.free()
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: [rtmp.url(key: key)],
                                                                  extra: "reconnect: {initial: 500ms, max: 1s, stall: 3s, give_up_after: never}"))
        let mp = try startMediaPub(["--preset", preset.path, "--realtime", "--events", events.path,
                                    "--metrics", "127.0.0.1:\(port)"])
        func outputStates() -> [String] {
            ((try? EventLog.read(events)) ?? []).filter { $0["event"] as? String == "output.state" }.compactMap { $0["state"] as? String }
        }
        XCTAssertTrue(EventLog.waitFor(events, of: mp) { $0["event"] as? String == "output.state" && $0["state"] as? String == "publishing" },
                      "publishing: \(mp.stderr)")
        let up = try health(port, becomes: 200, within: 15, watching: events)
        XCTAssertEqual(up.status, 200, up.body)
        XCTAssertEqual(up.body, "{\"ok\":true}\n")

        // Frozen: the server takes nothing more; the stall watch gives the output up.
        kill(rtmp.process.pid, SIGSTOP)
        var thawed = false
        defer { if !thawed { kill(rtmp.process.pid, SIGCONT) } }
        XCTAssertTrue(Ports.waitUntil(timeout: 30, watching: events) { outputStates().last != "publishing" || !mp.isRunning },
                      "the stalled output stops publishing: \(outputStates()) \(mp.stderr)")
        let down = try health(port, becomes: 503, within: 15, watching: events)
        XCTAssertEqual(down.status, 503, down.body)
        let reason = try XCTUnwrap(JSONLine.decode(Health.self, from: down.body), down.body)
        XCTAssertFalse(reason.ok)
        XCTAssertTrue(reason.reason?.hasPrefix("no output is publishing: 0 (rtmp://127.0.0.1:\(rtmp.port)/live/****) is ") == true,
                      down.body)
        XCTAssertEqual(down.body.split(separator: "\n").count, 1, down.body)
        XCTAssertFalse(down.body.contains(key), down.body)

        // Thawed: the output publishes again, and so the channel is healthy again.
        let before = outputStates().count
        kill(rtmp.process.pid, SIGCONT)
        thawed = true
        XCTAssertTrue(Ports.waitUntil(timeout: 60, watching: events) {
            outputStates().dropFirst(before).contains("publishing") || !mp.isRunning
        }, "publishing again: \(outputStates()) \(mp.stderr)")
        let back = try health(port, becomes: 200, within: 15, watching: events)
        XCTAssertEqual(back.status, 200, back.body)

        mp.terminate()
        XCTAssertTrue(mp.waitForExit(timeout: 20))
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr)
        let stopped = try get("http://127.0.0.1:\(port)/metrics")
        XCTAssertEqual(stopped.status, 0, "the endpoint closed with the run")
    }
}

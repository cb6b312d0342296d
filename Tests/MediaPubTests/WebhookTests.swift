// events.webhook (docs/presets.md, events; docs/events.md): every event is POSTed as JSON; a dead hook never stalls the run.

import Foundation
import XCTest

final class WebhookTests: XCTestCase {

    /// A real HTTP server (python3's http.server) that appends each POST body to a file.
    private func startHookServer(in dir: URL, port: UInt16, log: URL) throws {
        let script = try writeFile(dir, "hook.py", """
        import http.server, sys
        class H(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get('Content-Length', 0)))
                with open(sys.argv[2], 'ab') as f:
                    f.write(body + b"\\n")
                self.send_response(200)
                self.end_headers()
            def log_message(self, *args):
                pass
        http.server.HTTPServer(('127.0.0.1', int(sys.argv[1])), H).serve_forever()
        """)
        _ = try startTool(try Tools.path("python3"), [script.path, "\(port)", log.path])
        XCTAssertTrue(Ports.waitForTCP(port, timeout: 10), "hook server listens")
    }

    /// A dead webhook and a live one, each its own run, folder and control socket, at once:
    /// the dead webhook's run is realtime (3 s). It is started, the live webhook's run
    /// followed through, then the dead webhook's checked: each as its own test did.
    func testEveryEventIsPostedAndSecretsStayOutAndADeadWebhookNeverStallsTheRun() throws {
        let dead = try aDeadWebhookNeverStallsTheRun()
        try everyEventIsPostedAndSecretsStayOut()
        try dead()
    }

    private func everyEventIsPostedAndSecretsStayOut() throws {
        let dir = try makeTempDir("posted")
        let port = try Ports.free()
        let received = dir.appendingPathComponent("received.jsonl")
        try startHookServer(in: dir, port: port, log: received)
        let key = "hookKey55zz"
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: ["null://"],
            extra: "events:\n  webhook: \"http://127.0.0.1:\(port)/hook?token=\(key)\""))
        let r = try CLI.run(["--preset", preset.path, "--no-realtime", "--duration", "2s",
                             "--control", dir.appendingPathComponent("c.sock").path], timeout: 60)
        XCTAssertEqual(r.status, 0, r.summary("mediapub with a webhook"))
        let lines = try String(contentsOf: received, encoding: .utf8).split(separator: "\n")
        let events = lines.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
        XCTAssertEqual(events.count, lines.count, "every POST body is one JSON object")
        let names = events.compactMap { $0["event"] as? String }
        XCTAssertEqual(names.first, "run.state", "\(names)")
        XCTAssertTrue(names.contains("player.state"), "\(names)")
        XCTAssertEqual(names.last, "run.stopped", "the last event goes out before exit: \(names)")
        XCTAssertFalse(r.stderr.contains(key), "webhook token leaked into logs")
    }

    /// Its run is started; returned: the checks once it has ended (40 s from its start at most).
    private func aDeadWebhookNeverStallsTheRun() throws -> () throws -> Void {
        let dir = try makeTempDir("dead")
        let port = try Ports.free()   // nothing listens there
        let out = dir.appendingPathComponent("out.mp4")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: ["file://\(out.path)"],
            extra: "events:\n  webhook: \"http://127.0.0.1:\(port)/hook\""))
        let events = dir.appendingPathComponent("events.jsonl")
        let began = Date()
        let run = try startMediaPub(["--preset", preset.path, "--realtime", "--duration", "3s", "--events", events.path,
                                     "--control", dir.appendingPathComponent("c.sock").path])
        return { [self] in
            let exited = run.waitForExit(timeout: max(0, 40 - Date().timeIntervalSince(began)))
            let r = run.result(timedOut: !exited)
            XCTAssertEqual(r.status, 0, r.summary("mediapub with a dead webhook"))
            let p = try assertH264AAC(out.path)
            XCTAssertEqual(p.duration ?? 0, 3, accuracy: 0.2, "the recording ran its full length")
            // The outage is said once, as a warning event, in words (no URL path, no retry spam).
            let records = try EventLog.read(events)
            let warnings = records.filter { $0["event"] as? String == "warning" }.compactMap { $0["message"] as? String }
            XCTAssertEqual(warnings.filter { $0.hasPrefix("webhook http://127.0.0.1:\(port)/…: ") }.count, 1, "\(warnings)")
            XCTAssertEqual(records.last?["event"] as? String, "run.stopped")
            let stamps = records.compactMap { $0["ts"] as? String }
            XCTAssertEqual(stamps, stamps.sorted(), "event times never go back in file order")
        }
    }
}

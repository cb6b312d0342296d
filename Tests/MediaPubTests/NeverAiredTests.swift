// A show that never aired is a failure (docs/exit-codes.md): a run in which no
// output ever published exits 1, so cron and systemd see it; `run.stopped`
// carries why and the code.

import Foundation
import XCTest

final class NeverAiredTests: XCTestCase {

    /// Every output refused for the whole run (nginx-rtmp's `on_publish` refuses the
    /// key): the duration is reached, but nothing went out: exit 1, and the reason
    /// names the output (masked) and what the server did.
    func testARunWhoseOnlyOutputWasRefusedThroughoutExitsOne() throws {
        let dir = try makeTempDir()
        let rtmp = try startRTMPServer(keyPrefix: "good")
        let key = "refusedShow77q"
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: [rtmp.url(key: key)],
                                                                  extra: "reconnect: {initial: 200ms, max: 1s, give_up_after: never}"))
        let r = try CLI.run(["--preset", preset.path, "--realtime", "--duration", "3s", "--events", events.path], timeout: 60)
        XCTAssertEqual(r.status, 1, r.summary("a run that never published"))
        let all = try EventLog.read(events)
        XCTAssertTrue(all.contains { $0["event"] as? String == "output.state" && $0["state"] as? String == "reconnecting" },
                      "the refusal was seen: \(all)")
        XCTAssertFalse(all.contains { $0["event"] as? String == "output.state" && $0["state"] as? String == "publishing" })
        let stopped = try XCTUnwrap(all.last)
        XCTAssertEqual(stopped["event"] as? String, "run.stopped", "\(stopped)")
        XCTAssertEqual(stopped["exit_code"] as? Int, 1, "\(stopped)")
        let reason = stopped["reason"] as? String ?? ""
        XCTAssertTrue(reason.hasPrefix("no output ever published: 0 (rtmp://127.0.0.1:\(rtmp.port)/live/****)"), reason)
        XCTAssertTrue(reason.contains("rejected: the server refused the stream key"), reason)
        XCTAssertTrue(r.stderr.contains("no output ever published"), r.stderr)
        let eventText = try String(contentsOf: events, encoding: .utf8)
        XCTAssertFalse(r.stderr.contains(key) || eventText.contains(key), "the key is masked")
    }

    /// One output refused, a recording beside it written: the show aired (exit 0).
    func testARunWithOneOutputThatPublishedExitsZero() throws {
        let dir = try makeTempDir()
        let rtmp = try startRTMPServer(keyPrefix: "good")
        let rec = dir.appendingPathComponent("rec.mkv")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: [rtmp.url(key: "refusedShow78q"), rec.path],
                                                                  extra: "reconnect: {initial: 200ms, max: 1s, give_up_after: never}"))
        let r = try CLI.run(["--preset", preset.path, "--realtime", "--duration", "2s"], timeout: 60)
        XCTAssertEqual(r.status, 0, r.summary("a run that recorded"))
        XCTAssertTrue(r.stderr.contains("finished: duration reached"), r.stderr)
        try assertH264AAC(rec.path)
    }
}

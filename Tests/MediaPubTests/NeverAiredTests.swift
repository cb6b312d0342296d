// A show that never aired is a failure (docs/exit-codes.md): a run in which no
// output ever published exits 1, so cron and systemd see it; `run.stopped`
// carries why and the code.

import Foundation
import XCTest

final class NeverAiredTests: XCTestCase {

    /// The three realtime runs (mostly waiting on the wall clock), each with its own server,
    /// folder and preset name (so its own control socket): all at once, each checked as its
    /// own test was.
    func testRunsThatNeverAiredOrAiredOnceEachInARunOfItsOwnAtOnce() {
        atOnce([("refused throughout", aRunWhoseOnlyOutputWasRefusedThroughoutExitsOne),
                ("an Icecast server that closes", anIcecastServerThatAcceptsTheLoginAndClosesNeverAirs),
                ("one output published", aRunWithOneOutputThatPublishedExitsZero)])
    }

    /// Every output refused for the whole run (nginx-rtmp's `on_publish` refuses the
    /// key): the duration is reached, but nothing went out: exit 1, and the reason
    /// names the output (masked) and what the server did.
    private func aRunWhoseOnlyOutputWasRefusedThroughoutExitsOne() throws {
        let dir = try makeTempDir()
        let rtmp = try startRTMPServer(keyPrefix: "good")
        let key = "refusedShow77q"
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(name: "refused", source: E2EPreset.testsrc, outputs: [rtmp.url(key: key)],
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

    /// An Icecast-like server that answers the source's login "200 OK" and closes at once
    /// took nothing: the output is never publishing, however often it logs in, and the
    /// run that reaches its duration exits 1. (Before: `publishing` at every login, with
    /// `bytes_acked` 0, and exit 0 "duration reached".)
    private func anIcecastServerThatAcceptsTheLoginAndClosesNeverAirs() throws {
        let dir = try makeTempDir()
        let server = try AnswerAndCloseServer(in: self, answer: "HTTP/1.0 200 OK\r\n\r\n")
        try TestMedia.makeAudio(in: dir, name: "tone.mp3", seconds: 6, freq: 440, ext: "mp3")
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "t.yaml", """
        name: t
        audio: { sample_rate: 44100, channels: 2, bitrate: 96k }
        players:
          - { id: music, source: tone.mp3 }
        outputs:
          - { id: ice, url: "icecast://source:closes7Pw@127.0.0.1:\(server.port)/radio.mp3" }
        reconnect: { initial: 200ms, max: 500ms, give_up_after: never }
        """)
        let r = try CLI.run(["--preset", preset.path, "--realtime", "--duration", "3s", "--events", events.path], cwd: dir, timeout: 60)
        let logins = server.requests.filter { $0.hasPrefix("SOURCE /radio.mp3") }.count
        print("\(logins) logins answered 200 OK and closed")
        XCTAssertGreaterThanOrEqual(logins, 2, "it logged in again and again: \(server.requests)")
        XCTAssertEqual(r.status, 1, r.summary("a run whose server took nothing"))
        let all = try EventLog.read(events)
        let states = all.filter { $0["event"] as? String == "output.state" }.compactMap { $0["state"] as? String }
        XCTAssertFalse(states.contains("publishing"), "\(states)")
        XCTAssertTrue(states.contains("reconnecting"), "\(states)")
        let stopped = try XCTUnwrap(all.last)
        XCTAssertEqual(stopped["exit_code"] as? Int, 1, "\(stopped)")
        XCTAssertTrue((stopped["reason"] as? String ?? "").hasPrefix("no output ever published: ice (icecast://****@127.0.0.1:\(server.port)/radio.mp3)"),
                      "\(stopped)")
    }

    /// One output refused, a recording beside it written: the show aired (exit 0).
    private func aRunWithOneOutputThatPublishedExitsZero() throws {
        let dir = try makeTempDir()
        let rtmp = try startRTMPServer(keyPrefix: "good")
        let rec = dir.appendingPathComponent("rec.mkv")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(name: "aired", source: E2EPreset.testsrc, outputs: [rtmp.url(key: "refusedShow78q"), rec.path],
                                                                  extra: "reconnect: {initial: 200ms, max: 1s, give_up_after: never}"))
        let r = try CLI.run(["--preset", preset.path, "--realtime", "--duration", "2s"], timeout: 60)
        XCTAssertEqual(r.status, 0, r.summary("a run that recorded"))
        XCTAssertTrue(r.stderr.contains("finished: duration reached"), r.stderr)
        try assertH264AAC(rec.path)
    }
}

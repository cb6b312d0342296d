// The operator's page (docs/http.md) in a real browser: Debian's chromium, headless, driven
// by scripts/browser/page.py (python3-selenium), against a real run publishing to nginx-rtmp
// and recording, with 50 event streams that never read and 200 thumbnails a second alongside.
// The script reports what the page showed and when; this test judges it, and the recording.

import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class PageBrowserTests: XCTestCase {
    private let token = "page-token-7Hq2"
    private let stall = 2

    func testThePageShowsTheRunFollowsItAndSteersItInARealBrowser() throws {
        let dir = try makeTempDir()
        let rtmp = try startRTMPServer()
        let port = try Ports.free()
        let events = dir.appendingPathComponent("events.jsonl")
        let socket = dir.appendingPathComponent("ctl.sock").path
        let recording = dir.appendingPathComponent("rec.mkv")
        let preset = try writeFile(dir, "page.yaml", """
            name: page
            video: {size: 640x360, fps: 25, bitrate: 600k, keyframe_interval: 1s}
            audio: {sample_rate: 44100, channels: 2, bitrate: 96k}
            players:
              - id: main
                playlist: ["testsrc:?pattern=red&freq=440", "testsrc:?pattern=blue&freq=660"]
                video: true
            standby: {color: green}
            outputs:
              - url: "\(rtmp.url(key: "pageKey"))"
              - url: "\(recording.path)"
            reconnect: {initial: 200ms, max: 500ms, stall: \(stall)s, give_up_after: never}
            """)
        let mp = try startMediaPub(["--preset", preset.path, "--realtime", "--events", events.path, "--control", socket,
                                    "--http", "127.0.0.1:\(port)", "--http-token-env", "MP_PAGE_TOKEN"],
                                   env: ["MP_PAGE_TOKEN": token])
        XCTAssertTrue(EventLog.waitFor(events, of: mp, timeout: 60) { _ in
            ((try? EventLog.read(events)) ?? []).filter(EventLog.outputState("publishing")).count >= 2
        }, "both outputs publish: \(mp.stderr)")

        let nginx = try Tools.path("nginx")
        let config: [String: Any] = [
            "url": "http://127.0.0.1:\(port)", "mode": "check", "token": token,
            "ctl": [try CLI.binary(), "ctl", "--socket", socket], "player": "main",
            "nginx": ["pid": Int(rtmp.process.pid), "port": Int(rtmp.port),
                      "argv": [nginx, "-p", rtmp.dir.path + "/", "-c", rtmp.dir.appendingPathComponent("nginx.conf").path,
                               "-e", rtmp.dir.appendingPathComponent("logs/error.log").path]],
            "stall_s": stall, "load_s": 30, "thumbs_per_s": 200, "sse_clients": 50,
        ]
        let configURL = dir.appendingPathComponent("page.json")
        try JSONSerialization.data(withJSONObject: config).write(to: configURL)
        let script = CLI.packageRoot.appendingPathComponent("scripts/browser/page.py").path
        let run = try Proc.run("/usr/bin/python3", [script, configURL.path], timeout: 240)
        let seen = try XCTUnwrap(try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], run.summary("page.py"))
        if let again = seen["nginx_again_pid"] as? Int {
            defer { kill(pid_t(again), SIGTERM) }
            _ = Ports.waitUntil(timeout: 10) { kill(pid_t(again), 0) != 0 || waitpid(pid_t(again), nil, WNOHANG) != 0 }
        }
        print("page.py saw: \(run.stdout)")

        // Loaded from the server alone, with no error in the console.
        XCTAssertEqual(seen["loaded"] as? Bool, true)
        XCTAssertEqual(seen["outside_requests"] as? [String], [], "requests outside the server")
        XCTAssertEqual((seen["console_errors_at_load"] as? [Any])?.count, 0, "console errors: \(seen["console_errors_at_load"] ?? "")")
        XCTAssertEqual((seen["console_errors"] as? [Any])?.count, 0, "console errors but the refused command's 401: \(seen["console_errors"] ?? "")")
        XCTAssertEqual(Set(seen["requests"] as? [String] ?? []), ["/", "/app.js", "/app.css", "/favicon.svg", "/api/status", "/api/events",
                                                                  "/api/outputs/history", "/api/log", "/api/thumbnail.jpg", "/api/command"])

        // The picture: red, then blue within 2 s of the player's change to the blue item (its
        // player.track; `ctl next` answers before the new item is on, see docs/control.md).
        XCTAssertEqual(seen["red_seen"] as? Bool, true)
        let blueSeen = try XCTUnwrap((seen["blue_seen_at"] as? String).flatMap { EventLog.time(["ts": $0]) }, "the thumbnail never turned blue")
        let track = try XCTUnwrap(try EventLog.read(events).first { $0["event"] as? String == "player.track" && $0["index"] as? Int == 1 },
                                  "the player's change to the blue item")
        let change = try XCTUnwrap(EventLog.time(track))
        print("the thumbnail turned blue \(String(format: "%.3f", blueSeen.timeIntervalSince(change))) s after the player changed "
              + "(\(seen["blue_after_s"] ?? "-") s after `ctl next`)")
        XCTAssertLessThanOrEqual(blueSeen.timeIntervalSince(change), 2, "the thumbnail shows the new picture within 2 s")

        // `ctl publish off` from the terminal: standby on the page within 1 s of the flag's change
        // (its `publishing` event; the ctl process' own start is not the page's time).
        let standbySeen = try XCTUnwrap((seen["standby_seen_at"] as? String).flatMap { EventLog.time(["ts": $0]) }, "the page never said standby")
        let off = try XCTUnwrap(try EventLog.read(events).first { $0["event"] as? String == "publishing" && $0["publishing"] as? Bool == false },
                                "the flag's change")
        let flagged = try XCTUnwrap(EventLog.time(off))
        print("the page said standby \(String(format: "%.3f", standbySeen.timeIntervalSince(flagged))) s after the flag changed "
              + "(\(seen["standby_after_s"] ?? "-") s after `ctl publish off` was started)")
        XCTAssertLessThanOrEqual(standbySeen.timeIntervalSince(flagged), 1)
        XCTAssertEqual(seen["flag_text_standby"] as? String, "STANDBY")
        XCTAssertEqual(seen["on_air_again"] as? Bool, true)

        // Without a token: greyed, refused, said; the run unchanged.
        XCTAssertEqual(seen["locked_without_token"] as? Bool, true)
        XCTAssertTrue((seen["refused_reply"] as? String)?.hasPrefix("publish off: refused (401)") == true, "\(seen["refused_reply"] ?? "")")
        XCTAssertTrue((seen["refused_status"] as? String)?.contains("\"publishing\":true") == true, "still on air after the refusal")

        // With it: done, standby, the slate in the thumbnail; the token in sessionStorage, no cookie.
        XCTAssertEqual(seen["unlocked_with_token"] as? Bool, true)
        XCTAssertEqual(seen["token_reply"] as? String, "publish off: done")
        XCTAssertEqual(seen["token_standby"] as? Bool, true)
        XCTAssertEqual(seen["slate_seen"] as? Bool, true, "the thumbnail shows the standby slate")
        XCTAssertEqual(seen["stored_in_session"] as? Bool, true)

        // nginx killed: amber within the stall time; back: green.
        let amber = try XCTUnwrap(seen["amber_after_s"] as? Double, "the output never turned amber")
        XCTAssertLessThanOrEqual(amber, Double(stall))
        XCTAssertEqual(seen["amber_colour"] as? [String], ["rgba(232, 163, 23, 1)"])
        XCTAssertNotNil(seen["green_after_s"] as? Double, "the output never turned green again")
        XCTAssertEqual(Set(seen["green_colour"] as? [String] ?? []), ["rgba(47, 191, 91, 1)"])
        XCTAssertGreaterThan(seen["sparkline_points"] as? Int ?? 0, 1)
        XCTAssertGreaterThan(seen["log_lines"] as? Int ?? 0, 0)

        // Alongside: every thumbnail answered, the timeline never late.
        let load = try XCTUnwrap(seen["load"] as? [String: Any])
        let codes = load["thumbnail_codes"] as? [String: Int] ?? [:]
        print("thumbnails: \(codes), status lag at worst \(load["lag_ms_max"] ?? "-") ms over \(load["lag_samples"] ?? 0) samples")
        XCTAssertEqual(Array(codes.keys), ["200"], "every thumbnail request answered with a JPEG")
        XCTAssertGreaterThan(codes["200"] ?? 0, 3000)
        XCTAssertGreaterThan(load["lag_samples"] as? Int ?? 0, 20)
        // While the clients ran (ISO 8601 UTC compares as text): never late.
        let began = try XCTUnwrap(seen["load_began"] as? String), ended = try XCTUnwrap(seen["load_ended"] as? String)
        let late = try EventLog.read(events).filter {
            $0["event"] as? String == "timeline.late" && ($0["ts"] as? String ?? "") >= began && ($0["ts"] as? String ?? "") <= ended
        }
        XCTAssertEqual(late.count, 0, "the timeline fell behind while the clients ran (\(began) to \(ended)): \(late)")

        mp.terminate()
        XCTAssertTrue(mp.waitForExit(timeout: 30))
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr)
        XCTAssertFalse(mp.stderr.contains("released without stop()"), "the thumbnail's pipelines are stopped with the server: \(mp.stderr)")

        // The recording: every frame, one tick apart; red, blue, and the standby slate at its end.
        let pts = try MediaProbe.videoPacketPTS(recording.path).sorted()
        XCTAssertGreaterThan(pts.count, 25 * 30)
        let gaps = zip(pts, pts.dropFirst()).filter { abs(($1 - $0) - 0.04) > 0.002 }
        XCTAssertEqual(gaps.count, 0, "frames not one tick apart: \(gaps.prefix(5))")
        let last = try Proc.run("ffmpeg", ["-v", "error", "-sseof", "-0.5", "-i", recording.path, "-frames:v", "1",
                                           "-vf", "scale=1:1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"], timeout: 30)
        let rgb = Array(last.stdoutData)
        XCTAssertTrue(rgb.count == 3 && rgb[1] > 90 && rgb[0] < 60 && rgb[2] < 60, "the recording ends on the green slate: \(rgb)")
    }
}

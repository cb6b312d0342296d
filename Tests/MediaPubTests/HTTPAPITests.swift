// The HTTP API of a real run (docs/http.md), over real HTTP with python's http.client: every
// bad input gets its status code and changes nothing (the publishing flag, the events), the
// same reply as ctl for an unknown command, 429 for an address after 10 wrong tokens (and
// only for it); status, the programme (ctl schedule's reply and 6 hours' listing), log and
// history answer; the event stream carries the --events lines
// exactly; the token never shows. Then a command with the token (publish off) takes effect
// on the recording (ffmpeg signalstats: blue content, then the red standby to the end),
// while 50 event-stream clients that never read stay connected: the recording is one
// unbroken timeline (every frame 40 ms after the last) and no timeline.late was said.

import Foundation
import XCTest
@testable import MediaPub

final class HTTPAPITests: XCTestCase {
    /// Every request of the run, in order; prints one JSON object of what each answered.
    private static let probe = #"""
import http.client, json, socket, sys
port, token = int(sys.argv[1]), sys.argv[2]
def req(method, path, body=None, headers={}, src='127.0.0.1', chunked=False):
    c = http.client.HTTPConnection('127.0.0.1', port, timeout=20, source_address=(src, 0))
    if chunked:
        c.request(method, path, body=iter([body]), headers=headers, encode_chunked=True)
    else:
        c.request(method, path, body=body, headers=headers)
    r = c.getresponse(); data = r.read().decode('utf-8', 'replace'); c.close()
    return {'code': r.status, 'body': data.strip(), 'csp': r.getheader('Content-Security-Policy'),
            'nosniff': r.getheader('X-Content-Type-Options'), 'auth': r.getheader('WWW-Authenticate')}
auth = {'Authorization': 'Bearer ' + token}
out = {'lags': []}
def status():
    r = req('GET', '/api/status'); s = json.loads(r['body'])['status']
    out['lags'].append(s.get('timeline', {}).get('lag_ms', -1)); return r, s
out['status'], first = status()
out['publishing_before'] = first['publishing']
cmd = '/api/command'
skip = '{"command":["publish","off"]}'
out['no_token'] = req('POST', cmd, skip)
out['wrong_token'] = req('POST', cmd, skip, {'Authorization': 'Bearer nope'})
out['long_wrong_token'] = req('POST', cmd, skip, {'Authorization': 'Bearer ' + 'x' * 500})
out['too_big'] = req('POST', cmd, '{"command":"' + 'a' * 70000 + '"}', auth)
out['not_json'] = req('POST', cmd, 'nope{', auth)
out['not_object'] = req('POST', cmd, '[1,2]', auth)
out['no_command'] = req('POST', cmd, '{"x":1}', auth)
out['unknown'] = req('POST', cmd, '{"command":"fly"}', auth)
out['no_player'] = req('POST', cmd, '{"command":["next","nobody"]}', auth)
out['foreign_origin'] = req('POST', cmd, skip, dict(auth, Origin='http://evil.example'))
out['chunked'] = req('POST', cmd, skip.encode(), auth, chunked=True)
out['get_command'] = req('GET', cmd)
out['not_found'] = req('GET', '/nope')
out['bad_lines'] = req('GET', '/api/log?lines=0')
out['bad_hours'] = req('GET', '/api/schedule?hours=0')
out['schedule'] = req('GET', '/api/schedule?hours=6')
out['limited'] = [req('POST', cmd, skip, {'Authorization': 'Bearer wrong%d' % i}, src='127.0.0.2')['code'] for i in range(10)]
out['limited_right_token'] = req('POST', cmd, skip, auth, src='127.0.0.2')
out['log'] = req('GET', '/api/log?lines=50')
out['history'] = req('GET', '/api/outputs/history')
_, after = status()
out['publishing_after_bad_input'] = after['publishing']
out['good'] = req('POST', cmd, skip, dict(auth, Origin='http://127.0.0.1:%d' % port))
# The stream from the first event on, until the flag's change.
s = socket.create_connection(('127.0.0.1', port), timeout=20)
s.sendall(b'GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nLast-Event-ID: 0\r\n\r\n')
buf, data = b'', []
while not any('"publishing":false' in d for d in data):
    chunk = s.recv(65536)
    if not chunk: break
    buf += chunk
    data = [l[6:] for l in buf.decode('utf-8', 'replace').split('\n') if l.startswith('data: ')]
s.close()
out['stream'] = [d for d in data if not d.startswith('{"dropped"')]
for _ in range(3): status()
print(json.dumps(out))
"""#

    func testBadInputIsRefusedAndChangesNothingACommandWorksAndSilentClientsNeverSlowTheRun() throws {
        let dir = try makeTempDir()
        try TestMedia.makeColorVideo(in: dir, name: "content.mp4", seconds: 20, color: "blue", freq: 440)
        let out = dir.appendingPathComponent("out.mp4")
        let events = dir.appendingPathComponent("events.jsonl")
        let socket = dir.appendingPathComponent("c.sock").path
        // The content is a programme's filler; its one block (10 min) starts in two hours.
        let later = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date().addingTimeInterval(7200))
        let at = String(format: "%02d:%02d", later.hour ?? 0, later.minute ?? 0)
        let yaml = PlayerPreset.video(name: "api", players: ["  - id: main\n    video: true\n    progress_interval: 100ms\n"],
                                      output: out, extra: """
                                      standby:
                                        color: "#FF0000"
                                      schedule:
                                        timezone: UTC
                                        filler: [content.mp4]
                                        blocks:
                                          - {id: later, at: "\(at)", duration: 10m, source: content.mp4}
                                      """)
        let preset = try writeFile(dir, "api.yaml", yaml)
        let port = try Ports.free()
        let token = "tok-\(UUID().uuidString)"
        let seconds = 8.0
        let run = try startMediaPub(["--preset", preset.path, "--realtime", "--duration", "\(Int(seconds))s",
                                     "--http", "127.0.0.1:\(port)", "--http-token-env", "MP_TEST_TOKEN",
                                     "--events", events.path, "--control", socket], env: ["MP_TEST_TOKEN": token])
        XCTAssertTrue(waitForPublishing(events), run.stderr)

        // 50 clients that open the event stream and never read a byte.
        var silent: [TestSocket] = []
        for _ in 0..<50 {
            let s = try TestSocket.tcp(port: port)
            XCTAssertTrue(s.send("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
            silent.append(s)
        }
        let ctlUnknown = try CLI.run(["ctl", "--socket", socket, "fly"], timeout: 20).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let ctlNoPlayer = try CLI.run(["ctl", "--socket", socket, "next", "nobody"], timeout: 20).stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        let probe = try Proc.run(try Tools.path("python3"), ["-c", Self.probe, "\(port)", token], timeout: 60)
        XCTAssertEqual(probe.status, 0, probe.summary("the HTTP probe"))
        let r = try XCTUnwrap(try JSONSerialization.jsonObject(with: probe.stdoutData) as? [String: Any], probe.stdout)
        func answer(_ key: String) -> (code: Int, body: String, all: [String: Any]) {
            let a = r[key] as? [String: Any] ?? [:]
            return (a["code"] as? Int ?? -1, a["body"] as? String ?? "", a)
        }

        // Every response carries the two headers.
        for key in ["status", "no_token", "too_big", "not_found", "good", "history"] {
            XCTAssertEqual(answer(key).all["csp"] as? String, "default-src 'self'", key)
            XCTAssertEqual(answer(key).all["nosniff"] as? String, "nosniff", key)
        }
        XCTAssertEqual(answer("status").code, 200)
        // Bad input, each with its code.
        let expected: [(String, Int)] = [("no_token", 401), ("wrong_token", 401), ("long_wrong_token", 401), ("too_big", 413),
                                         ("not_json", 400), ("not_object", 400), ("no_command", 400), ("unknown", 400),
                                         ("no_player", 400), ("foreign_origin", 403), ("chunked", 411), ("get_command", 405),
                                         ("not_found", 404), ("bad_lines", 400), ("bad_hours", 400),
                                         ("limited_right_token", 429)]
        for (key, code) in expected {
            XCTAssertEqual(answer(key).code, code, "\(key): \(answer(key).body)")
        }
        XCTAssertEqual(answer("wrong_token").body, answer("no_token").body, "the same answer whatever the token")
        XCTAssertEqual(answer("long_wrong_token").body, answer("no_token").body)
        XCTAssertEqual(answer("wrong_token").all["auth"] as? String, "Bearer")
        XCTAssertEqual(r["limited"] as? [Int], Array(repeating: 401, count: 10), "ten wrong tokens from 127.0.0.2")
        XCTAssertTrue(answer("not_json").body.contains("not JSON: Invalid value around character 1."), answer("not_json").body)
        XCTAssertEqual(answer("unknown").body, ctlUnknown, "an unknown command: ctl's error, word for word")
        XCTAssertEqual(answer("no_player").body, ctlNoPlayer)
        XCTAssertTrue(answer("no_command").body.contains("missing \\\"command\\\""), answer("no_command").body)
        // The programme: ctl schedule's reply, with the listing of the next 6 hours.
        let schedule = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(answer("schedule").body.utf8)) as? [String: Any])
        XCTAssertEqual(answer("schedule").code, 200, answer("schedule").body)
        XCTAssertEqual((schedule["schedule"] as? [String: Any])?["timezone"] as? String, "UTC")
        XCTAssertEqual(((schedule["schedule"] as? [String: Any])?["next"] as? [[String: Any]])?.first?["block"] as? String, "later")
        let lines = schedule["lines"] as? [String] ?? []
        XCTAssertEqual(lines.count, 3, "filler, the block, filler: \(lines)")
        XCTAssertTrue(lines.count == 3 && lines[1].contains("later") && lines[1].contains("\(at):00"), "\(lines)")
        // ... and nothing changed.
        XCTAssertEqual(r["publishing_before"] as? Bool, true)
        XCTAssertEqual(r["publishing_after_bad_input"] as? Bool, true)

        // Reads.
        let log = try JSONSerialization.jsonObject(with: Data(answer("log").body.utf8)) as? [String: [String]]
        XCTAssertTrue(log?["lines"]?.contains { $0.contains("publishing") } == true, answer("log").body)
        XCTAssertTrue(answer("history").body.contains(#""outputs":[{"id":"0","kbps":["#), answer("history").body)

        // The command with the token (from 127.0.0.1: the limit held 127.0.0.2 only).
        XCTAssertEqual(answer("good").code, 200)
        XCTAssertEqual(answer("good").body, #"{"ok":true}"#)

        // The stream carried the --events lines, the same and in order.
        let stream = r["stream"] as? [String] ?? []
        let written = try String(contentsOf: events, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertFalse(stream.isEmpty)
        XCTAssertEqual(Array(written.prefix(stream.count)), stream, "the stream's data lines are the events file's lines")
        XCTAssertTrue(stream.last?.contains(#""publishing":false"#) == true)
        XCTAssertEqual(written.filter { $0.contains(#""event":"publishing""#) }.count, 1, "one flag change: the good command's")

        XCTAssertTrue(run.waitForExit(timeout: seconds + 40), "the run ends at its duration")
        let result = run.result()
        XCTAssertEqual(result.status, 0, result.summary("mediapub"))
        XCTAssertEqual(silent.count, 50)
        for text in [result.stderr, probe.stdout, (try? String(contentsOf: events, encoding: .utf8)) ?? ""] {
            XCTAssertFalse(text.contains(token), "the token never shows")
        }

        // Every frame, none late, and the standby from the command on.
        let lags = r["lags"] as? [Int] ?? []
        let late = (try EventLog.read(events)).filter { $0["event"] as? String == "timeline.late" }
        print("50 silent event streams: status lag_ms \(lags), timeline.late \(late.count)")
        XCTAssertTrue(late.isEmpty, "no timeline.late with 50 silent streams: \(late)")
        let stats = try assertUnbrokenTimeline(out.path, seconds: seconds)
        let firstRed = try XCTUnwrap(stats.firstIndex(where: \.looksRed), "the standby (red) after publish off")
        XCTAssertGreaterThan(firstRed, 0)
        let blue = { (f: FrameStat) in f.uavg > 200 && f.vavg < 130 }
        XCTAssertTrue(stats[..<firstRed].allSatisfy(blue), "the content (blue) until the command")
        XCTAssertTrue(stats[firstRed...].allSatisfy(\.looksRed), "the standby (red) from the command to the end")
    }
}

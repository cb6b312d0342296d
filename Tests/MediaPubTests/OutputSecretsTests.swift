// README, Keys stay secret: stream keys, passphrases and credentials never appear in logs,
// events, errors, GStreamer's own debug log or the command line; an SRT stream
// id in the access-control syntax is sent as written.

import Foundation
import XCTest
@testable import MediaPub

final class OutputSecretsTests: XCTestCase {

    /// Waits for an event of the running `process` (false when it ended first).
    private func waitForEvent(_ events: URL, of process: RunningProcess, _ match: @escaping ([String: Any]) -> Bool) -> Bool {
        Ports.waitUntil(timeout: 30, watching: events) { !process.isRunning || ((try? EventLog.read(events)) ?? []).contains(where: match) }
            && process.isRunning
    }

    /// The runs that mostly wait (outputs to closed ports retried, a run publishing to an
    /// SRT listener, a realtime run looked at in /proc), each with its own folder and its
    /// own preset name or control socket: all at once, each checked as its own test was.
    func testDebugLogCredentialsAndOutputEnvEachInARunOfItsOwnAtOnce() {
        atOnce([("the GStreamer debug log", gstreamerDebugLogIsMaskedAndInTheChosenFormat),
                ("credential parameters", credentialParametersAreMaskedEverywhere),
                ("--output-env", outputEnvKeepsTheKeyOffTheCommandLine)])
    }

    private func outputEnvKeepsTheKeyOffTheCommandLine() throws {
        let dir = try makeTempDir()
        let rtmp = try startRTMPServer()
        let key = "envkey4Hq83secret"
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "live.yaml", E2EPreset.basic(source: E2EPreset.testsrc))
        let mp = try startMediaPub(["--preset", preset.path, "--output-env", "MP_TEST_OUT", "--realtime",
                                    "--control", dir.appendingPathComponent("c.sock").path, "--events", events.path],
                                   env: ["MP_TEST_OUT": rtmp.url(key: key)])
        XCTAssertTrue(waitForEvent(events, of: mp) { $0["event"] as? String == "output.state" && $0["state"] as? String == "publishing" },
                      "publishing: \(mp.stderr)")
        let cmdline = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(mp.pid)/cmdline"))
        XCTAssertFalse(String(decoding: cmdline, as: UTF8.self).contains(key), "the key is on the command line")
        let live = try MediaProbe.probe(rtmp.url(key: key), inputOptions: ["-rw_timeout", "5000000"], timeout: 20)
        XCTAssertEqual(live.video?.codecName, "h264", "the server gets the stream: \(live.rawJSON)")
        mp.terminate()
        XCTAssertTrue(mp.waitForExit(timeout: 20))
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr)
        let eventText = try String(contentsOf: events, encoding: .utf8)
        XCTAssertFalse(mp.stderr.contains(key) || eventText.contains(key))
        XCTAssertTrue(mp.stderr.contains("output rtmp://127.0.0.1:\(rtmp.port)/live/****"), mp.stderr)

        let unset = try CLI.run(["--preset", preset.path, "--output-env", "MP_TEST_UNSET"], unsetEnv: ["MP_TEST_UNSET"])
        XCTAssertEqual(unset.status, 2, unset.summary("unset variable"))
        XCTAssertEqual(unset.stderr, "mediapub: --output-env MP_TEST_UNSET: the environment variable MP_TEST_UNSET is not set (it should hold the output URL)\n")
    }

    func testAKeyIsNeverEchoedWhateverTheShapeOfTheURL() throws {
        let dir = try makeTempDir()
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc))
        for url in ["rtmp://live.example.com/sk_live_abc123", "rtmp://live.example.com/live?key=sk_live_abc123",
                    "rtmp:live.example.com/live/sk_live_abc123", "rmtp://live.example.com/live/sk_live_abc123",
                    "rtmp//live.example.com/live/sk_live_abc123", "rtmps:/live.example.com/live/sk_live_abc123",
                    // Shaped like a file path: refused as the URL it was meant to be, never recorded to rtmp/….
                    "rmtp//live.example.com/live/sk_live_abc123", "rtmp//live.example.com/live/sk_live_abc123.flv",
                    "rtmsp//live.example.com/live/sk_live_abc123.mp4"] {
            let r = try CLI.run(["--preset", preset.path, "--output", url])
            XCTAssertEqual(r.status, 2, r.summary(url))
            XCTAssertFalse(r.stderr.contains("abc123"), r.stderr)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("rtmp").path), url)
        }
    }

    /// GST_DEBUG makes GStreamer log URIs, locations and its SRT parameters; those lines
    /// go through mediapub's logger, masked, and as JSON lines with --log-format json.
    private func gstreamerDebugLogIsMaskedAndInTheChosenFormat() throws {
        let dir = try makeTempDir()
        let closed = try Ports.free()
        let planted = ["httppw_9Xq2", "sig_7Rk4w", "rtmpkey_3Jm8", "srtpass_5Tz1abcd", "alice_6Wc0"]
        let source = "http://bob:\(planted[0])@127.0.0.1:\(closed)/gone.mp3?sig=\(planted[1])"
        let out = dir.appendingPathComponent("rec.mp4")
        var yaml = E2EPreset.basic(name: "gstdebug", source: E2EPreset.testsrc, outputs: [
            out.path,
            "rtmp://127.0.0.1:\(closed)/live/\(planted[2])",
            "srt://127.0.0.1:\(closed)?mode=caller&passphrase=\(planted[3])&streamid=#!::r=live/cam1,u=\(planted[4])",
        ], extra: "reconnect: {initial: 1s, max: 1s, give_up_after: 1m}")
        // A second player on the failing HTTP source (aux only).
        yaml = yaml.replacingOccurrences(of: "    video: true\n", with: "    video: true\n  - id: web\n    source: \"\(source)\"\n")
        let preset = try writeFile(dir, "t.yaml", yaml).path

        let r = try CLI.run(["--preset", preset, "--no-realtime", "--duration", "2s", "--log-format", "json"],
                            env: ["GST_DEBUG": "3,GST_INIT:5,GST_PIPELINE:6,rtmp2*:6,srtobject:6,souphttpsrc:5"], timeout: 90)
        XCTAssertEqual(r.status, 0, r.summary("run with GST_DEBUG"))
        for secret in planted { XCTAssertFalse(r.stderr.contains(secret), "\(secret) leaked:\n\(r.stderr.prefix(3000))") }
        let lines = r.stderr.split(separator: "\n")
        let objects = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertEqual(objects.count, lines.count, "every stderr line is a JSON object: \(lines.filter { !$0.hasPrefix("{") }.prefix(5))")
        let gst = objects.filter { $0["source"] as? String == "gstreamer" }.compactMap { $0["msg"] as? String }
        XCTAssertGreaterThan(gst.count, 20, "GStreamer's own lines are there")
        XCTAssertTrue(gst.contains { $0.contains("rtmp://127.0.0.1:\(closed)/live/****") }, "the RTMP location, masked")
        XCTAssertTrue(gst.contains { $0.contains("passphrase=") && $0.contains("****") }, "the SRT parameters, masked")
        _ = try assertH264AAC(out.path)
    }

    /// An Icecast password with each of `" \ ! # @ & % '` and a space (percent-encoded in
    /// the URL) logs in to a real icecast2, and no spelling of it shows on stderr with
    /// GStreamer's debug log on (GST_PIPELINE:4 prints each pipeline's description, escaped;
    /// the password is set on shout2send as a property, never written there). Its pieces
    /// between the special characters are looked for: any escaping keeps them.
    func testAnIcecastPasswordWithAnyCharacterLogsInAndNeverShows() throws {
        let dir = try makeTempDir()
        let pieces = ["Qa7w", "Kb8x", "Lc9y", "Md1z", "Ne2v", "Of3u", "Pg4t", "Qh5s", "Ri6r", "Sj7q"]
        let password = zip(["", "\"", "\\", "!", "#", "@", "&", "%", "'", " "], pieces).map { $0 + $1 }.joined()
        let server = try startIcecastServer(password: password)
        let tone = try TestMedia.makeAudio(in: dir, seconds: 3, ext: "mp3")
        let encoded = SecretMask.percentEncoded(password)
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "radio.yaml", """
        name: radio
        audio: { sample_rate: 44100, channels: 2, bitrate: 96k }
        players:
          - { id: music, source: "\(tone.path)", repeat: true }
        outputs:
          - { id: mount, url: "\(server.url(mount: "radio.mp3", password: encoded))" }
        """)
        let mp = try startMediaPub(["--preset", preset.path, "--events", events.path],
                                   env: ["GST_DEBUG": "3,GST_PIPELINE:4,GST_PARAMS:5,shout2:5"], cwd: dir)
        XCTAssertTrue(waitForEvent(events, of: mp) { $0["event"] as? String == "output.state" && $0["state"] as? String == "publishing" },
                      "the server took the login: \(mp.stderr.suffix(3000))")
        mp.terminate()
        XCTAssertTrue(mp.waitForExit(timeout: 20))
        let shown = mp.stderr + (try String(contentsOf: events, encoding: .utf8))
        XCTAssertTrue(mp.stderr.contains("shout2send"), "GStreamer's debug log printed the description")
        for piece in pieces { XCTAssertFalse(shown.contains(piece), "\(piece) of the password shows:\n\(shown.suffix(3000))") }
    }

    /// Credential query parameters (signed CDN and S3 URLs, API tokens), on an HTTP source
    /// and on an output, are masked in `validate`, the log (GStreamer's own lines too),
    /// the events (`player.track`, `output.state`) and `ctl status`.
    private func credentialParametersAreMaskedEverywhere() throws {
        let dir = try makeTempDir()
        let www = dir.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        _ = try TestMedia.makeVideo(in: www, name: "a.mp4", seconds: 20, size: "320x180")
        let http = try startHTTPServer(root: www)
        let srt = try startSRTListener(output: dir.appendingPathComponent("srt.ts"))
        let names = ["access_token", "api_key", "apikey", "signature", "X-Amz-Signature", "X-Amz-Credential",
                     "X-Amz-Security-Token", "refresh_token", "client_secret", "subscriptionKey", "sigv", "authz",
                     "Passwd", "x-goog-credential"]
        var secrets: [String] = []
        func query(_ tag: String) -> String {
            names.map { name in
                let value = "\(tag)\(secrets.count)Zq\(UUID().uuidString.prefix(6))"
                secrets.append(value)
                return "\(name)=\(value)"
            }.joined(separator: "&")
        }
        let source = http.url("a.mp4") + "?" + query("src")
        let output = srt.callerURL + "&latency=200&" + query("out")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: source, outputs: [output]))
        let validate = try CLI.run(["validate", preset.path])
        XCTAssertEqual(validate.status, 0, validate.summary("validate"))

        let events = dir.appendingPathComponent("events.jsonl")
        let socket = dir.appendingPathComponent("c.sock").path
        let mp = try startMediaPub(["--preset", preset.path, "--events", events.path, "--control", socket],
                                   env: ["GST_DEBUG": "3,souphttpsrc:5,srtobject:6"])
        XCTAssertTrue(waitForEvent(events, of: mp) { $0["event"] as? String == "player.track" }, "a track: \(mp.stderr)")
        XCTAssertTrue(waitForEvent(events, of: mp) { $0["event"] as? String == "output.state" && $0["state"] as? String == "publishing" },
                      "publishing: \(mp.stderr)")
        let status = try CLI.run(["ctl", "--socket", socket, "status"], timeout: 20)
        XCTAssertEqual(status.status, 0, status.summary("ctl status"))
        mp.terminate()
        XCTAssertTrue(mp.waitForExit(timeout: 20))
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr)
        let eventText = try String(contentsOf: events, encoding: .utf8)

        let sinks = ["validate": validate.stdout + validate.stderr, "log": mp.stderr, "events": eventText,
                     "status": status.stdout + status.stderr]
        for (sink, text) in sinks {
            for secret in secrets { XCTAssertFalse(text.contains(secret), "\(sink) shows \(secret):\n\(text.prefix(4000))") }
        }
        for (sink, text) in sinks where sink != "log" {
            for name in names { XCTAssertTrue(text.contains("\(name)=****"), "\(sink) shows \(name) masked:\n\(text.prefix(3000))") }
        }
        XCTAssertTrue(mp.stderr.contains("souphttpsrc"), "GStreamer's own lines on the source are in the log")
        XCTAssertTrue(eventText.contains("\"event\":\"player.track\""), eventText)
    }

    func testSRTStreamIDInAccessControlSyntaxIsSentAsWritten() throws {
        let dir = try makeTempDir()
        let port = try Ports.free()
        let receiverLog = dir.appendingPathComponent("srtsrc.log")
        // GStreamer's own SRT listener logs the stream id each caller sends.
        let receiver = try startTool("gst-launch-1.0", ["srtsrc", "uri=srt://127.0.0.1:\(port)?mode=listener", "!", "fakesink"],
                                     env: ProcessInfo.processInfo.environment.merging(["GST_DEBUG": "srtobject:5"]) { $1 },
                                     stdoutURL: dir.appendingPathComponent("srtsrc.out"), stderrURL: receiverLog)
        XCTAssertTrue(Ports.waitForUDP(port), "listener up: \(receiver.stderr)")
        let streamID = "#!::r=live/cam1,u=alice"
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc))
        let mp = try startMediaPub(["--preset", preset.path, "--realtime", "--events", events.path,
                                    "--control", dir.appendingPathComponent("c.sock").path,
                                    "--output", "srt://127.0.0.1:\(port)?mode=caller&streamid=\(streamID)"])
        XCTAssertTrue(Ports.waitUntil(timeout: 30) {
            ((try? String(contentsOf: receiverLog, encoding: .utf8)) ?? "").contains("streamid: ")
        }, "the listener saw a caller: \(mp.stderr)")
        mp.terminate()
        XCTAssertTrue(mp.waitForExit(timeout: 20))
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr)
        let log = try String(contentsOf: receiverLog, encoding: .utf8)
        let seen = log.split(separator: "\n").filter { $0.contains("streamid: ") }.map { String($0.components(separatedBy: "streamid: ").last ?? "") }
        XCTAssertEqual(Set(seen), [streamID], log)
        XCTAssertFalse(mp.stderr.contains("alice"), "the stream id is shown masked: \(mp.stderr)")
    }
}

// Radio outputs (docs/presets.md, Icecast): one run feeds an MP3 and an Opus mount of
// a real icecast2 on loopback; the mount's title follows the playlist's items; a wrong
// password is `rejected`, masked; the server going away and coming back is
// `reconnecting`, then `publishing` again. Audio-only recordings (.m4a) rotate.

import Foundation
import XCTest

final class IcecastOutputTests: XCTestCase {

    /// A 10 s MP3 tagged `artist`/`title` (a sine at `freq`).
    private func taggedTone(in dir: URL, _ name: String, freq: Int, title: String, artist: String) throws -> URL {
        let out = dir.appendingPathComponent(name)
        try Proc.check("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=\(freq):sample_rate=44100:duration=10",
                                  "-ac", "2", "-c:a", "libmp3lame", "-b:a", "96k", "-metadata", "title=\(title)",
                                  "-metadata", "artist=\(artist)", out.path], timeout: 60)
        return out
    }

    private func state(_ output: String, _ state: String, error: String? = nil) -> ([String: Any]) -> Bool {
        { e in
            e["event"] as? String == "output.state" && e["output"] as? String == output && e["state"] as? String == state
                && (error.map { (e["error"] as? String)?.contains($0) == true } ?? true)
        }
    }

    func testRunFeedsMP3AndOpusMountsWithTitlesRejectionAndReconnect() throws {
        let dir = try makeTempDir()
        let password = "srcpw-7Hq2xK"
        let wrong = "wrongpw-3Zt9aB"
        let server = try startIcecastServer(password: password)
        try taggedTone(in: dir, "one.mp3", freq: 440, title: "First Song", artist: "The Band")
        try taggedTone(in: dir, "two.mp3", freq: 660, title: "Second Song", artist: "The Band")
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "radio.yaml", """
        name: radio
        audio: { sample_rate: 44100, channels: 2, bitrate: 96k }
        players:
          - id: music
            playlist: { items: [one.mp3, two.mp3], mode: loop }
        outputs:
          - { id: mp3, url: "\(server.url(mount: "radio.mp3", query: "name=Test+Radio&description=Tones&genre=Test"))" }
          - { id: opus, url: "\(server.url(mount: "radio.opus"))" }
          - { id: wrong, url: "\(server.url(mount: "wrong.mp3", password: wrong))" }
        reconnect: { initial: 1s, max: 1s, give_up_after: 10m }
        """)
        let mp = try startMediaPub(["--preset", preset.path, "--events", events.path,
                                    "--control", dir.appendingPathComponent("c.sock").path],
                                   env: ["GST_DEBUG": "2,shout2:5"], cwd: dir)
        for id in ["mp3", "opus"] {
            XCTAssertTrue(EventLog.waitFor(events, of: mp, state(id, "publishing")), "\(id) publishing: \(mp.stderr.suffix(3000))")
        }
        XCTAssertTrue(EventLog.waitFor(events, of: mp, state("wrong", "reconnecting", error: "rejected")),
                      "a wrong password is rejected: \(mp.stderr.suffix(3000))")

        // What status counts: the server acknowledged part of what was sent; the refused output sent nothing.
        func outputs() -> [String: [String: Any]] {
            let r = try? CLI.run(["ctl", "--socket", dir.appendingPathComponent("c.sock").path, "status"], timeout: 20)
            let json = (try? JSONSerialization.jsonObject(with: Data((r?.stdout ?? "").utf8))) as? [String: Any]
            let list = ((json?["status"] as? [String: Any])?["outputs"] as? [[String: Any]]) ?? []
            return Dictionary(list.compactMap { o in (o["id"] as? String).map { ($0, o) } }, uniquingKeysWith: { a, _ in a })
        }
        XCTAssertTrue(Ports.waitUntil(timeout: 20) { (outputs()["mp3"]?["bytes_acked"] as? Int ?? 0) > 0 }, "\(outputs())")
        let counted = outputs()
        for id in ["mp3", "opus"] {
            let sent = counted[id]?["bytes_sent"] as? Int ?? -1, acked = counted[id]?["bytes_acked"] as? Int ?? -1
            XCTAssertTrue(sent > 0 && acked >= 0 && acked <= sent, "\(id): acked \(acked) of \(sent)")
        }
        XCTAssertEqual(counted["wrong"]?["bytes_sent"] as? Int, 0, "a refused login sent nothing: \(counted)")
        XCTAssertEqual(counted["wrong"]?["bytes_acked"] as? Int, 0, "\(counted)")

        // A listener reads both mounts from the server.
        let mp3 = try MediaProbe.probe(server.listenURL("radio.mp3"), inputOptions: ["-rw_timeout", "5000000"], timeout: 20)
        XCTAssertEqual(mp3.codecNames, ["mp3"], mp3.rawJSON)
        let opus = try MediaProbe.probe(server.listenURL("radio.opus"), inputOptions: ["-rw_timeout", "5000000"], timeout: 20)
        XCTAssertEqual(opus.codecNames, ["opus"], opus.rawJSON)
        let listed = server.sources()["/radio.mp3"] ?? [:]
        XCTAssertEqual(listed["server_name"] as? String, "Test Radio", "\(listed)")
        XCTAssertEqual(listed["genre"] as? String, "Test", "\(listed)")
        XCTAssertEqual(listed["server_description"] as? String, "Tones", "\(listed)")

        // The mount's title is the item's, and changes with it.
        func title() -> String? { server.sources()["/radio.mp3"]?["title"] as? String }
        XCTAssertTrue(Ports.waitUntil(timeout: 10) { title() == "The Band - First Song" }, "first title: \(title() ?? "none")")
        XCTAssertTrue(EventLog.waitFor(events, of: mp) { $0["event"] as? String == "player.track" && $0["index"] as? Int == 1 },
                      "the second item: \(mp.stderr.suffix(2000))")
        XCTAssertTrue(Ports.waitUntil(timeout: 10) { title() == "The Band - Second Song" }, "second title: \(title() ?? "none")")

        // The server goes away and comes back: reconnecting, then publishing again.
        server.stop()
        XCTAssertTrue(EventLog.waitFor(events, of: mp, state("mp3", "reconnecting")), "reconnecting: \(mp.stderr.suffix(2000))")
        func published() -> Int { ((try? EventLog.read(events)) ?? []).filter(state("mp3", "publishing")).count }
        let before = published()
        try server.start()
        XCTAssertTrue(EventLog.waitFor(events, of: mp) { _ in published() > before }, "publishing again: \(mp.stderr.suffix(2000))")
        XCTAssertTrue(Ports.waitUntil(timeout: 10) { title()?.hasPrefix("The Band - ") == true },
                      "the mount is back, titled: \(title() ?? "none")")

        mp.terminate()
        XCTAssertTrue(mp.waitForExit(timeout: 30))
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr.suffix(3000).description)
        // Masked everywhere: log (GStreamer's debug with it), events, the rejection itself.
        let eventText = try String(contentsOf: events, encoding: .utf8)
        for secret in [password, wrong] {
            XCTAssertFalse(mp.stderr.contains(secret), "\(secret) in the log")
            XCTAssertFalse(eventText.contains(secret), "\(secret) in the events")
        }
        XCTAssertTrue(eventText.contains("icecast://****@127.0.0.1:\(server.port)/wrong.mp3"), eventText)
        XCTAssertTrue(mp.stderr.contains("setting password: ****"), "shout2send's debug log, masked: \(mp.stderr.prefix(2000))")
    }

    /// A wrong password at an MP3 and an Opus mount, retried every 200 ms, leaves nothing
    /// behind: mediapub's open descriptors are the same after 16 more refusals (one
    /// attempt of each output may be under way at either count: 2 at most). Before, each
    /// refusal left libshout's socket open (shout2send's libshout 2.4 does not close it at
    /// a refused login): 16 more descriptors. Now the login is tried by us first, its
    /// socket closed at once, and a refused one never reaches libshout.
    func testAWrongPasswordRetriedLeavesNoSocketBehind() throws {
        let dir = try makeTempDir()
        let server = try startIcecastServer(password: "srcpw-4Kd8Lm")
        try TestMedia.makeAudio(in: dir, name: "tone.mp3", seconds: 4, freq: 440, ext: "mp3")
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "wrong.yaml", """
        name: wrong
        audio: { sample_rate: 44100, channels: 2, bitrate: 96k }
        players:
          - id: music
            playlist: { items: [tone.mp3], mode: loop }
        outputs:
          - { id: mp3, url: "\(server.url(mount: "w.mp3", password: "wrongpw-8Rf2Qs"))" }
          - { id: opus, url: "\(server.url(mount: "w.opus", password: "wrongpw-8Rf2Qs"))" }
        reconnect: { initial: 200ms, max: 200ms, give_up_after: never }
        """)
        let mp = try startMediaPub(["--preset", preset.path, "--events", events.path], cwd: dir)
        defer { mp.terminate() }
        func states() -> [[String: Any]] { ((try? EventLog.read(events)) ?? []).filter { $0["event"] as? String == "output.state" } }
        func refusals() -> Int {
            states().filter { $0["state"] as? String == "reconnecting"
                && ($0["error"] as? String)?.hasPrefix("rejected: the server refused the source login: ") == true }.count
        }
        func descriptors() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(mp.pid)/fd")) ?? []).map {
                "\($0)=" + ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(mp.pid)/fd/\($0)")) ?? "gone")
            }.sorted()
        }
        func waitForRefusals(_ n: Int) -> Bool {
            Ports.waitUntil(timeout: 60, watching: events) { refusals() >= n || !mp.isRunning } && refusals() >= n
        }
        // Counted once the run is under way (its player has opened its file and plays) and refused a few times.
        XCTAssertTrue(EventLog.waitFor(events, of: mp, EventLog.progressed(1)), "playing: \(mp.stderr.suffix(2000))")
        XCTAssertTrue(waitForRefusals(refusals() + 4), "refused: \(states().suffix(4)) \(mp.stderr.suffix(2000))")
        let (first, at) = (descriptors(), refusals())
        XCTAssertTrue(waitForRefusals(at + 16), "refused again: \(states().suffix(4)) \(mp.stderr.suffix(2000))")
        let (last, then) = (descriptors(), refusals())
        print("open descriptors: \(first.count) at refusal \(at), \(last.count) at refusal \(then)")
        XCTAssertGreaterThanOrEqual(then - at, 16)
        XCTAssertLessThanOrEqual(abs(last.count - first.count), 2,
                                 "over \(then - at) refusals, gone: \(Set(first).subtracting(last).sorted()), new: \(Set(last).subtracting(first).sorted())")
        XCTAssertFalse(states().contains { $0["state"] as? String == "publishing" }, "\(states())")
        mp.terminate()
        XCTAssertTrue(mp.waitForExit(timeout: 30))
    }

    /// icecast2 frozen (SIGSTOP) while it takes an MP3 mount: its kernel goes on
    /// acknowledging into its receive buffer (minutes at a radio bitrate: the kernel grows
    /// that buffer as it fills), but the window it advertises, once it shrinks, never opens
    /// again: `stalled` (then reconnecting) `reconnect.stall` after its first shrink, which
    /// comes sooner the higher the bitrate (some 9 s at 96 kb/s, 3 s at 320 kb/s, on
    /// loopback; printed, with the bound waited for, a generous 45 s). `reconnect.stall` is
    /// 5 s (the default), so that a loaded machine's pause while the server reads (a listener
    /// taking 2 s of sound, its title) is never taken for a stall; while it read, never
    /// stalled. (Before: bytes_acked climbed and the output stayed publishing; one item, so that no title request blocks the sink and gives it away.)
    /// Beside it, an AAC mount: what a listener reads of it (ffmpeg, 2 s) is clean ADTS,
    /// no decoding error, the tone, under the type `audio/aac`, titled (before: libshout's
    /// MP3 parser cut it up, dozens of decoding errors).
    func testAFrozenServerIsNoticedThoughItsKernelStillAcknowledges() throws {
        let dir = try makeTempDir()
        let stall: TimeInterval = 5
        let noticeBound = stall + 40   // generous: a loaded 2-core machine; what it took is printed
        let server = try startIcecastServer(password: "frozenpw-5Rt2")
        let pid = try XCTUnwrap(server.pid)
        addTeardownBlock { kill(pid, SIGCONT) }   // never left frozen
        try TestMedia.makeAudio(in: dir, name: "tone.mp3", seconds: 70, freq: 440, ext: "mp3")
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "frozen.yaml", """
        name: frozen
        audio: { sample_rate: 44100, channels: 2, bitrate: 320k }
        players:
          - { id: music, source: tone.mp3 }
        outputs:
          - { id: mp3, url: "\(server.url(mount: "frozen.mp3"))" }
          - { id: aac, url: "\(server.url(mount: "frozen.aac", query: "name=Frozen+AAC"))" }
        reconnect: { initial: 500ms, max: 1s, give_up_after: never, stall: \(Int(stall))s }
        """)
        let mp = try startMediaPub(["--preset", preset.path, "--events", events.path], cwd: dir)
        for id in ["mp3", "aac"] {
            XCTAssertTrue(EventLog.waitFor(events, of: mp, state(id, "publishing")), "\(id) publishing: \(mp.stderr.suffix(3000))")
        }
        // 2 s of the AAC mount, as a listener reads it (the server paces it: 2 s of sound while the server reads).
        let heard = dir.appendingPathComponent("heard.wav")
        let listen = try Proc.run("ffmpeg", ["-nostdin", "-v", "error", "-rw_timeout", "5000000", "-i", server.listenURL("frozen.aac"),
                                             "-t", "2", "-y", heard.path], timeout: 30)
        XCTAssertEqual(listen.status, 0, listen.summary("ffmpeg reads the AAC mount"))
        XCTAssertEqual(listen.stderr.split(separator: "\n").count, 0, "decoding errors: \(listen.stderr.prefix(2000))")
        let pcm = try MediaProbe.decodePCM(heard.path)
        XCTAssertEqual(Double(pcm.count) / 16000, 2, accuracy: 0.1, "2 s decoded")
        XCTAssertEqual(MediaProbe.dominantFrequency(pcm, rate: 16000) ?? 0, 440, accuracy: 10)
        let listed = server.sources()["/frozen.aac"] ?? [:]
        XCTAssertEqual(listed["server_type"] as? String, "audio/aac", "\(listed)")
        XCTAssertEqual(listed["server_name"] as? String, "Frozen AAC", "\(listed)")
        XCTAssertTrue(Ports.waitUntil(timeout: 10) { server.sources()["/frozen.aac"]?["title"] as? String == "Unknown - tone" },
                      "titled: \(server.sources()["/frozen.aac"] ?? [:])")
        let states = ((try? EventLog.read(events)) ?? []).filter { $0["event"] as? String == "output.state" }.compactMap { $0["state"] as? String }
        XCTAssertEqual(states, ["publishing", "publishing"], "never stalled while the server reads")

        let stalled = { (e: [String: Any]) in
            self.state("mp3", "reconnecting")(e) && (e["error"] as? String)?.hasPrefix("stalled: the server read nothing for \(Int(stall))s") == true
        }
        let frozenAt = Date()
        kill(pid, SIGSTOP)
        XCTAssertTrue(EventLog.waitFor(events, of: mp, timeout: noticeBound, stalled), "the frozen server is noticed: \(mp.stderr.suffix(2000))")
        if let noticed = ((try? EventLog.read(events)) ?? []).first(where: stalled), let at = EventLog.time(noticed) {
            print("a frozen icecast2 noticed \(at.timeIntervalSince(frozenAt)) s after the freeze (reconnect.stall \(stall) s, waited for at most \(noticeBound) s)")
        }
        kill(pid, SIGCONT)
        mp.terminate()
        XCTAssertTrue(mp.waitForExit(timeout: 30))
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr.suffix(3000).description)
        // The AAC mount's sink (an fdsink) is set nothing it does not have (before: a password, at each connect).
        XCTAssertFalse(mp.stderr.contains("has no property named"), String(mp.stderr.prefix(3000)))
    }

    /// Mounts a server refuses before any login: one that closes the connection without a
    /// word (as icecast2 does for a path it will not serve), one that answers 403 with its
    /// reason. Each output is `reconnecting` with the server's own words, `rejected:`, and
    /// each attempt is one request, paced by the backoff (before: `connecting` with no
    /// reason while libshout asked again some 40 times a second, then "Socket error").
    /// An AAC mount (logged in by us) refused its login is `rejected` in the server's words too.
    /// `validate` refuses a mount no server takes (`../`), naming it.
    func testAMountTheServerRefusesBeforeTheLoginIsSaidInItsWordsAndRetriedWithTheBackoff() throws {
        let dir = try makeTempDir()
        let closes = try AnswerAndCloseServer(in: self, answer: nil)
        let forbids = try AnswerAndCloseServer(in: self, answer: "HTTP/1.0 403 Forbidden\r\nContent-Type: text/html\r\n\r\n<b>Mountpoint in use</b>\r\n")
        let unauthorized = try AnswerAndCloseServer(in: self, answer: "HTTP/1.0 401 Authentication Required\r\n\r\nYou need to authenticate\r\n")
        try TestMedia.makeAudio(in: dir, name: "tone.mp3", seconds: 6, freq: 440, ext: "mp3")
        let events = dir.appendingPathComponent("events.jsonl")
        func preset(_ urls: [String]) throws -> URL {
            try writeFile(dir, "refused.yaml", """
            name: refused
            audio: { sample_rate: 44100, channels: 2, bitrate: 96k }
            players:
              - { id: music, source: tone.mp3 }
            outputs:
            \(urls.enumerated().map { "  - { id: o\($0.offset), url: \"\($0.element)\" }" }.joined(separator: "\n"))
            reconnect: { initial: 200ms, max: 1s, give_up_after: never }
            """)
        }
        let bad = try preset(["icecast://source:pw@127.0.0.1:\(closes.port)/../x.mp3"])
        let v = try CLI.run(["validate", bad.path], cwd: dir)
        XCTAssertEqual(v.status, 2, v.summary("validate a ../ mount"))
        XCTAssertTrue(v.stderr.contains("refused.yaml:6: outputs[0].url: \"icecast://****@127.0.0.1:\(closes.port)/../x.mp3\": the mount /../x.mp3 has an empty, . or .. part"),
                      v.stderr)

        let r = try CLI.run(["--preset", try preset(["icecast://source:pw@127.0.0.1:\(closes.port)/a.mp3",
                                                     "icecast://source:pw@127.0.0.1:\(forbids.port)/b.mp3",
                                                     "icecast://source:pw@127.0.0.1:\(unauthorized.port)/c.aac"]).path,
                             "--realtime", "--duration", "3s", "--events", events.path], cwd: dir, timeout: 60)
        XCTAssertEqual(r.status, 1, r.summary("a run whose mounts were refused"))
        let all = try EventLog.read(events)
        for (id, server, why) in [("o0", closes, "rejected: the server closed the connection without answering the mount's request"),
                                  ("o1", forbids, "rejected: the server refused the mount before the login: 403 Forbidden: Mountpoint in use"),
                                  ("o2", unauthorized, "rejected: the server refused the source login: 401 Authentication Required")] {
            let states = all.filter { $0["event"] as? String == "output.state" && $0["output"] as? String == id }
            let retries = states.filter { $0["state"] as? String == "reconnecting" }
            XCTAssertGreaterThanOrEqual(retries.count, 2, "\(id): \(states)")
            XCTAssertEqual(Set(retries.compactMap { $0["error"] as? String }), [why], "\(id): \(states)")
            XCTAssertFalse(states.contains { $0["state"] as? String == "publishing" }, "\(id): \(states)")
            // One request an attempt: those refused, and at most one more under way at the end.
            let requests = server.requests
            print("\(id): \(requests.count) requests, \(retries.count) refusals")
            XCTAssertTrue(requests.allSatisfy { $0.hasPrefix("SOURCE /") }, "\(requests)")
            XCTAssertTrue((retries.count...retries.count + 1).contains(requests.count), "\(id): \(requests.count) requests for \(retries.count) attempts")
        }
    }

    func testAudioOnlyRunRecordsRotatingM4AFiles() throws {
        let dir = try makeTempDir()
        try TestMedia.makeAudio(in: dir, name: "tone.mp3", seconds: 8, freq: 440, ext: "mp3")
        let preset = try writeFile(dir, "rec.yaml", """
        name: rec
        audio: { sample_rate: 44100, channels: 2, bitrate: 96k }
        players:
          - { id: music, source: tone.mp3 }
        outputs:
          - { url: "rec-%Y%m%d-%H%M%S.m4a", segment: 3s }
          - { url: "whole.mp3" }
          - { url: "whole.ogg" }
        """)
        let r = try CLI.run(["--preset", preset.path, "--no-realtime", "--duration", "7s"], cwd: dir, timeout: 90)
        XCTAssertEqual(r.status, 0, r.summary("audio-only recordings"))
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".m4a") }.sorted()
        XCTAssertEqual(files.count, 3, "7 s cut every 3 s: \(files)")
        var total = 0.0
        for name in files {
            let p = try MediaProbe.probe(dir.appendingPathComponent(name).path)
            XCTAssertEqual(p.codecNames, ["aac"], "\(name): sound only, AAC: \(p.rawJSON)")
            total += p.duration ?? 0
            let pcm = try MediaProbe.decodePCM(dir.appendingPathComponent(name).path, rate: 16000)
            XCTAssertEqual(MediaProbe.dominantFrequency(pcm, rate: 16000) ?? 0, 440, accuracy: 10, name)
        }
        XCTAssertEqual(total, 7, accuracy: 0.3, "the files hold the run: \(files)")
        for (name, codec) in [("whole.mp3", "mp3"), ("whole.ogg", "opus")] {
            let p = try MediaProbe.probe(dir.appendingPathComponent(name).path)
            XCTAssertEqual(p.codecNames, [codec], "\(name): \(p.rawJSON)")
            XCTAssertEqual(p.duration ?? 0, 7, accuracy: 0.3, "\(name): \(p.rawJSON)")
        }
        // A bare stream and an Ogg file are not cut into segments: refused at once, naming the key.
        for ext in ["mp3", "aac", "ogg"] {
            let bad = try writeFile(dir, "seg-\(ext).yaml", """
            name: seg
            audio: {}
            players:
              - { source: tone.mp3 }
            outputs:
              - { url: "rec-%H%M%S.\(ext)", segment: 3s }
            """)
            let v = try CLI.run(["validate", bad.path], cwd: dir)
            XCTAssertEqual(v.status, 2, v.summary("segment on .\(ext)"))
            XCTAssertTrue(v.stderr.contains("seg-\(ext).yaml:6: outputs[0].segment: .\(ext) files are not cut into segments"), v.stderr)
        }
    }
}

// docs/control.md through the control socket, as a user drives it: seek that says
// where it landed and refuses the past-the-end, load that answers with the
// outcome and takes over without a gap (or changes nothing), every player
// setting of the preset settable at run time, and player.track carrying the
// tags it has.

import Foundation
import XCTest

final class ControlPlayerTests: XCTestCase {

    private func ctl(_ socket: String, _ words: [String]) throws -> [String: Any] {
        let r = try CLI.run(["ctl", "--socket", socket] + words, timeout: 30)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.summary("ctl \(words)"))
    }

    private func events(_ url: URL, _ name: String) -> [[String: Any]] {
        ((try? EventLog.read(url)) ?? []).filter { $0["event"] as? String == name }
    }

    /// A realtime run of `source` (one player "main", audio only) with a control socket and events.
    private func start(_ dir: URL, source: String, extra: [String] = []) throws -> (RunningProcess, String, URL, URL) {
        let socket = dir.appendingPathComponent("c.sock").path
        let eventsURL = dir.appendingPathComponent("events.jsonl")
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.audioOnly(players: [PlayerPreset.player("main", source: source, extra)], output: out)
        let preset = try writeFile(dir, "p.yaml", yaml)
        let mp = try startMediaPub(["--preset", preset.path, "--realtime", "--control", socket, "--events", eventsURL.path])
        XCTAssertTrue(Ports.waitUntil(timeout: 30) { !mp.isRunning || !events(eventsURL, "player.progress").isEmpty }, mp.stderr)
        return (mp, socket, eventsURL, out)
    }

    func testSeekSaysWhereItLandedAndRefusesThePastTheEnd() throws {
        let dir = try makeTempDir()
        try TestMedia.makeAudio(in: dir, name: "ten.wav", seconds: 10, freq: 440, ext: "wav")
        let (mp, socket, _, _) = try start(dir, source: "ten.wav")
        let past = try ctl(socket, ["seek", "main", "99s"])
        XCTAssertEqual(past["ok"] as? Bool, false)
        XCTAssertEqual(past["error"] as? String, "seek: 99s is past the end of main's item (10s long)")
        let landed = try ctl(socket, ["seek", "main", "7.5"])   // a bare number is seconds
        XCTAssertEqual(landed["ok"] as? Bool, true, "\(landed)")
        XCTAssertEqual(Double(landed["position_ms"] as? Int ?? -1), 7500, accuracy: 100)
        XCTAssertTrue(mp.isRunning, "the broadcast goes on")
        XCTAssertEqual(try ctl(socket, ["quit"])["ok"] as? Bool, true)
        XCTAssertTrue(mp.waitForExit(timeout: 20))
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr)
    }

    func testLoadAnswersWithTheOutcome() throws {
        let dir = try makeTempDir()
        try TestMedia.makeAudio(in: dir, name: "a.wav", seconds: 30, freq: 440, ext: "wav")
        try TestMedia.makeAudio(in: dir, name: "b.mp3", seconds: 4, freq: 1000, ext: "mp3")
        try Data("not media at all".utf8).write(to: dir.appendingPathComponent("junk.mp3"))
        let (mp, socket, _, _) = try start(dir, source: "a.wav")
        let good = try ctl(socket, ["load", "main", dir.appendingPathComponent("b.mp3").path])
        XCTAssertEqual(good["ok"] as? Bool, true, "\(good)")
        XCTAssertEqual(good["state"] as? String, "playing")
        XCTAssertEqual(Double(good["duration_ms"] as? Int ?? 0), 4000, accuracy: 100)
        let missing = try ctl(socket, ["load", "main", dir.appendingPathComponent("nope.mp3").path])
        XCTAssertEqual(missing["ok"] as? Bool, false)
        XCTAssertEqual(missing["error"] as? String, "load: \(dir.appendingPathComponent("nope.mp3").path): no such file")
        let junk = try ctl(socket, ["load", "main", dir.appendingPathComponent("junk.mp3").path])
        XCTAssertEqual(junk["ok"] as? Bool, false, "\(junk)")
        XCTAssertEqual(junk["error"] as? String, "load: \(dir.appendingPathComponent("junk.mp3").path): not media (no decoder recognises what it holds)")
        mp.terminate()
        XCTAssertTrue(mp.waitForExit(timeout: 20))
    }

    /// A load whose file is missing is refused before the player is touched: what it
    /// plays goes on (before: the player stopped, went to error and left the mix).
    func testAFailedLoadLeavesThePlayerAsItWas() throws {
        let dir = try makeTempDir()
        try TestMedia.makeAudio(in: dir, name: "a.wav", seconds: 30, freq: 440, ext: "wav")
        let (mp, socket, eventsURL, _) = try start(dir, source: "a.wav")
        let missing = dir.appendingPathComponent("typo.mp3").path
        let answer = try ctl(socket, ["load", "main", missing])
        XCTAssertEqual(answer["error"] as? String, "load: \(missing): no such file")
        let player = try XCTUnwrap(((try ctl(socket, ["status"])["status"] as? [String: Any])?["players"] as? [[String: Any]])?.first)
        XCTAssertEqual(player["state"] as? String, "playing")
        XCTAssertEqual(player["source"] as? String, dir.appendingPathComponent("a.wav").path)
        // Written before the answer, had the load touched the player: stopped, loading, error.
        let states = events(eventsURL, "player.state").compactMap { $0["state"] as? String }
        XCTAssertFalse(states.contains("error") || states.contains("stopped"), "the refused load changed nothing: \(states)")
        XCTAssertEqual(try ctl(socket, ["quit"])["ok"] as? Bool, true)
        XCTAssertTrue(mp.waitForExit(timeout: 20))
    }

    /// The last `player.progress` position, once `tracks` player.track events have come.
    private func position(_ url: URL, afterTracks tracks: Int) -> Int {
        let all = (try? EventLog.read(url)) ?? []
        guard let last = all.indices.filter({ all[$0]["event"] as? String == "player.track" }).dropFirst(tracks - 1).first
        else { return -1 }
        return all[last...].last { $0["event"] as? String == "player.progress" }?["position_ms"] as? Int ?? -1
    }

    /// The two longest realtime runs (mostly waiting: for loads, a slow server, settings),
    /// each with its own folder and control socket: at once, each checked as its own test was.
    func testFailedLoadsAndEverySettingEachInARunOfItsOwnAtOnce() {
        atOnce([("failed loads and a good one", failedLoadsLeavePictureAndToneUnbrokenAndAGoodOneTakesOverWithoutAGap),
                ("every player setting", everyPlayerSettingIsSettableAtRunTime)])
    }

    /// docs/control.md `load`: the new source is prepared beside the one that plays,
    /// which goes on until the new one has its first picture and sound; a load that
    /// fails changes nothing. A realtime recording of a blue 440 Hz source is given a
    /// URL that answers 404 (nginx) and a missing file, then a lime 880 Hz one; the
    /// recording is checked frame by frame (ffmpeg signalstats) and 20 ms by 20 ms
    /// (RMS of the PCM ffmpeg decodes). Before: the 404 stopped the player, black and
    /// silent from then on.
    private func failedLoadsLeavePictureAndToneUnbrokenAndAGoodOneTakesOverWithoutAGap() throws {
        let dir = try makeTempDir()
        let www = dir.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        // Each longer than it plays: blue some 3 s up to the good load, lime some 2 s up to the quit.
        try TestMedia.makeColorVideo(in: dir, name: "blue.mp4", seconds: 15, color: "blue", freq: 440)
        try TestMedia.makeColorVideo(in: www, name: "lime.mp4", seconds: 15, color: "lime", freq: 880)
        let server = try startHTTPServer(root: www)
        let out = dir.appendingPathComponent("out.mp4")
        let eventsURL = dir.appendingPathComponent("events.jsonl")
        let socket = dir.appendingPathComponent("c.sock").path
        let yaml = PlayerPreset.video(players: [PlayerPreset.player("main", source: "blue.mp4", ["video: true"])], output: out,
                                      extra: "standby:\n  color: \"#000000\"")
        let preset = try writeFile(dir, "p.yaml", yaml)
        let mp = try startMediaPub(["--preset", preset.path, "--realtime", "--control", socket, "--events", eventsURL.path])
        XCTAssertTrue(Ports.waitUntil(timeout: 30, watching: eventsURL) { !mp.isRunning || position(eventsURL, afterTracks: 1) >= 1000 },
                      mp.stderr)

        // A 404, then a missing file: refused, and the blue source plays on.
        let notFound = try ctl(socket, ["load", "main", server.url("nope.mp4")])
        XCTAssertEqual(notFound["ok"] as? Bool, false, "\(notFound)")
        XCTAssertEqual(notFound["error"] as? String, "load: \(server.url("nope.mp4")): Not Found")
        let typo = dir.appendingPathComponent("typo.mp4").path
        let missing = try ctl(socket, ["load", "main", typo])
        XCTAssertEqual(missing["error"] as? String, "load: \(typo): no such file")
        let player = try XCTUnwrap(((try ctl(socket, ["status"])["status"] as? [String: Any])?["players"] as? [[String: Any]])?.first)
        XCTAssertEqual(player["state"] as? String, "playing")
        XCTAssertEqual(player["source"] as? String, dir.appendingPathComponent("blue.mp4").path)
        let states = events(eventsURL, "player.state").compactMap { $0["state"] as? String }
        XCTAssertEqual(states, ["loading", "playing"], "the refused loads changed nothing")
        let before = position(eventsURL, afterTracks: 1)
        XCTAssertTrue(Ports.waitUntil(timeout: 30, watching: eventsURL) { !mp.isRunning || position(eventsURL, afterTracks: 1) >= before + 1000 },
                      "the blue source plays on after the refused loads:\n\(mp.stderr)")

        // A good one takes over once it is ready.
        let good = try ctl(socket, ["load", "main", server.url("lime.mp4")])
        XCTAssertEqual(good["ok"] as? Bool, true, "\(good)")
        XCTAssertEqual(good["state"] as? String, "playing")
        XCTAssertTrue(Ports.waitUntil(timeout: 30, watching: eventsURL) { !mp.isRunning || position(eventsURL, afterTracks: 2) >= 1500 },
                      "the loaded source plays:\n\(mp.stderr)")
        XCTAssertEqual(try ctl(socket, ["quit"])["ok"] as? Bool, true)
        XCTAssertTrue(mp.waitForExit(timeout: 30))
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr)

        // Picture: blue, then lime, nothing else in between (no black frame, no slate).
        let stats = try MediaProbe.frameStats(out.path)
        let isBlue = Colour.blue.matches, isLime = Colour.lime.matches
        guard let firstBlue = stats.firstIndex(where: isBlue), let firstLime = stats.firstIndex(where: isLime) else {
            return XCTFail("both sources in the recording: \(stats.count) frames")
        }
        let black = stats[firstBlue...].filter { $0.yavg < 30 }.map { String(format: "%.2f", $0.pts) }
        XCTAssertTrue(black.isEmpty, "black frames after the source began, at \(black.prefix(10)) s (\(black.count))")
        let other = stats[firstBlue...].indices.filter { !isBlue(stats[$0]) && !isLime(stats[$0]) }
        XCTAssertTrue(other.isEmpty, "frames neither blue nor lime at \(other.prefix(10).map { stats[$0].pts }) s")
        XCTAssertTrue(stats[firstBlue..<firstLime].allSatisfy(isBlue), "blue until the load took over")
        XCTAssertTrue(stats[firstLime...].allSatisfy(isLime), "lime from then on")
        XCTAssertGreaterThan(firstLime - firstBlue, 40, "the blue source played 2 s before the good load")
        XCTAssertGreaterThan(stats.count - firstLime, 30, "the loaded source played")

        // Sound: never silent for more than 40 ms (two 20 ms windows), 440 Hz before the switch, 880 Hz after.
        let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
        let start = try MediaProbe.streamStartTime(out.path, type: "audio")
        let from = stats[firstBlue].pts - start + 0.3, switchAt = stats[firstLime].pts - start
        let end = Double(pcm.count) / 16000 - 0.3
        let windows = MediaProbe.windowRMSDB(MediaProbe.slice(pcm, rate: 16000, from: from, to: end), rate: 16000, window: 0.02)
        var run = 0, longest = 0, longestAt = 0.0
        for (i, db) in windows.enumerated() {
            run = db < -40 ? run + 1 : 0
            if run > longest { longest = run; longestAt = from + Double(i - run + 1) * 0.02 }
        }
        XCTAssertLessThanOrEqual(longest, 2, "silent for \(longest * 20) ms from \(String(format: "%.2f", longestAt)) s")
        let blueSound = MediaProbe.slice(pcm, rate: 16000, from: from, to: switchAt - 0.3)
        let limeSound = MediaProbe.slice(pcm, rate: 16000, from: switchAt + 0.3, to: end)
        XCTAssertEqual(MediaProbe.dominantFrequency(blueSound, rate: 16000) ?? 0, 440, accuracy: 10, "440 Hz until the switch")
        XCTAssertEqual(MediaProbe.dominantFrequency(limeSound, rate: 16000) ?? 0, 880, accuracy: 10, "880 Hz after it")
    }

    /// aux off takes the player out of the stream (checked on the recording); play volume,
    /// mute-local and the progress interval change as status and events show.
    private func everyPlayerSettingIsSettableAtRunTime() throws {
        let dir = try makeTempDir()
        try TestMedia.makeAudio(in: dir, name: "a.wav", seconds: 30, freq: 440, ext: "wav")
        let (mp, socket, eventsURL, out) = try start(dir, source: "a.wav")
        for words in [["play-volume", "main", "30"], ["mute-local", "main", "on"], ["progress-interval", "main", "250ms"]] {
            XCTAssertEqual(try ctl(socket, words)["ok"] as? Bool, true, "\(words)")
        }
        XCTAssertEqual(try ctl(socket, ["play-volume", "main", "201"])["error"] as? String, "play-volume: 201 is out of range 0..200")
        XCTAssertEqual(try ctl(socket, ["progress-interval", "main", "1ms"])["ok"] as? Bool, false)
        let player = try XCTUnwrap(((try ctl(socket, ["status"])["status"] as? [String: Any])?["players"] as? [[String: Any]])?.first)
        XCTAssertEqual(player["play_volume"] as? Int, 30)
        XCTAssertEqual(player["mute_local"] as? Bool, true)
        // Progress now every 250 ms of media time.
        let before = events(eventsURL, "player.progress").count
        XCTAssertTrue(Ports.waitUntil(timeout: 30) { events(eventsURL, "player.progress").count >= before + 6 || !mp.isRunning })
        let steps = events(eventsURL, "player.progress").suffix(4).compactMap { $0["position_ms"] as? Int }
        // Reported on the timeline's ticks: 250 ms give or take one audio tick.
        let gaps = zip(steps.dropFirst(), steps).map { $0 - $1 }
        XCTAssertEqual(gaps.count, 3, "\(steps)")
        XCTAssertTrue(gaps.allSatisfy { abs($0 - 250) <= 25 }, "\(steps)")
        // Out of the stream: sound before, silence after.
        XCTAssertEqual(try ctl(socket, ["aux", "main", "off"])["ok"] as? Bool, true)
        let after = events(eventsURL, "player.progress").count
        XCTAssertTrue(Ports.waitUntil(timeout: 30) { events(eventsURL, "player.progress").count >= after + 8 || !mp.isRunning })
        XCTAssertEqual(try ctl(socket, ["quit"])["ok"] as? Bool, true)
        XCTAssertTrue(mp.waitForExit(timeout: 20))
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr)
        let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
        let seconds = Double(pcm.count) / 16000
        XCTAssertGreaterThan(MediaProbe.rmsDB(MediaProbe.slice(pcm, rate: 16000, from: 0.2, to: 1.0)), -30, "the tone while aux was on")
        XCTAssertLessThan(MediaProbe.rmsDB(MediaProbe.slice(pcm, rate: 16000, from: seconds - 1.2, to: seconds - 0.2)), -60, "silence once aux is off")
    }

    /// Every item's first player.track carries the tags the file has: the sink
    /// posts them before it prerolls, so they are known when the item is ready,
    /// however late the bus is read (items of 0.4 s, decoded faster than real time).
    func testTrackEventsCarryTheTags() throws {
        let dir = try makeTempDir()
        var items: [String] = []
        for i in 0..<16 {
            let name = "t\(i).mp3"
            try TestMedia.ffmpegRun(["-f", "lavfi", "-i", "sine=frequency=\(300 + 20 * i):duration=0.4", "-ac", "2",
                                    "-c:a", "libmp3lame", "-b:a", "96k", "-metadata", "title=Song \(i)",
                                    "-metadata", "artist=Band", "-metadata", "album=Record", dir.appendingPathComponent(name).path])
            items.append(name)
        }
        let out = dir.appendingPathComponent("out.mp4")
        let eventsURL = dir.appendingPathComponent("events.jsonl")
        let list = items.map { "\"\($0)\"" }.joined(separator: ", ")
        let yaml = PlayerPreset.audioOnly(players: [PlayerPreset.player("main", source: "t0.mp3")], output: out)
            .replacingOccurrences(of: "source: \"t0.mp3\"", with: "playlist: {items: [\(list)], mode: once}")
            .replacingOccurrences(of: "source: t0.mp3", with: "playlist: {items: [\(list)], mode: once}")
        let preset = try writeFile(dir, "p.yaml", yaml)
        let r = try CLI.run(["--preset", preset.path, "--no-realtime", "--events", eventsURL.path], timeout: 120)
        XCTAssertEqual(r.status, 0, r.summary("tagged playlist"))
        var first: [Int: String] = [:]
        for e in events(eventsURL, "player.track") {
            guard let index = e["index"] as? Int, first[index] == nil else { continue }
            first[index] = (e["tags"] as? [String: Any])?["title"] as? String ?? "(none)"
        }
        XCTAssertEqual(first.count, 16, "\(first)")
        for i in 0..<16 { XCTAssertEqual(first[i], "Song \(i)", "item \(i)") }
    }
}

import Foundation
import XCTest

/// A clock-time programme on air (docs/presets.md, Schedule), checked on the recording
/// with ffmpeg: each item has its own colour and tone, so the frame a block starts on
/// and what it plays there are read from the picture and the sound.
final class ScheduleRunTests: XCTestCase {
    private enum Colour: Equatable { case red, green, blue, other }

    /// BT.601 limited range: red Y≈81 U≈90 V≈240, green Y≈145 U≈54 V≈34, blue Y≈41 U≈240 V≈110.
    private func colour(_ f: FrameStat) -> Colour {
        if f.vavg > 200, f.uavg < 120 { return .red }
        if f.uavg < 100, f.vavg < 100 { return .green }
        if f.uavg > 200 { return .blue }
        return .other
    }

    /// The frame index where each run of one colour begins, with the colour.
    private func runs(_ frames: [FrameStat]) -> [(at: Int, colour: Colour)] {
        var out: [(Int, Colour)] = []
        for (i, f) in frames.enumerated() where out.last?.1 != colour(f) { out.append((i, colour(f))) }
        return out
    }

    private func events(_ url: URL, _ name: String) throws -> [[String: Any]] {
        try EventLog.read(url).filter { $0["event"] as? String == name }
    }

    func testBlocksStartOnTheFrameTheirTimeFallsOnAndCutWhatPlays() throws {
        let dir = try makeTempDir()
        // Each longer than what it plays (filler 10 s, A's slot 15 s, B 10 s): each is cut.
        try TestMedia.makeColorVideo(in: dir, name: "filler.mp4", seconds: 12, color: "red", freq: 440)
        try TestMedia.makeColorVideo(in: dir, name: "a.mp4", seconds: 17, color: "green", freq: 660)   // longer than its slot
        try TestMedia.makeColorVideo(in: dir, name: "b.mp4", seconds: 12, color: "blue", freq: 880)
        let out = dir.appendingPathComponent("out.mp4")
        let eventsFile = dir.appendingPathComponent("events.jsonl")
        let yaml = PlayerPreset.video(players: [PlayerPreset.player("main", source: "filler.mp4", ["video: true"])], output: out,
                                      extra: """
            schedule:
              timezone: Europe/Paris
              filler: { items: [filler.mp4], mode: loop }
              blocks:
                - { id: a, at: "2026-03-29 12:00:10", source: a.mp4, publish_volume: 50 }
                - { id: b, at: "2026-03-29 12:00:25", source: b.mp4 }
            """)
        let r = try runPreset(yaml, in: dir, args: ["--no-realtime", "--duration", "35s", "--from", "2026-03-29 12:00:00",
                                                    "--events", eventsFile.path], timeout: 120)
        XCTAssertEqual(r.status, 0, r.summary("run"))

        // The picture: filler to the frame before 10 s, A from the frame at 10 s, B from 25 s.
        let frames = try assertUnbrokenTimeline(out.path, seconds: 35)
        let changes = runs(frames)
        XCTAssertEqual(changes.map(\.at), [0, 250, 625], "\(changes)")
        XCTAssertEqual(changes.map(\.colour), [.red, .green, .blue], "\(changes)")

        // The sound: each item's tone in its slot.
        let pcm = try MediaProbe.decodePCM(out.path)
        for (from, to, tone, others) in [(0.5, 9.5, 440.0, [660.0, 880.0]), (10.5, 24.5, 660, [440, 880]), (25.5, 34.5, 880, [440, 660])] {
            let slice = MediaProbe.slice(pcm, rate: 16000, from: from, to: to)
            let level = MediaProbe.toneLevelDB(slice, rate: 16000, freq: tone)
            XCTAssertGreaterThan(level, -30, "\(tone) Hz in \(from)–\(to) s")
            for other in others {
                XCTAssertLessThan(MediaProbe.toneLevelDB(slice, rate: 16000, freq: other), level - 30, "\(other) Hz in \(from)–\(to) s")
            }
        }

        // A's own publish volume (50 %: 6 dB down), B's the player's again.
        func level(_ from: Double, _ to: Double, _ tone: Double) -> Double {
            MediaProbe.toneLevelDB(MediaProbe.slice(pcm, rate: 16000, from: from, to: to), rate: 16000, freq: tone)
        }
        let filler = level(0.5, 9.5, 440)
        XCTAssertEqual(level(10.5, 24.5, 660) - filler, -6, accuracy: 1.5, "block a at publish_volume 50")
        XCTAssertEqual(level(25.5, 34.5, 880) - filler, 0, accuracy: 1.5, "block b at the player's own volume")

        // The events: each block's start (on time) and A's end.
        let blocks = try events(eventsFile, "schedule.block").map {
            "\($0["block"] as? String ?? "?") \($0["state"] as? String ?? "?") \($0["scheduled_at"] as? String ?? "?") \($0["late_ms"] as? Int ?? -1)"
        }
        XCTAssertEqual(blocks, ["a started 2026-03-29 12:00:10 +02:00 0", "a ended 2026-03-29 12:00:10 +02:00 0",
                                "b started 2026-03-29 12:00:25 +02:00 0"])
    }

    /// A block that finishes its item (`overrun: finish`) holds the next one back until the
    /// item ends (not the item after it: its playlist loops); the next one then airs its own
    /// content, and ends at its own time.
    func testABlockThatFinishesItsItemHoldsTheNextBackUntilItEnds() throws {
        let dir = try makeTempDir()
        try TestMedia.makeColorVideo(in: dir, name: "long.mp4", seconds: 25, color: "cyan", freq: 440, size: "64x36")
        for (name, colour) in [("r", "red"), ("g", "green"), ("b", "blue")] {
            try TestMedia.makeColorVideo(in: dir, name: "\(name).mp4", seconds: 10, color: colour, freq: 660, size: "64x36")
        }
        try TestMedia.makeColorVideo(in: dir, name: "filler.mp4", seconds: 30, color: "gray", freq: 880, size: "64x36")
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.tinyProgramme(output: out, blocks: [
            "{id: a, at: \"2026-12-24 10:00:00\", until: \"10:00:20\", playlist: {items: [long.mp4, g.mp4], mode: loop}, overrun: finish}",
            "{id: b, at: \"2026-12-24 10:00:10\", duration: 30s, playlist: [r.mp4, g.mp4, b.mp4]}",
        ])
        let r = try runPreset(yaml, in: dir, args: ["--no-realtime", "--duration", "45s", "--from", "2026-12-24 10:00:00"],
                              timeout: 120)
        XCTAssertEqual(r.status, 0, r.summary("run"))
        let changes = runs(try assertUnbrokenTimeline(out.path, seconds: 45))
        XCTAssertEqual(changes.map(\.colour), [.other, .red, .green, .other], "\(changes)")
        guard changes.count == 4 else { return }
        XCTAssertEqual(changes[0].at, 0)
        XCTAssertEqual(changes[1].at, 625, "b from the frame long.mp4 ends on: \(changes)")
        // b starts on the sample long.mp4's sound ends (within the frame before 625), so its
        // 10 s item ends within a frame of 875.
        XCTAssertEqual(changes[2].at, 875, accuracy: 1, "\(changes)")
        XCTAssertEqual(changes[3].at, 1000, "b ends at its own time: \(changes)")
    }

    func testARunStartedInsideABlockOpensItAtTheItemAndOffsetOnAir() throws {
        let dir = try makeTempDir()
        try TestMedia.makeColorVideo(in: dir, name: "one.mp4", seconds: 10, color: "green", freq: 660)
        // The second item's picture tells its own time: luma 40 + 10 per second.
        try TestMedia.makeLumaClock(in: dir, name: "two.mp4", seconds: 10, lumaBase: 40, lumaPerSecond: 10)
        try TestMedia.makeColorVideo(in: dir, name: "three.mp4", seconds: 10, color: "blue", freq: 880)
        try TestMedia.makeColorVideo(in: dir, name: "filler.mp4", seconds: 10, color: "red", freq: 440)
        let out = dir.appendingPathComponent("out.mp4")
        let eventsFile = dir.appendingPathComponent("events.jsonl")
        let yaml = PlayerPreset.video(players: [PlayerPreset.player("main", source: "filler.mp4", ["video: true"])], output: out,
                                      extra: """
            schedule:
              timezone: America/New_York
              filler: { items: [filler.mp4] }
              blocks:
                - { id: show, at: "20:00", playlist: { items: [one.mp4, two.mp4, three.mp4], mode: once } }
            """)
        // The block began 17 s before the run: the second item, 7 s in.
        let r = try runPreset(yaml, in: dir, args: ["--no-realtime", "--duration", "5s", "--from", "2026-11-01 20:00:17",
                                                    "--events", eventsFile.path], timeout: 90)
        XCTAssertEqual(r.status, 0, r.summary("run"))
        let frames = try assertUnbrokenTimeline(out.path, seconds: 5)
        XCTAssertEqual(frames.first?.yavg ?? 0, 110, accuracy: 3, "the first frame is the second item at 7 s (luma 110)")
        XCTAssertEqual(frames[50].yavg, 130, accuracy: 3, "2 s later, its 9 s mark")
        XCTAssertEqual(runs(Array(frames[70...])).map(\.at), [0, 5], "the third item from 3 s: \(runs(Array(frames[70...])))")
        XCTAssertEqual(colour(frames[80]), .blue)
        let joined = try events(eventsFile, "schedule.block").first
        XCTAssertEqual(joined?["block"] as? String, "show")
        XCTAssertEqual(joined?["joined_at_ms"] as? Int, 17000)
        XCTAssertEqual(joined?["scheduled_at"] as? String, "2026-11-01 20:00:00 -05:00")
    }

    func testSixtyBlocksFiveSecondsApartEachStartOnTheirFrame() throws {
        let dir = try makeTempDir()
        try TestMedia.makeColorVideo(in: dir, name: "g.mp4", seconds: 7, color: "green", freq: 660, size: "64x36")
        try TestMedia.makeColorVideo(in: dir, name: "b.mp4", seconds: 7, color: "blue", freq: 880, size: "64x36")
        let blocks = (0..<60).map { i in
            let s = 5 + 5 * i
            return "    - { id: b\(i), at: \"2026-10-25 01:\(String(format: "%02d:%02d", s / 60, s % 60))\", source: \(i % 2 == 0 ? "g" : "b").mp4 }"
        }
        let out = dir.appendingPathComponent("out.mp4")
        var yaml = PlayerPreset.video(players: [PlayerPreset.player("main", source: "g.mp4", ["video: true"])], output: out,
                                      extra: "schedule:\n  timezone: UTC\n  blocks:\n" + blocks.joined(separator: "\n"))
        yaml = yaml.replacingOccurrences(of: "size: 320x180", with: "size: 64x36")
        let eventsFile = dir.appendingPathComponent("events.jsonl")
        let r = try runPreset(yaml, in: dir, args: ["--no-realtime", "--duration", "303s", "--from", "2026-10-25 01:00:00",
                                                    "--events", eventsFile.path], timeout: 240)
        XCTAssertEqual(r.status, 0, r.summary("run"))
        let started = try events(eventsFile, "schedule.block").filter { $0["state"] as? String == "started" }
        XCTAssertEqual(started.count, 60)
        XCTAssertEqual(started.filter { $0["late_ms"] as? Int != 0 }.count, 0, "\(started.filter { $0["late_ms"] as? Int != 0 })")
        // On the picture: block i from frame 125 (i + 1), alternately green and blue.
        let frames = try MediaProbe.frameStats(out.path, timeout: 240)
        let changes = runs(frames).filter { $0.at > 0 }
        XCTAssertEqual(changes.map(\.at), (1..<60).map { 125 * ($0 + 1) }, "\(changes.prefix(8))")
    }

    /// A programme in its own file, in realtime: a block added to the file mid-run shows in
    /// `ctl schedule` and goes on air on its frame; a broken file changes nothing and says
    /// where; `ctl skip` puts the next block on air at once.
    func testAProgrammeFileReadAgainMidRunAirsTheNewBlockOnTimeAndABrokenOneChangesNothing() throws {
        let dir = try makeTempDir()
        // Each longer than it plays: the filler up to the block added 8 s in, that block up to the skip, the next a second.
        try TestMedia.makeColorVideo(in: dir, name: "filler.mp4", seconds: 20, color: "red", freq: 440)
        try TestMedia.makeColorVideo(in: dir, name: "soon.mp4", seconds: 20, color: "blue", freq: 880)
        try TestMedia.makeColorVideo(in: dir, name: "later.mp4", seconds: 20, color: "green", freq: 660)
        let clock = DateFormatter()
        clock.timeZone = TimeZone(identifier: "UTC")
        clock.dateFormat = "HH:mm:ss"
        func at(_ seconds: TimeInterval) -> String { clock.string(from: Date().addingTimeInterval(seconds)) }
        let later = at(3 * 3600)
        let programme = try writeFile(dir, "programme.yaml", """
            timezone: UTC
            filler: [filler.mp4]
            blocks:
              - { id: later, at: "\(later)", duration: 1h, source: later.mp4 }
            """)
        let out = dir.appendingPathComponent("out.mp4")
        let eventsFile = dir.appendingPathComponent("events.jsonl")
        let socket = dir.appendingPathComponent("c.sock").path
        let preset = try writeFile(dir, "p.yaml", PlayerPreset.video(players: ["  - id: main\n    video: true\n"], output: out,
                                                                      extra: "schedule: { file: programme.yaml }"))
        let mp = try startMediaPub(["--preset", preset.path, "--realtime", "--events", eventsFile.path, "--control", socket])
        func ctl(_ words: String...) -> [String: Any] {
            let r = try? CLI.run(["ctl", "--socket", socket] + words, timeout: 20)
            return ((try? JSONSerialization.jsonObject(with: Data((r?.stdout ?? "").utf8))) as? [String: Any]) ?? [:]
        }
        func schedule() -> [String: Any] { ctl("schedule")["schedule"] as? [String: Any] ?? [:] }
        func next() -> [String] { (schedule()["next"] as? [[String: Any]] ?? []).compactMap { $0["block"] as? String } }
        XCTAssertTrue(EventLog.waitFor(eventsFile, of: mp) { $0["event"] as? String == "run.state" && $0["state"] as? String == "running" },
                      mp.stderr)
        XCTAssertEqual(next().first, "later")
        XCTAssertTrue(schedule()["block"] is NSNull, "filler on air: \(schedule())")

        // The file changes: a block 8 s from now is listed, then on air on its frame.
        let soonAt = Date().addingTimeInterval(8)
        let soon = clock.string(from: soonAt)
        let day = DateFormatter()
        day.timeZone = TimeZone(identifier: "UTC")
        day.dateFormat = "yyyy-MM-dd HH:mm:ss"
        try """
            timezone: UTC
            filler: [filler.mp4]
            blocks:
              - { id: later, at: "\(later)", duration: 1h, source: later.mp4 }
              - { id: soon, at: "\(soon)", source: soon.mp4 }
            """.write(to: programme, atomically: true, encoding: .utf8)
        XCTAssertTrue(Ports.waitUntil(timeout: 10) { next().first == "soon" }, "\(schedule())")
        func started(_ id: String) -> [String: Any]? {
            ((try? events(eventsFile, "schedule.block")) ?? []).first { $0["block"] as? String == id && $0["state"] as? String == "started" }
        }
        XCTAssertTrue(EventLog.waitFor(eventsFile, of: mp, timeout: 30) { _ in started("soon") != nil }, mp.stderr)
        XCTAssertEqual(started("soon")?["late_ms"] as? Int, 0, "on its frame")
        XCTAssertEqual(started("soon")?["scheduled_at"] as? String, "\(day.string(from: soonAt)) +00:00")
        XCTAssertEqual(schedule()["block"] as? String, "soon")

        // A broken file: refused with its line, an error event; the programme on air stays.
        try """
            timezone: UTC
            blocks:
              - { id: soon, at: "25:00", source: soon.mp4 }
            """.write(to: programme, atomically: true, encoding: .utf8)
        let refused = ctl("schedule", "reload")
        XCTAssertEqual(refused["ok"] as? Bool, false)
        XCTAssertTrue((refused["error"] as? String ?? "").contains("programme.yaml:3: blocks[0].at"), "\(refused)")
        XCTAssertTrue(EventLog.waitFor(eventsFile, of: mp) {
            $0["event"] as? String == "error" && ($0["message"] as? String ?? "").contains("programme.yaml:3")
        }, mp.stderr)
        XCTAssertEqual(schedule()["block"] as? String, "soon")
        XCTAssertEqual(next().first, "later")

        // skip: the next block now.
        XCTAssertEqual(ctl("skip")["ok"] as? Bool, true)
        XCTAssertTrue(EventLog.waitFor(eventsFile, of: mp) { _ in started("later") != nil }, mp.stderr)
        XCTAssertEqual(schedule()["block"] as? String, "later")
        // A second of it on the recording before the run stops.
        func outputMs() -> Int { (ctl("status")["status"] as? [String: Any])?["output_time_ms"] as? Int ?? 0 }
        let skippedAt = outputMs()
        XCTAssertTrue(Ports.waitUntil(timeout: 20) { outputMs() > skippedAt + 1000 })
        mp.terminate()
        XCTAssertTrue(mp.waitForExit(timeout: 30))
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr)
        // On the recording: filler, the block added mid-run, then the one skipped to.
        XCTAssertEqual(runs(try MediaProbe.frameStats(out.path)).map(\.colour).filter { $0 != .other }, [.red, .blue, .green])
    }
}

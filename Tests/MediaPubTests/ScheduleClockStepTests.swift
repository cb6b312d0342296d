import Foundation
import XCTest

/// The wall clock stepped under a realtime run with a programme (docs/presets.md, On air: wall
/// clock): the programme follows the clock as it now is, at once, not at the next switch. The
/// step is made by `ClockShift`'s shim, preloaded into mediapub alone. Checked on the recording
/// with ffmpeg: each item has its own colour and tone.
final class ScheduleClockStepTests: XCTestCase {
    /// Two steps between switches, each set from the instant it is made (so the test does not
    /// depend on how long mediapub takes to start): the run starts with its clock 1000 s ahead
    /// (both blocks long past: the filler); back to 28 s before block a (it must not air before
    /// its time), then forward to 6 s before block b, 16 s after a (a's time is then behind,
    /// past its end: it never airs; b airs 6 s later, for its own 3 s, on its frame). The run
    /// is stopped once b has ended. Before, the programme kept its old plan: a would have aired
    /// at its time as the clock was before the step, and b not before its own.
    func testTheProgrammeFollowsAWallClockSteppedBackThenForward() throws {
        let dir = try makeTempDir()
        let ahead = 1000.0
        let clock = try ClockShift(in: dir, seconds: ahead)
        func step(to seconds: Double) throws { try clock.step(to: seconds) }

        try TestMedia.makeColorVideo(in: dir, name: "filler.mp4", seconds: 20, color: "red", freq: 440, size: "64x36")
        try TestMedia.makeColorVideo(in: dir, name: "a.mp4", seconds: 10, color: "green", freq: 660, size: "64x36")
        try TestMedia.makeColorVideo(in: dir, name: "b.mp4", seconds: 10, color: "blue", freq: 880, size: "64x36")
        let day = DateFormatter()
        day.timeZone = TimeZone(identifier: "UTC")
        day.dateFormat = "yyyy-MM-dd HH:mm:ss"
        let t0 = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.up))
        let (aAt, bAt) = (t0.addingTimeInterval(60), t0.addingTimeInterval(76))
        let a = day.string(from: aAt), b = day.string(from: bAt)
        let out = dir.appendingPathComponent("out.mp4")
        let eventsFile = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "p.yaml", PlayerPreset.tinyProgramme(output: out, blocks: [
            "{ id: a, at: \"\(a)\", duration: 3s, source: a.mp4 }", "{ id: b, at: \"\(b)\", duration: 3s, source: b.mp4 }",
        ]))
        let mp = try startMediaPub(["--preset", preset.path, "--realtime", "--duration", "60s", "--events", eventsFile.path],
                                   env: clock.env)
        defer { mp.kill9() }
        XCTAssertTrue(EventLog.waitFor(eventsFile, of: mp) { $0["event"] as? String == "run.state" && $0["state"] as? String == "running" },
                      mp.stderr)
        // The shift that puts mediapub's clock `before` seconds before `instant` now.
        func shift(toBefore instant: Date, by before: Double) -> Double { instant.timeIntervalSinceNow - before }
        let back = shift(toBefore: aAt, by: 28)
        try step(to: back)
        XCTAssertLessThan(back - ahead, 0, "a step back")
        XCTAssertTrue(EventLog.waitFor(eventsFile, of: mp, ClockShift.moved(by: back - ahead)), "the step back is seen: \(mp.stderr)")
        let forward = shift(toBefore: bAt, by: 6)
        try step(to: forward)
        XCTAssertGreaterThan(forward - back, 16 + 3, "a step forward past a's end")
        XCTAssertTrue(EventLog.waitFor(eventsFile, of: mp, ClockShift.moved(by: forward - back)), "the step forward is seen: \(mp.stderr)")
        XCTAssertTrue(EventLog.waitFor(eventsFile, of: mp) { $0["event"] as? String == "schedule.block" && $0["state"] as? String == "ended" },
                      "b airs and ends: \(mp.stderr)")
        mp.terminate()
        XCTAssertTrue(mp.waitForExit(timeout: 30), "the run stops on SIGTERM")
        XCTAssertEqual(mp.process.terminationStatus, 0, mp.stderr)

        let blocks = try EventLog.read(eventsFile).filter { $0["event"] as? String == "schedule.block" }.map {
            "\($0["block"] as? String ?? "?") \($0["state"] as? String ?? "?") \($0["scheduled_at"] as? String ?? "?") \($0["late_ms"] as? Int ?? -1)"
        }
        XCTAssertEqual(blocks, ["b started \(b) +00:00 0", "b ended \(b) +00:00 0"], "a's time was stepped over; b on its frame")
        let recorded = try MediaProbe.frameStats(out.path).count
        let frames = try assertUnbrokenTimeline(out.path, seconds: Double(recorded) / 25)
        let colours = frames.map { f -> String in f.uavg > 200 ? "blue" : f.uavg < 100 && f.vavg < 100 ? "green" : f.vavg > 200 ? "red" : "other" }
        XCTAssertFalse(colours.contains("green"), "block a never airs")
        let blue = colours.indices.filter { colours[$0] == "blue" }
        XCTAssertEqual(blue.count, 75, accuracy: 1, "block b airs its 3 s: \(blue.first ?? -1)...\(blue.last ?? -1)")
        XCTAssertEqual((blue.last ?? 0) - (blue.first ?? 0) + 1, blue.count, "in one piece")
        print("ScheduleClockStepTests: b on air from frame \(blue.first ?? -1) for \(blue.count) frames of \(frames.count)")
    }
}

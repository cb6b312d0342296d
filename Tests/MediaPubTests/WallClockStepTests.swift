import Foundation
import XCTest

/// The wall clock stepped by +1 h, then by −10 min, in the middle of a realtime run with a
/// programme to nginx-rtmp, an SRT listener and a recording (docs/design.md: every duration
/// is timed on the monotonic clock; docs/presets.md, On air: wall clock). Only the programme
/// follows the wall clock: at each step what it has on air by the clock as it now is goes on
/// air at once (a block joined where it is). Nothing timed as a duration moves: no output
/// reconnects (one publish at nginx, one connection at the listener, every stream's frames
/// one after the other), no stall or deadline fires (no warning but the two steps'), and
/// status' uptime and each output's bitrate go on as before. Before, with durations on the
/// wall clock, the +1 h step made the uptime jump by an hour and every output's bitrate read
/// 0 kbit/s (a few seconds' bytes over an hour); the −10 min step froze it there.
final class WallClockStepTests: XCTestCase {
    func testAStepOfTheWallClockMovesOnlyTheProgramme() throws {
        let dir = try makeTempDir()
        let clock = try ClockShift(in: dir)
        try TestMedia.makeColorVideo(in: dir, name: "filler.mp4", seconds: 20, color: "red", freq: 440, size: "64x36")
        try TestMedia.makeColorVideo(in: dir, name: "a.mp4", seconds: 10, color: "green", freq: 660, size: "64x36")
        try TestMedia.makeColorVideo(in: dir, name: "b.mp4", seconds: 10, color: "blue", freq: 880, size: "64x36")
        let flvs = dir.appendingPathComponent("nginx")
        try FileManager.default.createDirectory(at: flvs, withIntermediateDirectories: true)
        let rtmp = try startRTMPServer(recordTo: flvs)
        let srt = try startSRTListener(output: dir.appendingPathComponent("received.ts"))

        // By the clock as it is, neither block is on air. 1 h ahead, a is (joined a minute
        // or so in); 50 min ahead, b is, and a is not: whatever time mediapub takes to start.
        let day = DateFormatter()
        day.timeZone = TimeZone(identifier: "UTC")
        day.dateFormat = "yyyy-MM-dd HH:mm:ss"
        let t0 = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.up))
        let a = day.string(from: t0.addingTimeInterval(3600 - 60)), b = day.string(from: t0.addingTimeInterval(3000 - 60))
        let out = dir.appendingPathComponent("out.mp4")
        let events = dir.appendingPathComponent("events.jsonl")
        let socket = dir.appendingPathComponent("c.sock").path
        let preset = try writeFile(dir, "p.yaml", PlayerPreset.tinyProgramme(output: out, blocks: [
            "{ id: a, at: \"\(a)\", duration: 600s, playlist: {items: [a.mp4], mode: loop} }",
            "{ id: b, at: \"\(b)\", duration: 300s, playlist: {items: [b.mp4], mode: loop} }",
        ]).replacingOccurrences(of: "outputs:\n", with: "outputs:\n  - url: \"\(rtmp.url(key: "k"))\"\n  - url: \"\(srt.callerURL)\"\n")
            + "reconnect: {initial: 500ms, max: 1s, give_up_after: never, stall: 2s}\n")
        let mp = try startMediaPub(["--preset", preset.path, "--realtime", "--events", events.path, "--control", socket], env: clock.env)
        defer { mp.kill9() }
        func all() -> [[String: Any]] { (try? EventLog.read(events)) ?? [] }
        func of(_ name: String) -> [[String: Any]] { all().filter { $0["event"] as? String == name } }
        func started(_ block: String) -> ([String: Any]) -> Bool {
            { $0["event"] as? String == "schedule.block" && $0["block"] as? String == block && $0["state"] as? String == "started" }
        }
        // Status: the run's uptime less its output time (what starting took: it never jumps),
        // and each output's bitrate.
        func status() throws -> (startup: Int, bitrates: [Int]) {
            let r = try CLI.run(["ctl", "--socket", socket, "status"], timeout: 20)
            let s = ((try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8))) as? [String: Any])?["status"] as? [String: Any]
            let outputs = s?["outputs"] as? [[String: Any]] ?? []
            return ((s?["uptime_ms"] as? Int ?? -1) - (s?["output_time_ms"] as? Int ?? 0), outputs.map { $0["bitrate_kbps"] as? Int ?? -1 })
        }
        // `seconds` of output (a player.progress a second).
        func played(seconds: Int) {
            let before = of("player.progress").count
            XCTAssertTrue(Ports.waitUntil(timeout: 30, watching: events) { of("player.progress").count >= before + seconds || !mp.isRunning },
                          mp.stderr)
        }
        func assertOnTime(_ when: String) throws {
            let (startup, bitrates) = try status()
            XCTAssertTrue((0..<60_000).contains(startup), "\(when): uptime less output time \(startup) ms")
            XCTAssertEqual(bitrates.count, 3, when)
            XCTAssertTrue(bitrates.allSatisfy { $0 > 50 }, "\(when): bitrates \(bitrates) kbit/s")
        }

        let publishing = { (e: [String: Any]) in e["event"] as? String == "output.state" && e["state"] as? String == "publishing" }
        XCTAssertTrue(Ports.waitUntil(timeout: 30, watching: events) { all().filter(publishing).count >= 3 || !mp.isRunning }, mp.stderr)
        // Each output's bitrate is measured over 2 s: the first measure is waited for.
        XCTAssertTrue(Ports.waitUntil(timeout: 30, watching: events) { (try? status().bitrates.allSatisfy { $0 > 0 }) ?? false }, mp.stderr)
        try assertOnTime("before the steps")

        try clock.step(to: 3600)
        XCTAssertTrue(EventLog.waitFor(events, of: mp, ClockShift.moved(by: 3600)), "the step forward is seen: \(mp.stderr)")
        XCTAssertTrue(EventLog.waitFor(events, of: mp, started("a")), "a goes on air at once: \(mp.stderr)")
        played(seconds: 3)   // on air a while, the outputs' watches reading their links
        try assertOnTime("after +1 h")

        try clock.step(to: 3000)
        XCTAssertTrue(EventLog.waitFor(events, of: mp, ClockShift.moved(by: -600)), "the step back is seen: \(mp.stderr)")
        XCTAssertTrue(EventLog.waitFor(events, of: mp, started("b")), "b goes on air at once: \(mp.stderr)")
        played(seconds: 3)
        try assertOnTime("after −10 min")
        mp.terminate()
        XCTAssertTrue(mp.waitForExit(timeout: 30), "the run stops on SIGTERM")
        XCTAssertEqual(mp.process.terminationStatus, 0, mp.stderr)

        // No output reconnected; no watchdog or deadline said anything.
        for id in ["0", "1", "2"] {
            let states = of("output.state").filter { $0["output"] as? String == id }.compactMap { $0["state"] as? String }
            XCTAssertEqual(states.filter { $0 != "connecting" }, ["publishing", "stopped"], "output \(id)")
        }
        let said = (of("warning") + of("error")).compactMap { $0["message"] as? String }
        XCTAssertEqual(said.count, 2, "only the two steps: \(said)")
        XCTAssertTrue(said.allSatisfy { $0.contains("wall clock moved by") }, "\(said)")
        let blocks = of("schedule.block").map { "\($0["block"] as? String ?? "?") \($0["state"] as? String ?? "?")" }
        XCTAssertEqual(blocks.filter { $0.hasSuffix("started") }, ["a started", "b started"], "\(blocks)")
        XCTAssertTrue(blocks.contains("a ended"), "\(blocks)")
        let joined = of("schedule.block").filter { $0["state"] as? String == "started" }.map { $0["joined_at_ms"] as? Int ?? 0 }
        XCTAssertTrue(joined.allSatisfy { $0 >= 60_000 }, "each joined where it is by the clock: \(joined) ms in")

        // Each stream whole and in one piece: the programme's colours in order, every frame one after the last.
        let recorded = try MediaProbe.frameStats(out.path)
        let frames = try assertUnbrokenTimeline(out.path, seconds: Double(recorded.count) / 25)
        XCTAssertEqual(colours(frames), ["red", "green", "blue"], "filler, then a, then b")
        XCTAssertEqual(rtmp.recordings(in: flvs).count, 1, "one publish at nginx: \(rtmp.errorLog)")
        XCTAssertEqual(srt.log.components(separatedBy: "Accepted SRT source connection").count - 1, 1, "one SRT connection: \(srt.log)")
        srt.stop()
        for (name, path) in [("nginx", rtmp.recordings(in: flvs).first?.path ?? ""), ("srt", srt.output.path)] {
            let got = try MediaProbe.frameStats(path)
            let gaps = zip(got.dropFirst(), got).map { $0.pts - $1.pts }.filter { abs($0 - 0.04) > 0.002 }
            XCTAssertEqual(gaps, [], "\(name): every frame 1/25 s after the last")
            XCTAssertEqual(Double(got.count), Double(frames.count), accuracy: 25, "\(name): as many frames as the recording, within 1 s")
            XCTAssertEqual(colours(got), ["red", "green", "blue"], name)
        }
        print("WallClockStepTests: \(frames.count) frames recorded; a from frame \(frames.firstIndex { colour($0) == "green" } ?? -1), "
              + "b from \(frames.firstIndex { colour($0) == "blue" } ?? -1); blocks \(blocks)")
    }

    private func colour(_ f: FrameStat) -> String {
        f.uavg > 200 ? "blue" : f.uavg < 100 && f.vavg < 100 ? "green" : f.vavg > 200 ? "red" : "other"
    }

    /// The colours of the runs of frames, in order (a run of one frame, a frame between two, ignored).
    private func colours(_ frames: [FrameStat]) -> [String] {
        var runs: [(String, Int)] = []
        for f in frames.map(colour) {
            if runs.last?.0 == f { runs[runs.count - 1].1 += 1 } else { runs.append((f, 1)) }
        }
        return runs.filter { $0.1 > 1 }.map(\.0).reduce(into: []) { if $0.last != $1 { $0.append($1) } }
    }
}

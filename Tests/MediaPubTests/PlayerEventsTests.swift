// Players (docs/events.md): state changes are events. A short file played
// to its end gives loading → playing → ended in the --events file, then the
// run stops with exit code 0.

import Foundation
import XCTest

final class PlayerEventsTests: XCTestCase {

    func testShortFileGivesLoadingPlayingEndedEvents() throws {
        let dir = try makeTempDir()
        try TestMedia.makeAudio(in: dir, name: "short.wav", seconds: 1, freq: 440, ext: "wav")
        let out = dir.appendingPathComponent("out.mp4")
        let events = dir.appendingPathComponent("events.jsonl")
        let yaml = PlayerPreset.audioOnly(players: [PlayerPreset.player("main", source: "short.wav")], output: out)
        let r = try runPreset(yaml, in: dir, args: ["--no-realtime", "--events", events.path])
        XCTAssertEqual(r.status, 0, r.summary("mediapub --events"))
        let all = try EventLog.read(events)
        XCTAssertTrue(all.allSatisfy { $0["ts"] is String && $0["event"] is String }, "every event has ts and event")
        let states = all.filter { $0["event"] as? String == "player.state" && $0["player"] as? String == "main" }
            .compactMap { $0["state"] as? String }
        // The first three state changes, in order; the player may be stopped at teardown afterwards.
        XCTAssertEqual(Array(states.prefix(3)), ["loading", "playing", "ended"], "player.state sequence: \(states)")
        XCTAssertFalse(states.contains("error"), "\(states)")
        let track = all.first { $0["event"] as? String == "player.track" }
        XCTAssertNotNil(track, "a player.track event")
        XCTAssertEqual((track?["duration_ms"] as? NSNumber)?.doubleValue ?? 0, 1000, accuracy: 50, "track duration")
        let stopped = all.last { $0["event"] as? String == "run.stopped" }
        XCTAssertEqual((stopped?["exit_code"] as? NSNumber)?.intValue, 0, "run.stopped with exit 0: \(String(describing: stopped))")
        // ended comes before the run stops.
        let endedIndex = all.firstIndex { $0["event"] as? String == "player.state" && $0["state"] as? String == "ended" }
        let stoppedIndex = all.firstIndex { $0["event"] as? String == "run.stopped" }
        if let e = endedIndex, let s = stoppedIndex { XCTAssertLessThan(e, s, "ended before run.stopped") }
        else { XCTFail("missing ended or run.stopped: \(all)") }
    }
}

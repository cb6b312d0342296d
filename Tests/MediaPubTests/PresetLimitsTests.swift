// Every number a preset, `--set` or code gives is checked before a
// run uses it; a preset file is read with a size cap; messages stay short.

import Foundation
import XCTest
@testable import MediaPub
@testable import MediaPubTestSupport

final class PresetLimitsTests: XCTestCase {
    private typealias K = PresetTestKit

    func testDurationKeysBeyondTenYearsAreProblemsNamingKeyAndBound() {
        let yaml = """
        players:
          - id: main
            source: a.mp3
            start_at: 99999999999999h
            progress_interval: 99999999999h
        video:
          keyframe_interval: 99999999999999h
        reconnect:
          initial: 99999999999999h
          max: 99999999999999h
          give_up_after: 99999999999999h
        stop:
          after: 999999999999999999h

        """
        let problems = K.problems(yaml)
        let expected = ["players[0].start_at", "players[0].progress_interval", "video.keyframe_interval",
                        "reconnect.initial", "reconnect.max", "reconnect.give_up_after", "stop.after"]
        for key in expected {
            let p = problems.first { $0.key == key }
            XCTAssertNotNil(p, "\(key) in \(problems.map(\.description))")
            XCTAssertTrue(p?.message.hasSuffix("is too long (at most 87600h (10 years))") == true, "\(String(describing: p))")
        }
        // The bound itself is allowed where the key has no smaller range.
        let ok = try? K.load("players:\n  - source: a.mp3\n    start_at: 87600h\nstop:\n  after: 87600h\n")
        XCTAssertEqual(ok?.players.first?.startAt, 87_600 * 3600)
        XCTAssertEqual(ok?.stop.after, 87_600 * 3600)
    }

    func testSetOverridesGetTheSameBound() {
        let problems = K.problems("players:\n  - id: main\n    source: a.mp3\n",
                                  overrides: ["players.main.start_at=6000000h", "stop.after=9999999999999999h"])
        XCTAssertEqual(problems.map(\.description), [
            "--set:0: players[0].start_at: 6000000h is too long (at most 87600h (10 years))",
            "--set:0: stop.after: 9999999999999999h is too long (at most 87600h (10 years))",
        ])
    }

    /// A huge value is echoed cut to 80 characters, on one line; any message or key is capped.
    func testHugeValuesAreCutInMessages() {
        let name = String(repeating: "x", count: 200_000) + "!"
        let problems = K.problems("name: \"\(name)\"\nplayers: [{source: a}]\n")
        XCTAssertEqual(problems.map(\.description),
                       ["presets/t.yaml:1: name: \"" + String(repeating: "x", count: 79) + "…\" is not a valid name (letters, digits, '.', '_', '-')"])
        let multiline = K.problems("players:\n  - source: a\n    speed: \"1\\n2\"\n")
        XCTAssertEqual(multiline.first?.message, "\"1\\n2\" is not a number", "one line: \(multiline)")
        let key = String(repeating: "k", count: 100_000)
        let unknown = K.problems("\(key): 1\nplayers: [{source: a}]\n")
        XCTAssertEqual(unknown.count, 1)
        XCTAssertLessThanOrEqual(unknown.first?.key.count ?? .max, 120)
        XCTAssertLessThanOrEqual(unknown.first?.description.count ?? .max, 500)
        XCTAssertEqual(PresetProblem(file: "f", line: 1, key: "k", message: String(repeating: "m", count: 1000)).message.count, 300)
    }

    /// At most 1 MiB is read: /dev/zero, a FIFO or a big file is refused at
    /// once instead of filling memory.
    func testPresetFileIsReadWithASizeCap() throws {
        XCTAssertThrowsError(try PresetLoader.load(file: "/dev/zero", environment: [:])) { error in
            XCTAssertEqual((error as? PresetError)?.problems, [PresetProblem(
                file: "/dev/zero", line: 0, key: "preset",
                message: "larger than 1048576 bytes (1 MiB), the most a preset may be; is it the right file?")])
        }
        let dir = try K.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Exactly at the cap is read (and then judged as YAML); one byte more is refused.
        let atCap = "players: [{source: a.mp3}]\n#" + String(repeating: "x", count: PresetLoader.maxPresetBytes - 29) + "\n"
        XCTAssertEqual(atCap.utf8.count, PresetLoader.maxPresetBytes)
        K.touch(dir + "/cap.yaml", atCap)
        XCTAssertNoThrow(try PresetLoader.load(file: dir + "/cap.yaml", environment: [:]))
        K.touch(dir + "/over.yaml", atCap + "\n")
        XCTAssertThrowsError(try PresetLoader.load(file: dir + "/over.yaml", environment: [:])) { error in
            XCTAssertEqual((error as? PresetError)?.problems.first?.message.hasPrefix("larger than 1048576 bytes"), true, "\(error)")
        }
        // A FIFO whose writer never stops (it gets EPIPE once the reader is done).
        signal(SIGPIPE, SIG_IGN)
        let fifo = dir + "/fifo.yaml"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let writer = Thread {
            let fd = open(fifo, O_WRONLY)
            guard fd >= 0 else { return }
            let block = [UInt8](repeating: UInt8(ascii: "#"), count: 65536)
            while block.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
            close(fd)
        }
        writer.start()
        XCTAssertThrowsError(try PresetLoader.load(file: fifo, environment: [:])) { error in
            XCTAssertEqual((error as? PresetError)?.problems.first?.message.hasPrefix("larger than 1048576 bytes"), true, "\(error)")
        }
    }

    /// A Preset or RunOptions made in code (not by PresetLoader) is checked by
    /// Broadcast.init: an out-of-range number is a usage error naming it.
    func testBroadcastRefusesOutOfRangeNumbersMadeInCode() throws {
        func refused(_ preset: Preset, _ options: RunOptions = RunOptions(), _ key: String, line: UInt = #line) {
            XCTAssertThrowsError(try Broadcast(preset: preset, options: options, log: Logger(level: .error)), line: line) { error in
                XCTAssertTrue("\(error)".hasPrefix(key + " "), "\(error)", line: line)
            }
        }
        let player = PlayerConfig(id: "main", source: "testsrc:")
        let base = Preset(name: "x", players: [player], outputs: [OutputConfig(url: try OutputURL("null://"))])
        XCTAssertNoThrow(try Broadcast(preset: base, log: Logger(level: .error)))
        var options = RunOptions()
        for bad in [1e30, .infinity, .nan, -1, 0] {
            options.duration = bad
            refused(base, options, "--duration")
        }
        var p = base
        p.stop.after = 99_999_999_999_999 * 3600
        refused(p, RunOptions(), "stop.after")
        for (change, key) in [({ (c: inout PlayerConfig) in c.startAt = .nan }, "players[0].start_at"),
                              ({ c in c.startAt = 1e300 }, "players[0].start_at"),
                              ({ c in c.progressInterval = 1e19 }, "players[0].progress_interval"),
                              ({ c in c.speed = .nan }, "players[0].speed"),
                              ({ c in c.pitch = -.infinity }, "players[0].pitch"),
                              ({ c in c.publishVolume = Int.max }, "players[0].publish_volume")] as [((inout PlayerConfig) -> Void, String)] {
            var q = base
            change(&q.players[0])
            refused(q, RunOptions(), key)
        }
        var v = base
        v.video?.fps = 0
        refused(v, RunOptions(), "video.fps")
        var r = base
        r.reconnect.max = .infinity
        refused(r, RunOptions(), "reconnect.max")
        var a = base
        a.audio.sampleRate = 1
        refused(a, RunOptions(), "audio.sample_rate")
    }
}

/// Events whose destination fails: one failure report per destination, then
/// silence for it; the other destinations and listeners go on.
final class EventsWriteFailureTests: XCTestCase {
    func testAFullDestinationIsDroppedWithOneWarning() throws {
        let dir = try PresetTestKit.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let events = Events()
        let failures = Collector<String>()
        let heard = Collector<String>()
        events.onNotice = { _, text in failures.add(text) }
        events.addListener { heard.add(String(decoding: $0, as: UTF8.self)) }
        try events.addDestination(path: "/dev/full")
        try events.addDestination(path: dir + "/ok.jsonl")
        events.emit(.publishing(true))
        events.emit(.publishing(false))
        // Each destination is written by a thread of its own: the failure comes when /dev/full is tried.
        XCTAssertTrue(Ports.waitUntil(timeout: 10) { !failures.all.isEmpty })
        events.flush(until: MonotonicInstant.now.addingTimeInterval(10))
        XCTAssertEqual(failures.all, ["events to /dev/full: No space left on device; no more events are written there"])
        let lines = try String(contentsOfFile: dir + "/ok.jsonl", encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 3, "one, two and the warning: \(lines)")
        XCTAssertEqual(lines.filter { $0.contains("\"event\":\"warning\"") && $0.contains("/dev/full") }.count, 1, "\(lines)")
        XCTAssertEqual(heard.all.count, 3, "listeners get every event: \(heard.all)")
    }
}

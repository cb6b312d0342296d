// Leaks (issue 7, SPEC §8 "Over any run length, open file descriptors, threads
// and memory stay flat"): what a playlist item allocates is freed when it ends
// (its pipeline, bus and the bus's GstPoll socket pair, its threads), and the
// memory a player uses follows the output's size, not the source's.

import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

final class ResourceLeakTests: XCTestCase {

    /// 200 items of 0.2 s, as fast as possible, with a testsrc player keeping the run
    /// alive after the playlist ends. fds and threads of the running process are read
    /// at each `player.track` event: the lowest count among items 10–29 and among items
    /// 180–199 must agree within 5 (the lowest, because an item change has the current,
    /// the next (prerolling) and the previous (closing) pipelines open for a moment).
    /// Before the fix each item left ~2 fds behind (51 → 396 over these items).
    func testTwoHundredItemsLeaveNoFileDescriptorsOrThreadsBehind() throws {
        let dir = try makeTempDir()
        try TestMedia.makeVideo(in: dir, name: "item.mp4", seconds: 0.2, size: "320x180")
        let out = dir.appendingPathComponent("out.mp4")
        let events = dir.appendingPathComponent("events.jsonl")
        let count = 200
        let items = Array(repeating: "item.mp4", count: count).joined(separator: ", ")
        let main = "  - id: main\n    video: true\n    playlist:\n      mode: once\n      items: [\(items)]\n"
        let bed = PlayerPreset.player("bed", source: "testsrc:?freq=300", ["publish_volume: 10"])
        let preset = try writeFile(dir, "preset.yaml", PlayerPreset.video(players: [main, bed], output: out))
        let mp = try startMediaPub(["--preset", preset.path, "--no-realtime", "--events", events.path])

        var early: [(fds: Int, threads: Int)] = []
        var late: [(fds: Int, threads: Int)] = []
        var ended = false
        var indices = Set<Int>()
        var tail = EventTail(events)
        while !ended, mp.isRunning {
            let batch = tail.next()
            if batch.isEmpty { usleep(2_000); continue }  // waiting for the next event line
            for event in batch where event["player"] as? String == "main" {
                if event["event"] as? String == "player.state", event["state"] as? String == "ended" { ended = true }
                guard event["event"] as? String == "player.track", let index = (event["index"] as? NSNumber)?.intValue,
                      let counts = Self.openCounts(pid: mp.pid) else { continue }
                indices.insert(index)
                if (10..<30).contains(index) { early.append(counts) }
                if (count - 20..<count).contains(index) { late.append(counts) }
            }
        }
        XCTAssertTrue(ended, "the playlist player ended while the run went on: \(mp.stderr.suffix(2000))")
        mp.terminate(SIGTERM)
        XCTAssertTrue(mp.waitForExit(timeout: 30), "mediapub stops on SIGTERM")
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr.suffix(2000).description)

        let earlyFds = try XCTUnwrap(early.map(\.fds).min(), "counts read during items 10–29")
        let lateFds = try XCTUnwrap(late.map(\.fds).min(), "counts read during items 180–199")
        XCTAssertEqual(lateFds, earlyFds, accuracy: 5,
                       "open fds at items 180–199 (\(late.map(\.fds))) as at items 10–29 (\(early.map(\.fds)))")
        let earlyThreads = try XCTUnwrap(early.map(\.threads).min())
        let lateThreads = try XCTUnwrap(late.map(\.threads).min())
        XCTAssertEqual(lateThreads, earlyThreads, accuracy: 5,
                       "threads at items 180–199 (\(late.map(\.threads))) as at items 10–29 (\(early.map(\.threads)))")

        // Every item played, and the recording holds them: 200 items of 0.186–0.2 s each
        // (an item's audio is 8 whole AAC frames).
        XCTAssertEqual(indices, Set(0..<count), "a player.track event for every item")
        let probe = try MediaProbe.probe(out.path)
        XCTAssertGreaterThanOrEqual(probe.duration ?? 0, Double(count) * 0.18, "recording duration: \(probe.rawJSON)")
        XCTAssertEqual(probe.video?.width, 320)
    }

    /// An RTMP output whose server is not there reconnects every ~1 s; each attempt
    /// builds a muxing pipeline and a bus. fds and threads read at the 3rd and 4th
    /// `output.state reconnecting` event and at the 11th and 12th agree within 5
    /// (before the fix each attempt left its bus's socket pair behind: +2 fds each).
    func testOutputReconnectsLeaveNoFileDescriptorsBehind() throws {
        let dir = try makeTempDir()
        let port = try Ports.free()  // nothing listens there
        let events = dir.appendingPathComponent("events.jsonl")
        let yaml = E2EPreset.basic(source: E2EPreset.testsrc, outputs: ["rtmp://127.0.0.1:\(port)/live/key"],
                                   extra: "reconnect: { initial: 100ms, max: 100ms, give_up_after: never }")
        let preset = try writeFile(dir, "preset.yaml", yaml)
        let mp = try startMediaPub(["--preset", preset.path, "--events", events.path])
        var early: [(fds: Int, threads: Int)] = []
        var late: [(fds: Int, threads: Int)] = []
        var attempts = 0
        var tail = EventTail(events)
        while attempts < 12, mp.isRunning {
            let batch = tail.next()
            if batch.isEmpty { usleep(2_000); continue }  // waiting for the next event line
            for event in batch where event["event"] as? String == "output.state" && event["state"] as? String == "reconnecting" {
                attempts += 1
                guard let counts = Self.openCounts(pid: mp.pid) else { continue }
                if attempts == 3 || attempts == 4 { early.append(counts) }
                if attempts == 11 || attempts == 12 { late.append(counts) }
            }
        }
        XCTAssertEqual(attempts, 12, "12 reconnect attempts while running: \(mp.stderr.suffix(2000))")
        mp.terminate(SIGTERM)
        XCTAssertTrue(mp.waitForExit(timeout: 30), "mediapub stops on SIGTERM")
        let earlyFds = try XCTUnwrap(early.map(\.fds).min(), "counts at attempts 3-4")
        let lateFds = try XCTUnwrap(late.map(\.fds).min(), "counts at attempts 11-12")
        XCTAssertEqual(lateFds, earlyFds, accuracy: 5, "open fds after 12 attempts (\(late)) as after 3 (\(early))")
        let earlyThreads = try XCTUnwrap(early.map(\.threads).min())
        let lateThreads = try XCTUnwrap(late.map(\.threads).min())
        XCTAssertEqual(lateThreads, earlyThreads, accuracy: 5, "threads after 12 attempts (\(late)) as after 3 (\(early))")
    }

    /// Open file descriptors and threads of a running process, nil once it is gone.
    private static func openCounts(pid: Int32) -> (fds: Int, threads: Int)? {
        let fm = FileManager.default
        guard let fds = try? fm.contentsOfDirectory(atPath: "/proc/\(pid)/fd"),
              let tasks = try? fm.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return nil }
        return (fds.count, tasks.count)
    }
}

/// The JSON-lines events file of a running mediapub, read as it grows: `next()` gives
/// the complete lines written since the last call.
struct EventTail {
    private let url: URL
    private var offset: UInt64 = 0
    private var partial = Data()

    init(_ url: URL) { self.url = url }

    mutating func next() -> [[String: Any]] {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return [] }
        defer { try? handle.close() }
        guard (try? handle.seek(toOffset: offset)) != nil, let data = try? handle.readToEnd(), !data.isEmpty else { return [] }
        offset += UInt64(data.count)
        partial.append(data)
        var events: [[String: Any]] = []
        while let newline = partial.firstIndex(of: UInt8(ascii: "\n")) {
            let line = partial[partial.startIndex..<newline]
            partial = Data(partial[partial.index(after: newline)...])
            if let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any] { events.append(object) }
        }
        return events
    }
}

// Leaks (over any run length, open file descriptors, threads
// and memory stay flat): what a playlist item allocates is freed when it ends
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
        let tail = EventTail(events)
        while !ended, mp.isRunning {
            let batch = tail.wait()
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
        let tail = EventTail(events)
        while attempts < 12, mp.isRunning {
            let batch = tail.wait()
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

    /// Two 2 s 3840x2160 items on a 1280x720 output, as fast as possible: the next
    /// item prerolls while the first plays, as in any playlist or `repeat`. Before the
    /// fix each player queued a second of full-size 12 MB frames ahead of its scaler
    /// and decoded with a frame-thread per core (peak ~735 MB); the bound is 300 MiB.
    /// Peak RSS comes from the kernel (wait4's ru_maxrss) once the run has ended.
    func testFourKSourceOnA720pOutputStaysUnder300MB() throws {
        let dir = try makeTempDir()
        try TestMedia.ffmpegRun([
            "-f", "lavfi", "-i", "testsrc2=size=3840x2160:rate=30:duration=2",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=2",
            "-map", "0:v", "-map", "1:a", "-c:v", "libx264", "-preset", "ultrafast", "-b:v", "8M",
            "-pix_fmt", "yuv420p", "-g", "30", "-c:a", "aac", "-ac", "2", "-t", "2",
            dir.appendingPathComponent("uhd.mp4").path,
        ])
        let source = try MediaProbe.probe(dir.appendingPathComponent("uhd.mp4").path)
        XCTAssertEqual(source.video?.width, 3840, "the generated source is 4K")
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = """
            name: uhd
            video:
              size: 1280x720
              fps: 30
              bitrate: 2500k
              keyframe_interval: 1s
              encoder_preset: ultrafast
            audio:
              sample_rate: 44100
              channels: 2
              bitrate: 128k
            players:
              - id: main
                video: true
                playlist: { items: [uhd.mp4, uhd.mp4], mode: once }
            outputs:
              - url: "file://\(out.path)"

            """
        let preset = try writeFile(dir, "preset.yaml", yaml)
        let run = try PeakMemory.run(CLI.binary(), ["--preset", preset.path, "--no-realtime"],
                                     stderr: dir.appendingPathComponent("stderr.log"), timeout: 120)
        XCTAssertEqual(run.status, 0, "mediapub exit status; stderr: \(run.stderr.suffix(2000))")
        XCTAssertLessThan(run.peakKiB, 300 * 1024, "peak RSS of a 4K source on a 720p output: \(run.peakKiB / 1024) MiB")

        let probe = try MediaProbe.probe(out.path)
        XCTAssertEqual(probe.video?.width, 1280)
        XCTAssertEqual(probe.video?.height, 720)
        XCTAssertEqual(probe.duration ?? 0, 4, accuracy: 0.3, "both items recorded: \(probe.rawJSON)")
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
final class EventTail {
    private let url: URL
    private var offset: UInt64 = 0
    private var partial = Data()
    /// inotify: the file's writes once it exists, the folder's new files until then
    /// (not the folder's writes: the recording beside it is written all the time).
    private let changes: Int32
    private var watchesFile = false

    init(_ url: URL) {
        self.url = url
        changes = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        if changes >= 0 {
            _ = inotify_add_watch(changes, url.deletingLastPathComponent().path, UInt32(IN_CREATE | IN_MOVED_TO))
        }
    }

    deinit { if changes >= 0 { close(changes) } }

    /// The events written since the last call; when there are none yet, waits up to
    /// `timeout` seconds for mediapub to write (the watch is made before the read, so
    /// a line written in between wakes it at once).
    func wait(timeout: TimeInterval = 1) -> [[String: Any]] {
        if changes >= 0, !watchesFile {
            watchesFile = inotify_add_watch(changes, url.path, UInt32(IN_MODIFY | IN_CLOSE_WRITE)) >= 0
        }
        let batch = next()
        guard batch.isEmpty, changes >= 0 else { return batch }
        var watch = pollfd(fd: changes, events: Int16(POLLIN), revents: 0)
        if poll(&watch, 1, Int32(timeout * 1000)) > 0 {
            var drain = [UInt8](repeating: 0, count: 4096)
            while read(changes, &drain, drain.count) > 0 {}
        }
        return next()
    }

    func next() -> [[String: Any]] {
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

/// Runs a program to its end with posix_spawn and reaps it with wait4, whose rusage
/// holds the child's own peak resident set (ru_maxrss, KiB): the kernel's figure for
/// that one process, not for every child the test ever ran.
enum PeakMemory {
    struct Result {
        let status: Int32
        let peakKiB: Int
        let stderr: String
    }

    static func run(_ path: String, _ arguments: [String], stderr: URL, timeout: TimeInterval) throws -> Result {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, stderr.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for arg in argv { free(arg) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard rc == 0 else { throw HarnessError("posix_spawn \(path): \(String(cString: strerror(rc)))") }
        // Reaped by a thread blocked in wait4, woken by the child's exit; killed past the bound.
        let reaper = Reaper(pid)
        DispatchQueue.global().async { reaper.reap() }
        if reaper.done.wait(timeout: .now() + timeout) == .timedOut {
            kill(pid, SIGKILL)
            reaper.done.wait()
            throw HarnessError("\(path) did not finish within \(timeout) s")
        }
        if let failure = reaper.failure { throw HarnessError("wait4: \(failure)") }
        let (status, usage) = (reaper.status, reaper.usage)
        let exited = status & 0x7f == 0
        let text = (try? String(contentsOf: stderr, encoding: .utf8)) ?? ""
        return Result(status: exited ? (status >> 8) & 0xff : -(status & 0x7f), peakKiB: Int(usage.ru_maxrss), stderr: text)
    }
}

/// One child's wait4, on the thread that blocks in it; read after `done`.
private final class Reaper: @unchecked Sendable {
    let pid: pid_t
    let done = DispatchSemaphore(value: 0)
    var status: Int32 = 0
    var usage = rusage()
    var failure: String?

    init(_ pid: pid_t) { self.pid = pid }

    func reap() {
        defer { done.signal() }
        while wait4(pid, &status, 0, &usage) < 0 {
            if errno != EINTR { failure = String(cString: strerror(errno)); return }
        }
    }
}

import Foundation
import XCTest
@testable import MediaPub

/// A realtime run held up for real (docs/status.md, timeline): on time it is within 2 frames;
/// held up, `ctl status` and `/metrics` show the lag as it grows; let go, it says
/// `timeline.late` (one warning in the log), catches up by not sleeping and says
/// `timeline.caught_up`, and its recording has every frame, one frame apart, across it.
///
/// What holds the timeline up is an overlay's new picture read on the timeline thread
/// (`ctl overlay set logo image=` naming a FIFO): the timeline waits in open(2) for the FIFO's
/// writer, which the test opens, with the picture, once status says 1.5 s behind.
final class TimelineLateTests: XCTestCase {
    private func ctl(_ socket: String, _ words: [String]) throws -> [String: Any] {
        let r = try CLI.run(["ctl", "--socket", socket] + words, timeout: 30)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.summary("ctl \(words)"))
    }

    private func lagMs(_ socket: String) throws -> Int? {
        ((try ctl(socket, ["status"])["status"] as? [String: Any])?["timeline"] as? [String: Any])?["lag_ms"] as? Int
    }

    /// The FIFO's write end, opened while a reader waits for it; nil if none does.
    private static func writer(_ fifo: String) -> Int32? {
        let fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        return fd >= 0 ? fd : nil
    }

    private static func write(_ data: Data, to fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        _ = data.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// The threads of `pid` waiting in open(2) for a FIFO's writer (the kernel's wait_for_partner).
    private static func waitingForAWriter(_ pid: Int32) -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { t in
            (try? String(contentsOfFile: "/proc/\(pid)/task/\(t)/wchan", encoding: .utf8)) == "wait_for_partner" ? Int32(t) : nil
        }
    }

    /// Gives the picture to each reader of `fifo` in `mp` waiting in open(2) for it, but its
    /// timeline (its main thread, docs/design.md) unless `timeline`, until `done`. A reader
    /// seen waiting again before it ran gets the picture twice in one read (a size read takes
    /// the first's header); the FIFO is never opened while nobody waits, so no read sees an
    /// empty file. (filesrc opens it twice: once to try reading it at random, then to stream it.)
    private static func feed(_ mp: RunningProcess, fifo: String, png: Data, timeline: Bool, until done: () -> Bool) -> Bool {
        Ports.waitUntil(timeout: 30) {
            guard !done(), mp.isRunning else { return true }
            let waiting = waitingForAWriter(mp.pid)
            if !waiting.isEmpty, timeline || !waiting.contains(mp.pid), let fd = writer(fifo) { write(png, to: fd) }
            return false
        } && done()
    }

    func testAHeldUpTimelineSaysLateCatchesUpWithEveryFrameAndSaysCaughtUp() throws {
        signal(SIGPIPE, SIG_IGN)   // a FIFO whose reader gave up
        let dir = try makeTempDir()
        let logo = try TestMedia.makePNG(in: dir, name: "logo.png", color: "0xFF0000", size: "40x20")
        let png = try Data(contentsOf: logo)
        let fifo = dir.appendingPathComponent("slow.png").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0, "mkfifo")
        let out = dir.appendingPathComponent("rec.mkv")
        let events = dir.appendingPathComponent("events.jsonl")
        let socket = dir.appendingPathComponent("c.sock").path
        let port = try Ports.free()
        // 10 fps: 2 frames are 200 ms.
        let preset = try writeFile(dir, "lag.yaml", """
            name: lag\(UInt32.random(in: 0...UInt32.max))
            video: {size: 320x180, fps: 10, bitrate: 300k, keyframe_interval: 1s, encoder_preset: ultrafast}
            audio: {sample_rate: 44100, channels: 2, bitrate: 96k}
            players:
              - {id: main, source: "\(E2EPreset.testsrc)", video: true}
            outputs:
              - url: "\(out.path)"
            overlays:
              - {id: logo, image: "\(logo.path)", position: top-right, margin: 0}

            """)
        let mp = try startMediaPub(["--preset", preset.path, "--realtime", "--duration", "60s", "--control", socket,
                                    "--events", events.path, "--metrics", "127.0.0.1:\(port)"])
        XCTAssertTrue(EventLog.waitFor(events, of: mp, EventLog.outputState("publishing")), "the recording publishes: \(mp.stderr)")
        let onTime = try XCTUnwrap(try lagMs(socket), "status.timeline.lag_ms")
        XCTAssertLessThan(onTime, 200, "on time: within 2 frames")

        // The command reads the picture's size (given whole); then the timeline opens the FIFO to decode it.
        let command = Thread { _ = try? CLI.run(["ctl", "--socket", socket, "overlay", "set", "logo", "image=\(fifo)"], timeout: 30) }
        command.start()
        XCTAssertTrue(Self.feed(mp, fifo: fifo, png: png, timeline: false) { Self.waitingForAWriter(mp.pid).contains(mp.pid) },
                      "the timeline opens the FIFO: \(mp.stderr)")
        var lag = 0
        XCTAssertTrue(Ports.waitUntil(timeout: 30) { lag = (try? lagMs(socket)) ?? 0; return lag >= 1500 || !mp.isRunning },
                      "held up, status shows the lag growing: \(lag) ms \(mp.stderr)")
        let metrics = try Proc.run(try Tools.path("curl"), ["-s", "http://127.0.0.1:\(port)/metrics"], timeout: 15).stdout
        let gauge = metrics.split(separator: "\n").first { $0.hasPrefix("mediapub_timeline_lag_seconds ") }
        XCTAssertGreaterThanOrEqual(gauge.flatMap { Double($0.split(separator: " ")[1]) } ?? 0, 1.5, "/metrics too: \(gauge ?? "none")")
        func event(_ name: String) -> [String: Any]? {
            ((try? EventLog.read(events)) ?? []).first { $0["event"] as? String == name }
        }
        // Let go: the timeline has its picture.
        XCTAssertTrue(Self.feed(mp, fifo: fifo, png: png, timeline: true) { event("timeline.caught_up") != nil },
                      "caught up: \(mp.stderr)")
        let late = try XCTUnwrap(event("timeline.late"), "late before it caught up")
        let caughtUp = try XCTUnwrap(event("timeline.caught_up"))
        let lateLag = try XCTUnwrap(late["lag_ms"] as? Int)
        // Said on the first tick after the one held up (due a frame later): behind by what status saw, less that frame at most.
        XCTAssertGreaterThanOrEqual(lateLag, lag - 100, "at least as far behind as status saw it held, less a frame")
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(caughtUp["worst_lag_ms"] as? Int), lateLag)
        XCTAssertGreaterThan(try XCTUnwrap(caughtUp["late_for_ms"] as? Int), 1000, "late: behind more than 2 frames for over a second")
        XCTAssertGreaterThan(try XCTUnwrap(caughtUp["output_ms"] as? Int), try XCTUnwrap(late["output_ms"] as? Int))
        let after = try XCTUnwrap(try lagMs(socket))
        XCTAssertLessThan(after, 200, "caught up: within 2 frames again")

        XCTAssertEqual(try ctl(socket, ["quit"])["ok"] as? Bool, true)
        XCTAssertTrue(mp.waitForExit(timeout: 60), mp.stderr)
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr)
        let log = try EventLog.read(events)
        XCTAssertEqual(log.filter { ($0["event"] as? String)?.hasPrefix("timeline.") == true }.count, 2, "one spell, said once")
        let warnings = mp.stderr.split(separator: "\n").filter { $0.contains("behind realtime") }
        XCTAssertEqual(warnings.count, 1, "one warning in the log: \(mp.stderr)")

        // Every frame went out one frame apart, through the hold and the catching up (ffprobe, Matroska's ms).
        let pts = try MediaProbe.videoPacketPTS(out.path)
        let outputSeconds = Double(try XCTUnwrap(caughtUp["output_ms"] as? Int)) / 1000
        XCTAssertGreaterThan(Double(pts.count) / 10, outputSeconds - 1, "the recording spans the hold: \(pts.count) frames")
        let steps = zip(pts.dropFirst(), pts).map { $0 - $1 }
        XCTAssertTrue(steps.allSatisfy { abs($0 - 0.1) < 0.0015 }, "frames step 1/10 s: \(Set(steps.map { ($0 * 1000).rounded() }))")
    }
}

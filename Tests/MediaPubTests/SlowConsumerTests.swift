// Nothing downstream can stall the broadcast. A reader of the events
// or the log that stops reading (a pipe nobody reads) costs its own lines, never
// the capture, the players, the control socket or the stop (docs/events.md,
// "Slow readers"). The recording is checked with ffprobe and ffmpeg's
// freezedetect and blackdetect.

import Foundation
import XCTest
@testable import MediaPub
@testable import MediaPubTestSupport
#if canImport(Glibc)
import Glibc
#endif

final class SlowConsumerTests: XCTestCase {
    /// Linux's fcntl commands for a pipe's capacity (not exported by Glibc's module).
    private let F_SETPIPE_SZ: Int32 = 1031
    private let F_GETPIPE_SZ: Int32 = 1032

    /// A pipe of one page (4096 bytes), read by nobody unless the test reads it: (read end, write end).
    private func smallPipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        XCTAssertGreaterThanOrEqual(fcntl(fds[1], F_SETPIPE_SZ, 4096), 0, "F_SETPIPE_SZ")
        XCTAssertEqual(fcntl(fds[0], F_GETPIPE_SZ), 4096, "the pipe holds 4096 bytes")
        addTeardownBlock { close(fds[0]); close(fds[1]) }
        return (fds[0], fds[1])
    }

    /// The bytes waiting in a pipe (FIONREAD on its read end).
    private func waiting(_ fd: Int32) -> Int {
        var n: Int32 = 0
        return ioctl(fd, UInt(FIONREAD), &n) == 0 ? Int(n) : -1
    }

    /// Seconds of frozen and of black picture ffmpeg's freezedetect and blackdetect find.
    private func frozenAndBlack(_ path: String) throws -> [String] {
        let r = try Proc.run("ffmpeg", ["-nostdin", "-hide_banner", "-v", "info", "-i", path,
                                        "-vf", "freezedetect=n=0.001:d=1,blackdetect=d=0.5", "-an", "-f", "null", "-"], timeout: 120)
        XCTAssertEqual(r.status, 0, r.summary("ffmpeg freezedetect"))
        return r.stderr.split(separator: "\n").map(String.init).filter { $0.contains("freeze_start") || $0.contains("black_start") }
    }

    /// A pipe nobody reads, and everything slow at once: two runs, each its own process,
    /// folder, pipe and control socket, at once. Both are realtime and mostly wait (on
    /// their pipe to fill, on five seconds of progress, on a load's 10 s), so their waits
    /// overlap: the second's load is started and asked about, the first is followed
    /// through while that load is pending, then the second's end is checked. Each is
    /// checked as its own test did.
    func testAPipeNobodyReadsHoldsNothingUpAndStatusAnswersWhileALoadTheEventsAndTheWebhookAllStall() throws {
        let hook = try Ports.listener(in: self), origin = try Ports.listener(in: self)
        let everything = try startIntoPipe(extra: "events:\n  webhook: \"http://127.0.0.1:\(hook.port)/hook\"")
        let alone = try startIntoPipe()
        let (load, checkTheLoadsEnd) = try statusAnswersWhileALoadTheEventsAndTheWebhookAllStall(everything, hook: hook, origin: origin)
        defer { load.cleanUp() }
        try aPipeNobodyReadsHoldsNothingUp(alone)
        try checkTheLoadsEnd()
    }

    /// `--events -` and stderr into one pipe of 4096 bytes that nobody reads, progress
    /// every 100 ms: the pipe is full within seconds, and then the run goes on. The
    /// recording is unbroken (its length the run's, no frozen or black stretch), `ctl`
    /// answers during the stall (`status`, and `publish on`, which emits an event), and
    /// SIGTERM ends the run with exit 0. Before: the recording froze, `ctl publish`
    /// timed out and SIGTERM was ignored.
    private func aPipeNobodyReadsHoldsNothingUp(_ run: PipedRun) throws {
        let (process, pipe, events, socket, rec) = run

        func progressCount() -> Int {
            ((try? EventLog.read(events)) ?? []).filter { $0["event"] as? String == "player.progress" }.count
        }
        // Full: less than a line's room left in the pipe's one page.
        XCTAssertTrue(Ports.waitUntil(timeout: 60, watching: events) { waiting(pipe.read) >= 4096 - 256 || !process.isRunning },
                      "the pipe fills (\(waiting(pipe.read)) bytes waiting)")
        XCTAssertTrue(process.isRunning)
        let full = progressCount()
        // Five seconds more of progress (50 events at 100 ms) with the pipe full.
        XCTAssertTrue(Ports.waitUntil(timeout: 60, watching: events) { progressCount() >= full + 50 || !process.isRunning },
                      "the players go on while the pipe is full: \(progressCount() - full) progress events")
        XCTAssertGreaterThanOrEqual(waiting(pipe.read), 4096 - 256, "the pipe is still full")

        let status = try CLI.run(["ctl", "--socket", socket, "status"], timeout: 20)
        XCTAssertEqual(status.status, 0, status.summary("ctl status during the stall"))
        XCTAssertTrue(status.stdout.contains(#""state":"publishing""#), status.stdout)
        let publish = try CLI.run(["ctl", "--socket", socket, "publish", "on"], timeout: 20)
        XCTAssertEqual(publish.status, 0, publish.summary("ctl publish on during the stall"))

        try stopAndCheck(process, events: events, recording: rec)
    }

    /// A run `startIntoPipe` started: its process, its pipe, its events file, its control socket, its recording.
    private typealias PipedRun = (process: Process, pipe: (read: Int32, write: Int32), events: URL, socket: String, rec: URL)

    /// A realtime run of one player (a moving, colourful testsrc2 picture, so a frozen or
    /// black stretch shows; progress every 100 ms) recording to `rec`, whose `--events -`
    /// and log go into a pipe of 4096 bytes nobody reads; its events also to `events`,
    /// controlled at `socket`. `extra`: preset lines added.
    private func startIntoPipe(extra: String = "") throws -> PipedRun {
        let dir = try makeTempDir()
        let source = try TestMedia.makeVideo(in: dir, seconds: 6, size: "320x180")
        let rec = dir.appendingPathComponent("rec.mp4")
        let events = dir.appendingPathComponent("events.jsonl")
        let socket = dir.appendingPathComponent("c.sock").path
        let preset = try writeFile(dir, "t.yaml", PlayerPreset.video(name: "stall", players: [
            PlayerPreset.player("main", source: source.path, ["video: true", "repeat: true", "progress_interval: 100ms"]),
        ], output: rec, extra: extra))
        let pipe = try smallPipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try CLI.binary())
        process.environment = CLI.environment()
        process.arguments = ["--preset", preset.path, "--realtime", "--events", "-", "--events", events.path,
                             "--control", socket, "--log-level", "debug"]
        process.standardInput = FileHandle.nullDevice
        let handle = FileHandle(fileDescriptor: pipe.write, closeOnDealloc: false)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        addTeardownBlock { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
        return (process, pipe, events, socket, rec)
    }

    /// SIGTERM ends the run with exit 0, `run.stopped` last; the recording is as long as
    /// the run, with no frozen or black stretch.
    private func stopAndCheck(_ process: Process, events: URL, recording rec: URL) throws {
        kill(process.processIdentifier, SIGTERM)
        guard Proc.waitForExit(process, timeout: 60) else { return XCTFail("SIGTERM ends the run") }
        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(process.terminationStatus, 0)

        let all = try EventLog.read(events)
        let began = try XCTUnwrap(all.first { $0["event"] as? String == "run.state" && $0["state"] as? String == "running" }.flatMap(EventLog.time))
        let ended = try XCTUnwrap(all.last.flatMap(EventLog.time))
        XCTAssertEqual(all.last?["event"] as? String, "run.stopped")
        let probe = try MediaProbe.probe(rec.path)
        XCTAssertEqual(probe.duration ?? 0, ended.timeIntervalSince(began), accuracy: 1.5, "the recording is as long as the run")
        XCTAssertEqual(try frozenAndBlack(rec.path), [], "no frozen or black stretch")
    }

    /// A connection waits in `listener`'s backlog, not accepted (a client reached it).
    private func reached(_ listener: Int32) -> Bool {
        var p = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 0) == 1
    }

    /// Everything slow at once (docs/control.md, "Ordering"): a `load` whose HTTP server
    /// accepts and never answers, `--events -` and the log into a full pipe nobody reads,
    /// and a webhook that accepts and never answers. `ctl status` is answered each time
    /// while the load is still pending (its answer comes first, 5 times over; the
    /// latencies are printed), and the recording plays on unbroken. Before: `status`
    /// waited behind the load, whose answer came first. Returns the load, and the checks
    /// of its answer and of the run's end, for when the load has had its time.
    private func statusAnswersWhileALoadTheEventsAndTheWebhookAllStall(
        _ run: PipedRun, hook: (fd: Int32, port: UInt16), origin: (fd: Int32, port: UInt16)
    ) throws -> (RunningProcess, () throws -> Void) {
        let (process, pipe, events, socket, rec) = run

        XCTAssertTrue(Ports.waitUntil(timeout: 60, watching: events) { waiting(pipe.read) >= 4096 - 256 || !process.isRunning },
                      "the pipe fills (\(waiting(pipe.read)) bytes waiting)")
        XCTAssertTrue(reached(hook.fd), "the webhook was reached, and never answers")
        let load = try CLI.start(["ctl", "--socket", socket, "load", "main", "http://127.0.0.1:\(origin.port)/stalls.mp4"])
        XCTAssertTrue(Ports.waitUntil(timeout: 30) { reached(origin.fd) || !load.isRunning }, "the load reaches its server")
        var latencies: [String] = []
        for n in 0..<5 {
            let asked = Date()
            let status = try CLI.run(["ctl", "--socket", socket, "status"], timeout: 20)
            latencies.append(String(format: "%.0f ms", Date().timeIntervalSince(asked) * 1000))
            XCTAssertEqual(status.status, 0, status.summary("ctl status \(n)"))
            XCTAssertTrue(status.stdout.contains(#""state":"publishing""#), status.stdout)
            XCTAssertTrue(load.isRunning, "status \(n) is answered while the load is pending")
        }
        print("ctl status while a load, the events and the webhook stall: \(latencies.joined(separator: ", "))")
        return (load, { [self] in
            XCTAssertTrue(load.waitForExit(timeout: 30), "the load is answered in the end")
            XCTAssertTrue(((try? String(contentsOf: load.stdoutURL, encoding: .utf8)) ?? "").contains(#""ok""#), "its answer")
            XCTAssertGreaterThanOrEqual(waiting(pipe.read), 4096 - 256, "the pipe is still full")

            try stopAndCheck(process, events: events, recording: rec)
        })
    }

    /// Events into a pipe that is full and not read, with room for 8 lines queued: `emit`
    /// never waits; the pipe's reader loses the oldest lines only (it gets those already
    /// on their way, and the newest), said once per episode — a `warning` event to the
    /// other destination and a log line — and counted for `/metrics`. Once it has caught
    /// up (the log says what it lost), falling behind again is a second warning.
    func testAReaderThatFallsBehindLosesItsOldestLinesAndIsToldOncePerEpisode() throws {
        signal(SIGPIPE, SIG_IGN)   // as mediapub does: the pipe is closed under a writer at the end
        let dir = try makeTempDir()
        let file = dir.appendingPathComponent("events.jsonl")
        let pipe = try smallPipe()
        let events = Events()
        let notices = Collector<String>()
        events.onNotice = { level, text in notices.add("\(level.name): \(text)") }
        try events.addDestination(path: file.path)
        events.addDestination(fd: pipe.write, name: "slow", owned: false, capacity: 8)

        /// Fills what room the pipe has with empty lines (the reader has stopped reading).
        func fillPipe() {
            let flags = fcntl(pipe.write, F_GETFL)
            _ = fcntl(pipe.write, F_SETFL, flags | O_NONBLOCK)
            let newlines = [UInt8](repeating: UInt8(ascii: "\n"), count: 4096)
            while write(pipe.write, newlines, 1) == 1 {}
            _ = fcntl(pipe.write, F_SETFL, flags)
            XCTAssertEqual(waiting(pipe.read), 4096, "the pipe is full")
        }
        /// Emits numbered events on a thread of its own: true once all are out.
        func emitAll(_ range: Range<Int>) -> Bool {
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                for n in range { events.emit(.warning("line \(n)")) }
                done.signal()
            }
            return done.wait(timeout: .now() + 30) == .success
        }
        func behind() -> [String] {
            ((try? EventLog.read(file)) ?? []).compactMap { $0["message"] as? String }.filter { $0.hasPrefix("events to slow: the reader is behind") }
        }
        fillPipe()
        XCTAssertTrue(emitAll(0..<300), "emit never waits for the reader")
        events.flush(until: MonotonicInstant.now.addingTimeInterval(0.5))
        XCTAssertEqual(behind().count, 1, "one warning for the episode, not one per line")
        XCTAssertEqual(notices.all.filter { $0.hasPrefix("warn: events to slow: the reader is behind") }.count, 1, "\(notices.all)")
        let dropped = try XCTUnwrap(events.drops.first { $0.consumer == "slow" }?.dropped)
        XCTAssertGreaterThan(dropped, 200)
        XCTAssertEqual(events.drops.first { $0.consumer == file.path }?.dropped, 0, "the file keeps up")
        XCTAssertTrue(MetricsExposition.render(TypedSamples.status, drops: events.drops)
            .contains("mediapub_events_dropped_total{consumer=\"slow\"} \(Double(dropped))"))

        // The reader reads again: it gets what was on its way, then the newest lines.
        var received = Data()
        let reader = FileHandle(fileDescriptor: pipe.read, closeOnDealloc: false)
        func readLines() -> [[String: Any]] {
            String(decoding: received, as: UTF8.self).split(separator: "\n").compactMap { line in
                try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            }
        }
        func readNumbers() -> [Int] {
            readLines().compactMap { ($0["message"] as? String).flatMap { $0.hasPrefix("line ") ? Int($0.dropFirst(5)) : nil } }
        }
        while readNumbers().last != 299 {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            received += chunk
        }
        let numbers = readNumbers()
        XCTAssertEqual(numbers, numbers.sorted(), "in order")
        XCTAssertEqual(Array(numbers.suffix(8)), Array(292..<300), "the newest lines (as many as the queue holds) are kept")
        // 300 lines and the warning went to it: each was read or counted as dropped.
        XCTAssertEqual(readLines().count + dropped, 301, "\(readLines().count) read, \(dropped) dropped")

        // It keeps up again (a queue's worth taken without a drop): caught up, and the log
        // says what it lost.
        for n in 300..<310 {
            events.emit(.warning("line \(n)"))
            events.flush(until: MonotonicInstant.now.addingTimeInterval(10))
        }
        XCTAssertTrue(Ports.waitUntil(timeout: 10) { notices.all.contains { $0.hasPrefix("info: events to slow: caught up;") } })
        XCTAssertEqual(notices.all.filter { $0.hasPrefix("info: events to slow: caught up; \(dropped) lines were dropped") }.count, 1,
                       "\(notices.all)")
        // It stops reading again: a second episode, a second warning.
        fillPipe()
        XCTAssertTrue(emitAll(310..<400))
        events.flush(until: MonotonicInstant.now.addingTimeInterval(0.5))
        XCTAssertEqual(behind().count, 2, "one warning per episode")
    }

    /// A webhook that accepts and never answers: `send` never waits; past its backlog of
    /// 1000 the oldest events are dropped, said once, and counted for `/metrics`.
    func testAWebhookThatNeverAnswersLosesItsOldestEventsAndIsToldOnce() throws {
        let (_, port) = try Ports.listener(in: self)
        let warnings = Collector<String>()
        let hook = Webhook(url: "http://127.0.0.1:\(port)/hook", log: Logger(write: { _ in })) { warnings.add($0) }
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for n in 0..<1100 { hook.send(Data("{\"n\":\(n)}".utf8)) }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success, "send never waits for the webhook")
        // One event is on its way (waiting for an answer), 1000 wait: the rest were dropped.
        XCTAssertGreaterThanOrEqual(hook.drops.dropped, 99)
        XCTAssertEqual(hook.drops.consumer, "webhook")
        XCTAssertEqual(warnings.all.filter { $0.contains("too far behind") }.count, 1, "\(warnings.all)")
        hook.drain(until: MonotonicInstant.now)
    }

    /// Events emitted from several threads at once reach a listener in the order they were
    /// stamped and written: the listener is called holding no lock, one event at a time.
    func testListenersHearEventsInTheirOrderFromManyThreads() throws {
        let dir = try makeTempDir()
        let file = dir.appendingPathComponent("events.jsonl")
        let events = Events()
        try events.addDestination(path: file.path)
        let heard = Collector<String>()
        events.addListener { data in
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            heard.add(object?["message"] as? String ?? "?")
        }
        let group = DispatchGroup()
        for t in 0..<4 {
            DispatchQueue.global().async(group: group) {
                for n in 0..<250 { events.emit(.warning("thread \(t) line \(n)")) }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        events.flush(until: MonotonicInstant.now.addingTimeInterval(10))
        let written = try EventLog.read(file).compactMap { $0["message"] as? String }
        XCTAssertEqual(written.count, 1000)
        XCTAssertEqual(heard.all, written, "the listener hears them in the file's order")
    }

    /// The same webhook fed by `Events`, as a run wires it: its warning that it is too far
    /// behind is an event, emitted from inside the listener that queues for it. Listeners
    /// are called holding no lock of the events, so that event goes out like any other
    /// and every event is stamped. Before: the listener ran under the events' lock and the
    /// warning's `emit` took it again: the run died ("Recursive call to lock Mutex")
    /// at the webhook's first dropped event.
    func testAWebhookFallingBehindIsAnEventEmittedFromItsListener() throws {
        let dir = try makeTempDir()
        let file = dir.appendingPathComponent("events.jsonl")
        let (_, port) = try Ports.listener(in: self)
        let events = Events()
        try events.addDestination(path: file.path)
        let hook = Webhook(url: "http://127.0.0.1:\(port)/hook", log: Logger(write: { _ in })) { events.emit(.warning($0)) }
        events.addListener { hook.send($0) }
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for n in 0..<1100 { events.emit(.warning("line \(n)")) }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success, "every event is emitted")
        events.flush(until: MonotonicInstant.now.addingTimeInterval(10))
        let messages = try EventLog.read(file).compactMap { $0["message"] as? String }
        XCTAssertEqual(messages.filter { $0.hasPrefix("webhook http://127.0.0.1:\(port)/…: too far behind") }.count, 1, "\(messages.suffix(3))")
        XCTAssertEqual(messages.filter { $0.hasPrefix("line ") }.count, 1100)
        XCTAssertGreaterThanOrEqual(hook.drops.dropped, 90)
        hook.drain(until: MonotonicInstant.now)
    }
}

import Foundation
import Synchronization
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The timeline never waits (docs/design.md, What may run on the timeline thread): one 60 s
/// realtime run to an SRT listener stays on time while every slow thing the run may meet
/// happens at once, each on the queue that owns it:
/// - `ctl load` of an item on an HTTP server that waits 8 s before it answers;
/// - a playlist crossfading into an item on that server;
/// - a programme block whose source is on it;
/// - `ctl overlay set logo image=` naming a FIFO nobody writes;
/// - the programme's file replaced by a FIFO nobody writes;
/// - a programme block whose local file hangs whoever opens it (a write lease its holder does
///   not give up: open(2) waits as on a hung NFS or FUSE mount, stat(2) does not) from before
///   its cue until 8 s after.
///
/// What is checked, from that one run:
/// - mediapub's own lag watch (docs/status.md, timeline) never says `timeline.late` (more
///   than 2 frames behind for over a second), and every `status.timeline.lag_ms` read (one
///   each ~100 ms) is under 2 frames, bar what a loaded machine adds (printed): no spell of
///   5 reads in a row at 2 frames or more (a freeze of ~0.7 s), none 1.5 s behind;
/// - the recording's frames step exactly 1/fps (ffprobe): nothing dropped or repeated;
/// - a receiver behind the SRT listener timestamps every datagram as it arrives: the
///   largest gap is printed against the 300 ms the issue asks, and asserted under 2 s
///   (the freezes named above last 5 to 8 s; on a shared 2-core machine gaps of up to
///   ~0.8 s were seen with no freeze at all: the process, the relay or the receiver held
///   by the load);
/// - `ctl status` answers each time (each answer timed on the socket and printed against
///   200 ms; asserted under 2 s, well under the 5 to 8 s a frozen run would take);
/// - each slow thing ends as documented: the FIFO logo is refused at once naming the FIFO, the
///   FIFO programme file is an `error` event and the programme stays on air, the block on
///   the slow server starts (`schedule.block`), and the load is `loading` then played.
final class TimelineOnTimeTests: XCTestCase {
    /// 10 fps: two frames are 200 ms.
    private let fps = 10

    func testARealtimeRunStaysOnTimeWhileEverySlowThingHappens() throws {
        let dir = try makeTempDir()
        let slowRoot = dir.appendingPathComponent("slow")
        try FileManager.default.createDirectory(at: slowRoot, withIntermediateDirectories: true)
        try TestMedia.makeVideo(in: dir, name: "filler.mp4", seconds: 12, size: "320x180", fps: fps, freq: 440)
        try TestMedia.makeVideo(in: slowRoot, name: "block.mp4", seconds: 12, size: "320x180", fps: fps, freq: 660)
        let hung = try TestMedia.makeVideo(in: dir, name: "hung.mp4", seconds: 12, size: "320x180", fps: fps, freq: 990)
        try TestMedia.makeAudio(in: dir, name: "first.wav", seconds: 6, freq: 550, ext: "wav")
        try TestMedia.makeAudio(in: slowRoot, name: "second.mp3", seconds: 20, freq: 770, ext: "mp3")
        try TestMedia.makeAudio(in: slowRoot, name: "loaded.mp3", seconds: 20, freq: 880, ext: "mp3")
        try TestMedia.makeAudio(in: dir, name: "extra.wav", seconds: 60, freq: 330, ext: "wav")
        try TestMedia.makePNG(in: dir, name: "logo.png", color: "yellow", size: "32x32")
        let fifoLogo = dir.appendingPathComponent("logo.fifo").path
        XCTAssertEqual(mkfifo(fifoLogo, 0o600), 0)
        let slow = try startSlowHTTPServer(root: slowRoot, delay: 8)

        // The blocks start 20 s and 32 s of wall time from now (the run starts within a few seconds).
        let utc = DateFormatter()
        utc.locale = Locale(identifier: "en_US_POSIX")
        utc.timeZone = TimeZone(identifier: "UTC")
        utc.dateFormat = "yyyy-MM-dd HH:mm:ss"
        let now = Date()
        let blockAt = utc.string(from: now.addingTimeInterval(20))
        let hungAt = now.addingTimeInterval(32)
        let programme = try writeFile(dir, "programme.yaml", """
            timezone: UTC
            player: main
            filler: { items: [filler.mp4], mode: loop }
            blocks:
              - { id: slow, at: "\(blockAt)", duration: 10s, source: "\(slow.url("block.mp4"))" }
              - { id: hung, at: "\(utc.string(from: hungAt))", duration: 10s, source: hung.mp4 }

            """)
        let srtPort = try Ports.free()
        let receiver = try ArrivalReceiver(out: dir.appendingPathComponent("received.ts"))
        defer { receiver.stop() }
        let relay = try startTool("srt-live-transmit",
                                  ["-a:yes", "srt://127.0.0.1:\(srtPort)?mode=listener&latency=120",
                                   "udp://127.0.0.1:\(receiver.port)"])
        defer { relay.stop(signal: SIGINT, grace: 3) }
        XCTAssertTrue(Ports.waitUntil(timeout: 10) { Ports.udpBound(srtPort) }, "the SRT listener listens")

        let out = dir.appendingPathComponent("rec.mkv")
        let events = dir.appendingPathComponent("events.jsonl")
        let socket = dir.appendingPathComponent("c.sock").path
        let preset = try writeFile(dir, "ontime.yaml", """
            name: ontime\(UInt32.random(in: 0...UInt32.max))
            video: {size: 320x180, fps: \(fps), bitrate: 300k, keyframe_interval: 1s, encoder_preset: ultrafast}
            audio: {sample_rate: 44100, channels: 2, bitrate: 96k}
            players:
              - {id: main, source: filler.mp4, video: true}
              - id: music
                playlist: { mode: once, crossfade: 2s, items: [first.wav, "\(slow.url("second.mp3"))"] }
              - {id: extra, source: extra.wav}
            schedule: { file: programme.yaml }
            overlays:
              - {id: logo, image: logo.png, position: top-right}
            outputs:
              - url: "srt://127.0.0.1:\(srtPort)?mode=caller"
              - url: "\(out.path)"

            """)
        let mp = try startMediaPub(["--preset", preset.path, "--realtime", "--duration", "60s", "--control", socket,
                                    "--events", events.path])
        XCTAssertTrue(EventLog.waitFor(events, of: mp, EventLog.outputState("publishing")), "publishing: \(mp.stderr)")
        let poller = try StatusPoller(socket: socket)

        // The slow things. `ctl load` waits for its source (up to 10 s, docs/control.md): asked on
        // a connection of its own, answered once the server has, while status is read meanwhile.
        let loader = try StatusPoller(socket: socket)
        let loaded = DispatchSemaphore(value: 0)
        let load = Mutex<(ok: Bool?, text: String)>((nil, "no answer"))
        let loadURL = slow.url("loaded.mp3")
        Thread.detachNewThread {
            let answer = try? loader.ask(["load", "extra", loadURL]).answer
            load.withLock { $0 = (answer?["ok"] as? Bool, String(describing: answer)) }
            loaded.signal()
        }
        let logo = try poller.ask(["overlay", "set", "logo", "image=\(fifoLogo)"])
        XCTAssertEqual(logo.answer["ok"] as? Bool, false, "a FIFO is never read as a logo: \(logo.answer)")
        XCTAssertTrue((logo.answer["error"] as? String ?? "").contains("logo.fifo"), "the error names it: \(logo.answer)")
        try FileManager.default.removeItem(at: programme)
        XCTAssertEqual(mkfifo(programme.path, 0o600), 0)
        // The hung block's file: opened by nobody from now until 8 s after its cue (5 s before it).
        let held = dir.appendingPathComponent("lease.held").path
        let holder = try startTool("python3", ["-c", Self.leaseHolder, hung.path, held,
                                               "\(max(1, hungAt.addingTimeInterval(3).timeIntervalSinceNow))"])
        defer { holder.stop(signal: SIGTERM, grace: 3) }
        XCTAssertTrue(Ports.waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: held) || !holder.isRunning },
                      "the lease is taken: \(holder.stderr)")
        XCTAssertTrue(holder.isRunning, "the lease is held: \(holder.stderr)")

        // Status read every 100 ms for the rest of the run (it also keeps the socket busy): a
        // timeline held up for over half a second is seen by several reads in a row.
        var reads: [(ms: Double, lagMs: Int?)] = []
        while mp.isRunning {
            guard let r = try? poller.ask(["status"]) else { break }
            let timeline = (r.answer["status"] as? [String: Any])?["timeline"] as? [String: Any]
            reads.append((r.ms, timeline?["lag_ms"] as? Int))
            usleep(100_000)
        }
        XCTAssertTrue(mp.waitForExit(timeout: 60), mp.stderr)
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr)
        XCTAssertEqual(loaded.wait(timeout: .now() + 30), .success, "ctl load answered")
        XCTAssertEqual(load.withLock { $0.ok }, true, "ctl load: \(load.withLock { $0.text })")
        relay.stop(signal: SIGINT, grace: 3)
        receiver.stop()

        let log = try EventLog.read(events)
        func named(_ name: String) -> [[String: Any]] { log.filter { $0["event"] as? String == name } }
        // Mediapub's own account of its lag: never more than 2 frames behind for over a second.
        XCTAssertEqual(named("timeline.late").count, 0, "the timeline fell behind: \(named("timeline.late"))")
        let lags = reads.compactMap(\.lagMs)
        let slowAnswers = reads.filter { $0.ms > 200 }.count
        print("TimelineOnTime: \(reads.count) ctl status answers, slowest \(Int(reads.map(\.ms).max() ?? 0)) ms, \(slowAnswers) over 200 ms; "
              + "lag_ms max \(lags.max() ?? -1) over \(lags.count) reads; receiver: \(receiver.count) datagrams, "
              + "largest gap \(Int(receiver.largestGapMs)) ms, \(receiver.gaps(over: 300)) over 300 ms")
        XCTAssertGreaterThan(lags.count, 100, "status read all along the run")
        XCTAssertLessThan(reads.map(\.ms).max() ?? .infinity, 2000, "ctl status answers while slow things happen")
        // Two frames are 200 ms; a read lands at a random moment of a tick, on a loaded machine.
        XCTAssertLessThan(lags.filter { $0 >= 200 }.count, max(3, lags.count / 20), "lag_ms under 2 frames: \(lags)")
        // Mediapub's own measure, tight: no spell of reads 2 frames behind longer than a load
        // spike makes (up to 523 ms of lag was seen on the shared machine with no freeze: 3
        // reads in a row at most), and never 1.5 s behind. A freeze of ~0.7 s or more is 5 reads
        // in a row and more; one of 1.5 s or more (the slow things here freeze 5 to 8 s) is
        // seen by any read in it.
        let behind = lags.map { $0 >= 200 }
        let longestSpell = behind.split(separator: false).map(\.count).max() ?? 0
        print("TimelineOnTime: longest spell of lag_ms reads at 2 frames or more: \(longestSpell) reads (one each ~100 ms)")
        XCTAssertLessThan(longestSpell, 5, "the timeline was held up: \(lags)")
        XCTAssertLessThan(lags.max() ?? 0, 1500, "the timeline was held up: lag_ms max \(lags.max() ?? 0)")
        XCTAssertGreaterThan(receiver.count, 1000, "the SRT stream arrived")
        XCTAssertLessThan(receiver.largestGapMs, 2000, "no freeze reaches the receiver")

        // Each slow thing ended as documented, off the timeline.
        XCTAssertTrue(named("error").contains { ($0["message"] as? String ?? "").contains("programme.yaml") },
                      "the FIFO programme file is an error event: \(named("error"))")
        let blocks = named("schedule.block").map { "\($0["block"] as? String ?? "?") \($0["state"] as? String ?? "?")" }
        XCTAssertTrue(blocks.contains("slow started"), "the block on the slow server went on air: \(blocks)")
        XCTAssertTrue(blocks.contains("hung started"), "the block whose file hung went on air: \(blocks)")
        XCTAssertTrue(named("player.track").contains { ($0["source"] as? String ?? "").contains("hung.mp4") },
                      "its file played once it could be opened")
        XCTAssertTrue(named("player.track").contains { $0["player"] as? String == "extra"
                          && ($0["source"] as? String ?? "").contains("loaded.mp3") }, "the slow load played: \(named("player.track"))")
        XCTAssertTrue(named("player.track").contains { $0["player"] as? String == "music"
                          && ($0["source"] as? String ?? "").contains("second.mp3") }, "the playlist went on to the slow item")

        // Every frame one frame apart, in the recording and in what the SRT receiver got (ffprobe).
        let pts = try MediaProbe.videoPacketPTS(out.path)
        XCTAssertGreaterThan(pts.count, 58 * fps, "the recording spans the run")
        let steps = zip(pts.dropFirst(), pts).map { $0 - $1 }
        XCTAssertTrue(steps.allSatisfy { abs($0 - 0.1) < 0.0015 }, "frames step 1/\(fps) s: \(Set(steps.map { ($0 * 1000).rounded() }))")
        let received = try MediaProbe.videoPacketPTS(receiver.out.path)
        XCTAssertGreaterThan(received.count, 55 * fps, "the SRT receiver got the run")
        let receivedSteps = Set(zip(received.dropFirst(), received).map { (($0 - $1) * 1000).rounded() })
        XCTAssertEqual(receivedSteps, [100], "the SRT stream's frames step 1/\(fps) s")
    }
}

extension TimelineOnTimeTests {
    /// Holds a write lease on argv[1] (marked by creating argv[2]) for argv[3] seconds: whoever
    /// opens the file meanwhile waits in open(2) for the lease to be given up.
    static let leaseHolder = """
    import fcntl, os, signal, sys, time
    signal.signal(signal.SIGIO, signal.SIG_IGN)
    fd = os.open(sys.argv[1], os.O_WRONLY)
    fcntl.fcntl(fd, getattr(fcntl, "F_SETLEASE", 1024), fcntl.F_WRLCK)
    open(sys.argv[2], "w").close()
    time.sleep(float(sys.argv[3]))
    fcntl.fcntl(fd, getattr(fcntl, "F_SETLEASE", 1024), fcntl.F_UNLCK)
    """
}

/// A UDP receiver on 127.0.0.1 (behind `srt-live-transmit`): writes each datagram to `out`
/// and notes when it arrived, on the monotonic clock.
private final class ArrivalReceiver: @unchecked Sendable {
    let port: UInt16
    let out: URL
    private let fd: Int32
    private let lock = NSLock()
    private var arrivals: [UInt64] = []
    private var running = true
    private let done = DispatchSemaphore(value: 0)

    init(out: URL) throws {
        self.out = out
        FileManager.default.createFile(atPath: out.path, contents: nil)
        port = try Ports.free()
        fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket(): errno \(errno)") }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { close(fd); throw HarnessError("bind(\(port)): errno \(errno)") }
        var size: Int32 = 4 << 20
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        let handle = try FileHandle(forWritingTo: out)
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&p, 1, 100)
                let now = DispatchTime.now().uptimeNanoseconds
                if !(lock.withLock { running }) { break }
                guard ready > 0 else { continue }
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard n > 0 else { continue }
                lock.withLock { arrivals.append(now) }
                handle.write(Data(buffer[0..<n]))
            }
            try? handle.close()
            done.signal()
        }
    }

    func stop() {
        let wasRunning = lock.withLock { () -> Bool in
            defer { running = false }
            return running
        }
        guard wasRunning else { return }
        done.wait()
        close(fd)
    }

    var count: Int { lock.withLock { arrivals.count } }

    private var gapsMs: [Double] {
        let a = lock.withLock { arrivals }
        return zip(a.dropFirst(), a).map { Double($0 - $1) / 1e6 }
    }

    /// The longest time between two datagrams, from the first to the last.
    var largestGapMs: Double { gapsMs.max() ?? .infinity }

    func gaps(over ms: Double) -> Int { gapsMs.filter { $0 > ms }.count }
}

/// One connection to the control socket, each answer timed from the request sent to its line read.
private final class StatusPoller: @unchecked Sendable {
    private let socket: TestSocket
    private var pending: [UInt8] = []

    init(socket path: String) throws {
        socket = try TestSocket.unix(path)
    }

    /// The answer to `words` and how long it took (ms).
    func ask(_ words: [String]) throws -> (answer: [String: Any], ms: Double) {
        let request = try JSONSerialization.data(withJSONObject: ["command": words])
        let start = DispatchTime.now().uptimeNanoseconds
        guard socket.send(Array(request) + [10]) else { throw HarnessError("control socket closed") }
        while !pending.contains(10) {
            guard socket.readable(timeout: 30) else { throw HarnessError("no answer to \(words) in 30 s") }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(socket.fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw HarnessError("control socket closed") }
            pending += chunk[0..<n]
        }
        let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        let end = pending.firstIndex(of: 10)!
        let line = Data(pending[..<end])
        pending.removeSubrange(...end)
        let answer = try XCTUnwrap(try JSONSerialization.jsonObject(with: line) as? [String: Any], String(decoding: line, as: UTF8.self))
        return (answer, ms)
    }
}

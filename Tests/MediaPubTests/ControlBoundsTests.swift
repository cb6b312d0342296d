// The control socket and the metrics endpoint are bounded (README, Control):
// many idle clients, an oversize line, a client that dribbles, a control path
// that names something mediapub did not create. Driven from outside through
// real sockets; outputs checked with ffprobe/ffmpeg.

import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif
@testable import MediaPub

/// A blocking client socket of the test (Unix or TCP), closed on deinit.
/// Sendable as a wrapper of one fd: a test may send from a thread of its own.
final class TestSocket: @unchecked Sendable {
    let fd: Int32

    private init(fd: Int32) { self.fd = fd }
    deinit { close(fd) }

    static func unix(_ path: String) throws -> TestSocket {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket(): errno \(errno)") }
        let s = TestSocket(fd: fd)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else { throw HarnessError("socket path too long: \(path)") }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in raw.copyBytes(from: bytes); raw[bytes.count] = 0 }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else { throw HarnessError("connect(\(path)): errno \(errno)") }
        return s
    }

    static func tcp(port: UInt16) throws -> TestSocket {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket(): errno \(errno)") }
        let s = TestSocket(fd: fd)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { throw HarnessError("connect(127.0.0.1:\(port)): errno \(errno)") }
        return s
    }

    /// Sends everything; false when the peer closed or reset the connection.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 { if errno == EINTR { continue }; return false }
            offset += n
        }
        return true
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Waits up to `timeout` s for data or end of stream.
    func readable(timeout: Double) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, Int32(timeout * 1000)) > 0
    }

    private var pending = [UInt8]()

    /// One line (without its newline), waiting at most `timeout` s for it; nil on end of stream or timeout.
    func readLine(timeout: Double) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let newline = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0, readable(timeout: left) else { return nil }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return nil }
            pending += chunk[0..<n]
        }
    }

    /// True when the peer closes (or resets) the connection within `timeout` s;
    /// whatever it sends before is read and dropped.
    func closedByPeer(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0, readable(timeout: left) else { return false }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return true }
        }
    }
}

extension XCTestCase {
    /// Waits (bounded) until the events file holds an event matching `match`.
    func waitForEvent(_ events: URL, timeout: TimeInterval = 20, _ match: @escaping ([String: Any]) -> Bool) -> Bool {
        Ports.waitUntil(timeout: timeout, watching: events) { ((try? EventLog.read(events)) ?? []).contains(where: match) }
    }

    func waitForPublishing(_ events: URL) -> Bool {
        waitForEvent(events) { $0["event"] as? String == "output.state" && $0["state"] as? String == "publishing" }
    }

    /// Threads of a process, from /proc/PID/task.
    func threadCount(_ pid: Int32) -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []).count
    }

    /// Open descriptors of a process, from /proc/PID/fd.
    func fdCount(_ pid: Int32) -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).count
    }

    /// Lets this test process open `count` more descriptors (soft limit up to the hard one).
    func allowDescriptors(_ count: Int) throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let wanted = rlim_t(count + 256)
        if limit.rlim_cur < wanted {
            limit.rlim_cur = min(wanted, limit.rlim_max)
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        guard limit.rlim_cur >= wanted else { throw HarnessError("cannot open \(count) descriptors: RLIMIT_NOFILE is \(limit.rlim_cur)") }
    }
}

final class ControlBoundsTests: XCTestCase {

    private func status(_ socket: String) throws -> ProcessResult {
        try CLI.run(["ctl", "--socket", socket, "status"], timeout: 20)
    }

    /// 1,000 idle connections: the thread count stays bounded (it was one thread
    /// each), `ctl status` still answers, and the recording is whole. A 10 MB line
    /// is answered with the limit (it was a reset without an answer) and the
    /// same connection goes on working.
    func testThousandIdleClientsAndAHugeLineLeaveTheRunUnharmed() throws {
        try allowDescriptors(1100)
        let dir = try makeTempDir()
        let socket = dir.appendingPathComponent("c.sock").path
        let out = dir.appendingPathComponent("rec.mp4")
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(name: "bounds", source: E2EPreset.testsrc, outputs: ["file://\(out.path)"]))
        let run = try startMediaPub(["--preset", preset.path, "--realtime", "--duration", "60s", "--control", socket, "--events", events.path])
        XCTAssertTrue(waitForPublishing(events), "output publishing: \(run.stderr)")
        let before = threadCount(run.pid)

        var idle: [TestSocket] = []
        for _ in 0..<1000 { idle.append(try TestSocket.unix(socket)) }
        let during = threadCount(run.pid)
        XCTAssertLessThan(during, 60, "threads of mediapub with 1,000 idle control clients (\(before) before them)")
        XCTAssertTrue(run.isRunning, run.stderr)
        let answered = try status(socket)
        XCTAssertEqual(answered.status, 0, answered.summary("ctl status with 1,000 idle clients"))
        XCTAssertTrue(answered.stdout.contains("\"ok\":true"), answered.stdout)
        XCTAssertTrue(answered.stdout.contains("\"state\":\"running\""), answered.stdout)
        idle.removeAll()

        // A 10 MB line: one answer that names the limit, then the connection works on.
        let client = try TestSocket.unix(socket)
        let sent = client.send([UInt8](repeating: UInt8(ascii: "x"), count: 10 * 1024 * 1024) + [10])
        let line = client.readLine(timeout: 20)
        XCTAssertTrue(sent, "the whole 10 MB line was taken (not reset); answer: \(line ?? "none")")
        let reply = try XCTUnwrap(line.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any],
                                  "an answer to the 10 MB line: \(line ?? "none")")
        XCTAssertEqual(reply["ok"] as? Bool, false, "\(reply)")
        XCTAssertEqual(reply["error"] as? String, "line too long (max 65536 bytes)", "\(reply)")
        XCTAssertTrue(client.send("{\"command\":[\"status\"],\"request_id\":7}\n"))
        let next = try XCTUnwrap(client.readLine(timeout: 20), "an answer after the long line")
        let nextReply = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(next.utf8)) as? [String: Any])
        XCTAssertEqual(nextReply["ok"] as? Bool, true, next)
        XCTAssertEqual(nextReply["request_id"] as? Int, 7, next)

        let quit = try CLI.run(["ctl", "--socket", socket, "quit"], timeout: 20)
        XCTAssertEqual(quit.status, 0, quit.summary("ctl quit"))
        XCTAssertTrue(run.waitForExit(timeout: 30), "quit stops the run")
        XCTAssertEqual(run.result().status, 0, run.result().summary("mediapub"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: socket), "socket removed at exit")
        try assertH264AAC(out.path)
        try assertDecodesCleanly(out.path)
    }

    /// `--control PATH` naming a regular file: the file stays byte for byte, the
    /// run says why it has no control socket and still publishes.
    func testControlPathNamingARegularFileIsLeftUntouched() throws {
        let dir = try makeTempDir()
        let precious = dir.appendingPathComponent("notes.txt")
        let content = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try content.write(to: precious)
        let out = dir.appendingPathComponent("rec.mp4")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: ["file://\(out.path)"]))
        let r = try CLI.run(["--preset", preset.path, "--no-realtime", "--duration", "2s", "--control", precious.path], timeout: 60)
        XCTAssertEqual(r.status, 0, r.summary("mediapub --control FILE"))
        XCTAssertTrue(r.stderr.contains("control socket \(precious.path): a regular file, not a socket"), r.stderr)
        let attributes = try FileManager.default.attributesOfItem(atPath: precious.path)
        XCTAssertEqual(attributes[.type] as? FileAttributeType, .typeRegular, "still a regular file")
        XCTAssertEqual(try Data(contentsOf: precious), content, "byte for byte")
        let probe = try assertH264AAC(out.path)
        XCTAssertEqual(probe.duration ?? 0, 2, accuracy: 0.2, "the run published its 2 s: \(probe.rawJSON)")
    }

    /// At exit only the socket bound in this run is removed: a file put at the
    /// path meanwhile stays.
    func testStopRemovesOnlyTheSocketItBound() throws {
        let dir = try makeTempDir()
        let socket = dir.appendingPathComponent("c.sock").path
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: ["null://"]))
        let run = try startMediaPub(["--preset", preset.path, "--realtime", "--duration", "60s", "--control", socket, "--events", events.path])
        XCTAssertTrue(waitForPublishing(events), run.stderr)
        XCTAssertEqual(try status(socket).status, 0)
        XCTAssertEqual(unlink(socket), 0)
        let replacement = Data("not mediapub's\n".utf8)
        try replacement.write(to: URL(fileURLWithPath: socket))
        run.terminate(SIGTERM)
        XCTAssertTrue(run.waitForExit(timeout: 30))
        XCTAssertEqual(run.result().status, 0, run.result().summary("mediapub"))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: socket)), replacement, "the file at the path is left alone")
    }

    /// A client that sends nothing is closed after the idle timeout (here made
    /// short through the library), and a new one is served.
    func testIdleClientIsClosed() throws {
        let dir = try makeTempDir()
        let path = dir.appendingPathComponent("i.sock").path
        let server = try ControlServer(path: path, limits: .init(idleTimeout: 0.5, maxClients: 4, maxLine: 1024)) { _ in .ok }
        defer { server.stop() }
        let silent = try TestSocket.unix(path)
        XCTAssertTrue(silent.closedByPeer(timeout: 20), "an idle client is closed")
        let active = try TestSocket.unix(path)
        XCTAssertTrue(active.send("{\"command\":[\"status\"]}\n"))
        XCTAssertEqual(active.readLine(timeout: 20), "{\"ok\":true}")
        server.stop()
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "socket removed at stop")
    }

    /// Beyond the cap a new client closes the longest idle one, which is told why.
    func testConnectionCapClosesTheLongestIdle() throws {
        let dir = try makeTempDir()
        let path = dir.appendingPathComponent("cap.sock").path
        let server = try ControlServer(path: path, limits: .init(idleTimeout: 60, maxClients: 2, maxLine: 1024)) { _ in .ok }
        defer { server.stop() }
        let first = try TestSocket.unix(path)
        XCTAssertTrue(first.send("{\"command\":[\"status\"]}\n"))
        XCTAssertEqual(first.readLine(timeout: 20), "{\"ok\":true}")
        let second = try TestSocket.unix(path)
        XCTAssertTrue(second.send("{\"command\":[\"status\"]}\n"))
        XCTAssertEqual(second.readLine(timeout: 20), "{\"ok\":true}")
        let third = try TestSocket.unix(path)
        XCTAssertTrue(third.send("{\"command\":[\"status\"]}\n"))
        XCTAssertEqual(third.readLine(timeout: 20), "{\"ok\":true}")
        XCTAssertEqual(first.readLine(timeout: 20), "{\"ok\":false,\"error\":\"too many control connections (max 2)\"}")
        XCTAssertTrue(first.closedByPeer(timeout: 20), "the longest idle client is closed")
        XCTAssertTrue(second.send("{\"command\":[\"status\"]}\n"))
        XCTAssertEqual(second.readLine(timeout: 20), "{\"ok\":true}", "the others go on")
    }
}

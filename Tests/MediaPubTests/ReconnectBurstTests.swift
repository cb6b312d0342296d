// Issue 20: reconnects never leak. `ctl reconnect` in bursts, some arriving while
// the output is still connecting, against nginx-rtmp on loopback: each superseded
// connection is closed, so mediapub's descriptors and its connections to the
// server come back to where they were.

import Foundation
import XCTest

final class ReconnectBurstTests: XCTestCase {

    /// mediapub's established TCP connections to 127.0.0.1:`port` (its sockets, found
    /// by inode in /proc/net/tcp).
    private func connections(of pid: Int32, to port: UInt16) -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        let inodes = Set(fds.compactMap { fd -> String? in
            guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)"),
                  link.hasPrefix("socket:[") else { return nil }
            return String(link.dropFirst(8).dropLast())
        })
        // Read to its end: the kernel makes the table a page at a time as it is read.
        guard let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/net/tcp") else { return -1 }
        defer { try? handle.close() }
        let table = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        return table.split(separator: "\n").dropFirst().filter { line in
            let f = line.split(separator: " ")
            guard f.count > 9 else { return false }
            let remotePort = f[2].split(separator: ":").last.flatMap { UInt16($0, radix: 16) }
            return remotePort == port && f[3] == "01" && inodes.contains(String(f[9]))
        }.count
    }

    /// Five bursts of five `ctl reconnect` at once: they are carried out one at a time
    /// (one asked while a connect is under way is that connect), and once the output
    /// publishes again mediapub holds one connection to nginx (at most one more) and
    /// hardly more descriptors than before the bursts. Before: 12 connections to
    /// nginx stayed open and descriptors went 27 → 49 (rtmp2sink stopped in the middle
    /// of a connect keeps its socket).
    func testBurstsOfParallelReconnectsLeaveNothingBehind() throws {
        let dir = try makeTempDir()
        let rtmp = try startRTMPServer()
        let events = dir.appendingPathComponent("events.jsonl")
        let socket = dir.appendingPathComponent("c.sock").path
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: [rtmp.url(key: "burst")]))
        let mp = try startMediaPub(["--preset", preset.path, "--realtime", "--events", events.path, "--control", socket])

        func states() -> [[String: Any]] {
            ((try? EventLog.read(events)) ?? []).filter { $0["event"] as? String == "output.state" }
        }
        func asked() -> Int {
            states().filter { $0["error"] as? String == "asked to reconnect (ctl reconnect)" }.count
        }
        /// Every reconnect asked for is done (each is decided and said before `ctl` has its
        /// answer) and the output publishes again.
        func settled() -> Bool {
            EventLog.waitFor(events, of: mp, timeout: 60) { _ in states().last?["state"] as? String == "publishing" }
        }
        func reconnect() throws -> RunningProcess { try CLI.start(["ctl", "--socket", socket, "reconnect"]) }

        XCTAssertTrue(waitForPublishing(events), mp.stderr)
        // One reconnect first: whatever a first reconnect sets up once is in the baseline.
        let first = try reconnect()
        XCTAssertTrue(first.waitForExit(timeout: 20))
        XCTAssertTrue(settled(), "\(states())")
        XCTAssertEqual(asked(), 1)
        let (fds, conns) = (fdCount(mp.pid), connections(of: mp.pid, to: rtmp.port))
        XCTAssertEqual(conns, 1, "one connection to nginx while publishing")

        for burst in 1...5 {
            let ctls = try (0..<5).map { _ in try reconnect() }
            for ctl in ctls {
                XCTAssertTrue(ctl.waitForExit(timeout: 20), "ctl reconnect answers (burst \(burst))")
                XCTAssertEqual(ctl.exitStatus, 0, ctl.stdout + ctl.stderr)
            }
        }
        XCTAssertTrue(settled(), "publishing again: \(states().last ?? [:])")
        // One at a time: those asked while a connect was under way were that connect.
        XCTAssertGreaterThanOrEqual(asked(), 2, "the first burst came while publishing: it reconnected")
        // What a stopped pipeline gives back may come a moment after its stop returned.
        // Slack: a stopped pipeline's bus may outlive its stop a while, and rtmp2sink now and
        // then still keeps one connection it was stopped on (a known rest, a few in a hundred
        // reconnects; before: about one in two).
        XCTAssertTrue(Ports.waitUntil(timeout: 20) { connections(of: mp.pid, to: rtmp.port) <= conns + 1 && fdCount(mp.pid) <= fds + 8 },
                      "back to \(conns) connection (+1) and \(fds) descriptors (+8): now \(connections(of: mp.pid, to: rtmp.port)) and \(fdCount(mp.pid))")
        mp.terminate()
        XCTAssertTrue(mp.waitForExit(timeout: 20))
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr)
    }
}

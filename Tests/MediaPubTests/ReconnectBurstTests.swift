// Reconnects never leak. `ctl reconnect` in bursts, some arriving while
// the output is still connecting, against nginx-rtmp on loopback, and connects given
// up at their deadline against servers that take the TCP connection and answer no
// RTMP: each superseded connection is closed, so mediapub's descriptors and its
// connections to each server come back to exactly where they were.

import Foundation
import XCTest
@testable import MediaPub

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

    /// The `output.state` events of `id` (all outputs' when nil).
    private func states(_ events: URL, _ id: String? = nil) -> [[String: Any]] {
        ((try? EventLog.read(events)) ?? []).filter {
            $0["event"] as? String == "output.state" && (id == nil || $0["output"] as? String == id)
        }
    }

    /// The two realtime runs (mostly waiting: for deadlines and `give_up_after`, for bursts of
    /// reconnects), each with its own servers, folder and control socket, each counting its own
    /// process's descriptors: at once, each checked as its own test was.
    func testConnectsGivenUpAndBurstsOfReconnectsEachInARunOfItsOwnAtOnce() {
        atOnce([("connects given up at their deadline", connectsGivenUpAtTheirDeadlineLeaveNothingBehind),
                ("bursts of parallel reconnects", burstsOfParallelReconnectsLeaveNothingBehind)])
    }

    /// Twelve bursts of five `ctl reconnect` at once (60 in all): they are carried out one
    /// at a time (one asked while a connect is under way, or while the connection it
    /// replaces is being closed, is that connect), none fails, and once the output
    /// publishes again mediapub holds exactly one connection to nginx and exactly the
    /// descriptors it held before the bursts. Before: a reconnect asked while the last one
    /// closed its connection went ahead and took down the connect just begun, whose end
    /// was reported as the output's failure ("rejected: the server refused the
    /// application", its socket shut down under its `connect`); and rtmp2sink stopped
    /// there kept its socket and its main context for ever: descriptors went 27 → 29…33
    /// and now and then a second connection to nginx stayed open.
    private func burstsOfParallelReconnectsLeaveNothingBehind() throws {
        let dir = try makeTempDir()
        let rtmp = try startRTMPServer()
        let events = dir.appendingPathComponent("events.jsonl")
        let socket = dir.appendingPathComponent("c.sock").path
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: [rtmp.url(key: "burst")]))
        let mp = try startMediaPub(["--preset", preset.path, "--realtime", "--events", events.path, "--control", socket])

        func asked() -> Int {
            states(events).filter { $0["error"] as? String == "asked to reconnect (ctl reconnect)" }.count
        }
        /// Every reconnect asked for is done (each is decided and said before `ctl` has its
        /// answer) and the output publishes again.
        func settled() -> Bool {
            EventLog.waitFor(events, of: mp, timeout: 60) { _ in states(events).last?["state"] as? String == "publishing" }
        }
        func reconnect() throws -> RunningProcess { try CLI.start(["ctl", "--socket", socket, "reconnect"]) }

        XCTAssertTrue(waitForPublishing(events), mp.stderr)
        // One reconnect first: whatever a first reconnect sets up once is in the baseline.
        let first = try reconnect()
        XCTAssertTrue(first.waitForExit(timeout: 20))
        XCTAssertTrue(settled(), "\(states(events))")
        XCTAssertEqual(asked(), 1)
        let (fds, conns) = (fdCount(mp.pid), connections(of: mp.pid, to: rtmp.port))
        XCTAssertEqual(conns, 1, "one connection to nginx while publishing")

        for burst in 1...12 {
            let ctls = try (0..<5).map { _ in try reconnect() }
            for ctl in ctls {
                XCTAssertTrue(ctl.waitForExit(timeout: 20), "ctl reconnect answers (burst \(burst))")
                XCTAssertEqual(ctl.exitStatus, 0, ctl.stdout + ctl.stderr)
            }
        }
        XCTAssertTrue(settled(), "publishing again: \(states(events).last ?? [:])")
        // One at a time: those asked while a connect was under way were that connect.
        XCTAssertGreaterThanOrEqual(asked(), 2, "the first burst came while publishing: it reconnected")
        XCTAssertLessThan(asked(), 61)
        // Nor did one take down the connect another had just begun: no connect failed.
        let failures = states(events).filter { $0["state"] as? String != "publishing" && $0["error"] as? String != "asked to reconnect (ctl reconnect)" }
        XCTAssertEqual(failures.compactMap { $0["error"] as? String }, [], "every reconnect publishes again, none fails")
        // What a stopped pipeline gives back may come a moment after its stop returned:
        // waited for, with no slack.
        XCTAssertTrue(Ports.waitUntil(timeout: 20) { connections(of: mp.pid, to: rtmp.port) == conns && fdCount(mp.pid) == fds },
                      "back to \(conns) connection and \(fds) descriptors after \(asked()) reconnects: now "
                      + "\(connections(of: mp.pid, to: rtmp.port)) and \(fdCount(mp.pid))")
        mp.terminate()
        XCTAssertTrue(mp.waitForExit(timeout: 20))
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr)
    }

    /// The release itself, wherever in its connect a connection is superseded: forty
    /// connects, each torn down by the next as soon as it has begun (rtmp2sink resolving,
    /// in its TCP or RTMP handshake, or sending its `connect`, as it happens), then the
    /// last one once it is up. This process keeps no connection to nginx and no descriptor
    /// more. Before: a pipeline stopped once its `connect` was under way kept its socket
    /// and its main context's eventfd.
    func testAConnectionSupersededAnywhereInItsConnectLeavesNothingBehind() throws {
        GStreamer.initialize()
        let rtmp = try startRTMPServer()
        let output = Output(url: try OutputURL(rtmp.url(key: "superseded")), id: "0", hasVideo: true,
                            reconnect: ReconnectConfig(), onState: { _, _, _ in })
        // Finished as a run finishes its outputs: no retry of it outlives the test (and its server).
        defer { output.finish(timeout: 1) }
        let me = getpid()
        /// One connect, once it is up, torn down: whatever a first connect sets up once is in the baseline.
        func connectAndTearDown() {
            output.queue.sync { _ = output.connectOrFail() }
            XCTAssertTrue(Ports.waitUntil(timeout: 20) { connections(of: me, to: rtmp.port) == 1 }, "connected")
            output.queue.sync { output.teardown(superseded: true) }
        }
        connectAndTearDown()
        connectAndTearDown()
        XCTAssertTrue(Ports.waitUntil(timeout: 20) { connections(of: me, to: rtmp.port) == 0 })
        let fds = fdCount(me)
        for _ in 0..<40 { output.queue.sync { _ = output.connectOrFail() } }
        connectAndTearDown()
        XCTAssertTrue(Ports.waitUntil(timeout: 20) { connections(of: me, to: rtmp.port) == 0 && fdCount(me) == fds },
                      "back to no connection and \(fds) descriptors: now \(connections(of: me, to: rtmp.port)) and \(fdCount(me))")
    }

    /// Connects given up at their deadline (`reconnect.stall`) against a server that takes
    /// the TCP connection and says nothing (`silent`) and one that answers the RTMP
    /// handshake and then nothing (`handshake`: rtmp2sink is in its RTMP `connect` when it
    /// is stopped): after `give_up_after` and after each `ctl reconnect` of the failed
    /// outputs (one more connect each, given up again at its deadline), mediapub holds no
    /// connection to either, one to nginx, and the same descriptors each time.
    private func connectsGivenUpAtTheirDeadlineLeaveNothingBehind() throws {
        let dir = try makeTempDir()
        let rtmp = try startRTMPServer()
        let bad = try startBadRTMPServers()
        let mute = ["silent", "handshake"]
        let outputs = mute.map { "  - url: \"rtmp://127.0.0.1:\(bad[$0]!)/live/key\"\n    id: \($0)" }
        let events = dir.appendingPathComponent("events.jsonl")
        let socket = dir.appendingPathComponent("c.sock").path
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: [rtmp.url(key: "live")])
                                   + outputs.joined(separator: "\n")
                                   + "\nreconnect: {initial: 100ms, max: 100ms, stall: 1s, give_up_after: 1500ms}\n")
        let mp = try startMediaPub(["--preset", preset.path, "--realtime", "--events", events.path, "--control", socket])

        /// Each bad output has failed for good `times` times, and no more retries of it are under way.
        func givenUp(_ times: Int) -> Bool {
            EventLog.waitFor(events, of: mp, timeout: 60) { _ in
                mute.allSatisfy { id in
                    let mine = states(events, id)
                    return mine.filter { $0["state"] as? String == "failed" }.count >= times && mine.last?["state"] as? String == "failed"
                }
            }
        }
        func deadlines(_ id: String) -> Int {
            states(events, id).filter { ($0["error"] as? String ?? "").hasPrefix("connect: ") }.count
        }
        func clean(_ fds: Int) -> Bool {
            connections(of: mp.pid, to: rtmp.port) == 1 && fdCount(mp.pid) == fds
                && mute.allSatisfy { connections(of: mp.pid, to: bad[$0]!) == 0 }
        }
        func summary() -> String {
            "nginx \(connections(of: mp.pid, to: rtmp.port)), " + mute.map { "\($0) \(connections(of: mp.pid, to: bad[$0]!))" }.joined(separator: ", ")
                + ", \(fdCount(mp.pid)) descriptors"
        }

        XCTAssertTrue(givenUp(1), "\(states(events))")
        XCTAssertTrue(Ports.waitUntil(timeout: 20) { connections(of: mp.pid, to: rtmp.port) == 1 && mute.allSatisfy { connections(of: mp.pid, to: bad[$0]!) == 0 } },
                      "given up: no connection left to either server, one to nginx: \(summary())")
        let fds = fdCount(mp.pid)
        for round in 2...5 {
            let ctls = try mute.map { try CLI.start(["ctl", "--socket", socket, "reconnect", $0]) }
            for ctl in ctls {
                XCTAssertTrue(ctl.waitForExit(timeout: 20))
                XCTAssertEqual(ctl.exitStatus, 0, ctl.stdout + ctl.stderr)
            }
            XCTAssertTrue(givenUp(round), "\(states(events).suffix(6))")
            XCTAssertTrue(Ports.waitUntil(timeout: 20) { clean(fds) }, "round \(round): back to nginx 1, none to the others and \(fds) descriptors: \(summary())")
        }
        for id in mute {
            XCTAssertGreaterThanOrEqual(deadlines(id), 6, "\(id): each connect failed at its deadline: \(states(events, id))")
        }
        mp.terminate()
        XCTAssertTrue(mp.waitForExit(timeout: 20))
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr)
    }
}

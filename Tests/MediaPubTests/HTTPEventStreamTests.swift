// GET /api/events over real HTTP on loopback (docs/http.md), served by the HTTP server with
// its event stream fed in-process, as `Events` feeds it in a run: a client that reads
// nothing while 20,000 events go out loses its oldest and is told how many (every event is
// either received, in order, or counted); Last-Event-ID resumes from the ring of 1,000 (and
// counts what is no longer kept); an idle stream gets heartbeats; streams are capped (a new
// one closes the oldest); a command whose body stops short is closed at the request bound; and
// without a token configured a command is refused with 403.

import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif
@testable import MediaPub

final class HTTPEventStreamTests: XCTestCase {
    private func request(_ socket: TestSocket, _ head: String) {
        XCTAssertTrue(socket.send(head + "Host: 127.0.0.1\r\n\r\n"))
    }

    /// Reads the stream's lines until `done` says so (or `timeout`); returns the ids and the dropped counts seen.
    private func read(_ socket: TestSocket, timeout: Double = 30, until done: (_ ids: [UInt64], _ line: String) -> Bool)
        -> (ids: [UInt64], dropped: [Int], lines: [String]) {
        var ids: [UInt64] = [], dropped: [Int] = [], lines: [String] = []
        let deadline = Date().addingTimeInterval(timeout)
        while let line = socket.readLine(timeout: max(0, deadline.timeIntervalSinceNow)) {
            lines.append(line)
            if line.hasPrefix("id: "), let id = UInt64(line.dropFirst(4)) { ids.append(id) }
            if line.hasPrefix("data: {\"dropped\":"), let n = Int(line.dropFirst(17).dropLast()) { dropped.append(n) }
            if done(ids, line) { break }
        }
        return (ids, dropped, lines)
    }

    func testASlowClientLosesItsOldestIsToldHowManyResumesAndIsBounded() throws {
        let hub = EventStream()
        var site = HTTPSite()
        site.events = hub
        site.commands = CommandEndpoint(lanes: ControlLanes(), handle: { _ in .ok })
        var limits = MediaPub.HTTPServer.Limits.standard
        limits.heartbeat = 0.3
        limits.maxStreams = 4
        limits.requestTimeout = 1
        let port = try Ports.free()
        let server = try MediaPub.HTTPServer(spec: "127.0.0.1:\(port)", limits: limits, site: site)
        defer { server.stop() }

        // A client that reads nothing while 40 MB of events go out (more than the sockets hold).
        let slow = try TestSocket.tcp(port: port)
        request(slow, "GET /api/events HTTP/1.1\r\n")
        XCTAssertFalse(read(slow, timeout: 10) { _, line in line == ": mediapub events" }.lines.isEmpty)
        XCTAssertTrue(slow.readLine(timeout: 5) != nil)

        let total = 20_000
        let pad = String(repeating: "x", count: 2000)
        for n in 1...total { hub.publish(Data(#"{"event":"warning","n":\#(n),"pad":"\#(pad)"}"#.utf8)) }

        let got = read(slow) { ids, _ in ids.last == UInt64(total) }
        XCTAssertEqual(got.ids.last, UInt64(total), "the newest event arrives")
        XCTAssertEqual(got.ids, got.ids.sorted(), "in order")
        XCTAssertEqual(Set(got.ids).count, got.ids.count, "none twice")
        XCTAssertFalse(got.dropped.isEmpty, "the slow client is told it lost events")
        XCTAssertEqual(got.ids.count + got.dropped.reduce(0, +), total, "every event received or counted as dropped")
        print("slow client: \(got.ids.count) events received, \(got.dropped.reduce(0, +)) dropped in \(got.dropped.count) notices")

        // Idle now: heartbeats keep it alive.
        XCTAssertTrue(read(slow, timeout: 10) { _, line in line == ": heartbeat" }.lines.last == ": heartbeat")

        // Last-Event-ID resumes from the ring (the last 1,000 are kept).
        let recent = try TestSocket.tcp(port: port)
        request(recent, "GET /api/events HTTP/1.1\r\nLast-Event-ID: \(total - 10)\r\n")
        let resumed = read(recent, timeout: 10) { ids, _ in ids.last == UInt64(total) }
        XCTAssertEqual(resumed.ids, Array(UInt64(total - 9)...UInt64(total)))
        XCTAssertEqual(resumed.dropped, [])
        let old = try TestSocket.tcp(port: port)
        request(old, "GET /api/events HTTP/1.1\r\nLast-Event-ID: 5\r\n")
        let fromOld = read(old, timeout: 10) { ids, _ in ids.last == UInt64(total) }
        XCTAssertEqual(fromOld.dropped, [total - EventStream.ringSize - 5], "what is no longer kept is counted")
        XCTAssertEqual(fromOld.ids.first, UInt64(total - EventStream.ringSize + 1))
        XCTAssertEqual(fromOld.ids.count, EventStream.ringSize)

        // A fourth stream fits; a fifth closes the oldest (the slow client's) to make room.
        let fourth = try TestSocket.tcp(port: port)
        request(fourth, "GET /api/events HTTP/1.1\r\n")
        XCTAssertEqual(fourth.readLine(timeout: 10), "HTTP/1.1 200 OK\r")
        let fifth = try TestSocket.tcp(port: port)
        request(fifth, "GET /api/events HTTP/1.1\r\n")
        XCTAssertEqual(fifth.readLine(timeout: 10), "HTTP/1.1 200 OK\r")
        XCTAssertTrue(slow.closedByPeer(timeout: 10), "the oldest stream is closed")
        XCTAssertFalse(recent.closedByPeer(timeout: 0.5), "the others stay")

        // The request bound holds for a command's body: one that stops short of its length is closed.
        let dribble = try TestSocket.tcp(port: port)
        request(dribble, "POST /api/command HTTP/1.1\r\nContent-Length: 100\r\n")
        XCTAssertTrue(dribble.send("{\"command\":"))
        XCTAssertTrue(dribble.closedByPeer(timeout: 30), "a body not sent in time: the connection is closed")

        // No token configured: a command is refused (403), whatever it is.
        let post = try TestSocket.tcp(port: port)
        let body = #"{"command":"skip"}"#
        request(post, "POST /api/command HTTP/1.1\r\nAuthorization: Bearer anything\r\nContent-Length: \(body.utf8.count)\r\n")
        XCTAssertTrue(post.send(body))
        XCTAssertEqual(post.readLine(timeout: 10), "HTTP/1.1 403 Forbidden\r")
    }

    /// A client that reads nothing at all is let go once its socket has taken nothing for the
    /// idle time (1 s here, 30 s in a run): its stream is closed and forgotten.
    func testAClientThatReadsNothingIsLetGoAtTheIdleTime() throws {
        let hub = EventStream()
        var site = HTTPSite()
        site.events = hub
        var limits = MediaPub.HTTPServer.Limits.standard
        limits.idleTimeout = 1
        let port = try Ports.free()
        let server = try MediaPub.HTTPServer(spec: "127.0.0.1:\(port)", limits: limits, site: site)
        defer { server.stop() }
        let silent = try TestSocket.tcp(port: port)
        XCTAssertTrue(silent.send("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
        XCTAssertTrue(Ports.waitUntil(timeout: 10) { hub.clients == 1 })
        let pad = String(repeating: "x", count: 2000)
        for n in 1...20_000 { hub.publish(Data(#"{"event":"warning","n":\#(n),"pad":"\#(pad)"}"#.utf8)) }
        XCTAssertTrue(Ports.waitUntil(timeout: 30) { hub.clients == 0 }, "the silent stream is closed once its socket is stuck")
    }
}

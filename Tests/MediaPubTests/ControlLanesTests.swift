// One slow command blocks no other control client (docs/control.md, "Ordering"):
// `status` waits for no command, a player's commands run one at a time in order,
// and another player's commands go on meanwhile. A request nested too deep is
// refused unread. The server here runs a handler of the test's that holds each
// `load` until the test lets it go.

import Foundation
import XCTest
@testable import MediaPub

final class ControlLanesTests: XCTestCase {
    /// Before: commands ran one at a time on one queue, and `status` (and the other
    /// player's load) waited behind the held load for as long as it was held.
    func testStatusAndAnotherPlayerNeverWaitBehindAHeldLoad() throws {
        let dir = try makeTempDir()
        let path = dir.appendingPathComponent("l.sock").path
        let held = ["music": DispatchSemaphore(value: 0), "jingle": DispatchSemaphore(value: 0)]
        let log = Collector<String>()
        let server = try ControlServer(path: path) { words in
            guard words.first == "load", words.count == 3, let gate = held[words[1]] else { return .ok }
            log.add("start \(words[2])")
            gate.wait()
            log.add("end \(words[2])")
            return .ok
        }
        defer { server.stop() }
        func request(_ words: [String]) -> String { (JSONLine.text(["command": words]) ?? "") + "\n" }

        let first = try TestSocket.unix(path), other = try TestSocket.unix(path), second = try TestSocket.unix(path)
        XCTAssertTrue(first.send(request(["load", "music", "a.mp3"])))
        XCTAssertTrue(Ports.waitUntil(timeout: 20) { log.all.contains("start a.mp3") })
        XCTAssertTrue(second.send(request(["load", "music", "b.mp3"])))
        XCTAssertTrue(other.send(request(["load", "jingle", "c.mp3"])))
        XCTAssertTrue(Ports.waitUntil(timeout: 20) { log.all.contains("start c.mp3") },
                      "another player's load runs while music's is held: \(log.all)")

        let reader = try TestSocket.unix(path)
        for n in 0..<3 {
            XCTAssertTrue(reader.send(request(["status"])))
            XCTAssertEqual(reader.readLine(timeout: 20), #"{"ok":true}"#, "status \(n) is answered while both loads are held")
        }
        XCTAssertEqual(log.all.filter { $0.hasPrefix("end") }, [], "no load ended meanwhile")

        held["jingle"]?.signal()
        XCTAssertEqual(other.readLine(timeout: 20), #"{"ok":true}"#)
        held["music"]?.signal()
        XCTAssertEqual(first.readLine(timeout: 20), #"{"ok":true}"#)
        held["music"]?.signal()
        XCTAssertEqual(second.readLine(timeout: 20), #"{"ok":true}"#)
        let music = log.all.filter { $0.hasSuffix("a.mp3") || $0.hasSuffix("b.mp3") }
        XCTAssertEqual(music, ["start a.mp3", "end a.mp3", "start b.mp3", "end b.mp3"], "one player's loads run one at a time, in order")
    }

    /// Which commands wait for which: a player's commands share its lane, the run's their
    /// own, and `status` (or a word that is no command) waits for none.
    func testEachCommandHasItsLane() {
        XCTAssertEqual(ControlLane.of(["status"]), .read)
        XCTAssertEqual(ControlLane.of(["nonsense", "music"]), .read)
        XCTAssertEqual(ControlLane.of([]), .read)
        XCTAssertEqual(ControlLane.of(["load", "music", "x.mp3"]), .player("music"))
        XCTAssertEqual(ControlLane.of(["seek", "jingle", "90s"]), .player("jingle"))
        XCTAssertEqual(ControlLane.of(["pause", "music"]), .player("music"))
        XCTAssertEqual(ControlLane.of(["play_volume", "music", "50"]), .player("music"))
        XCTAssertEqual(ControlLane.of(["pause"]), .run)
        XCTAssertEqual(ControlLane.of(["publish", "off"]), .run)
        XCTAssertEqual(ControlLane.of(["reconnect", "music"]), .run, "an output's name is no player's")
        XCTAssertEqual(ControlLane.of(["quit"]), .run)
    }

    /// A `request_id` nested 500 deep cost seconds of CPU to decode; now it is refused
    /// before it is read, with a one-line error. Before: it was decoded and echoed.
    func testARequestNestedTooDeepIsRefusedUnread() throws {
        let deep = #"{"command":["status"],"request_id":"# + String(repeating: "[", count: 500) + String(repeating: "]", count: 500) + "}"
        let refusal = #"{"error":"request nested too deep (at most 32 levels of arrays and objects)","ok":false}"#
        XCTAssertEqual(ControlRequest.answer(deep, handle: { _ in .ok }), refusal)
        // As deep as allowed (the object and 31 lists), and brackets inside a string, are fine.
        let allowed = #"{"command":["status"],"request_id":"# + String(repeating: "[", count: 31) + String(repeating: "]", count: 31) + "}"
        XCTAssertEqual(ControlRequest.answer(allowed, handle: { _ in .ok }).prefix(12), #"{"ok":true,""#)
        let quoted = #"{"command":["status"],"request_id":"\"["# + String(repeating: "[", count: 40) + #""}"#
        XCTAssertEqual(ControlRequest.answer(quoted, handle: { _ in .ok }).prefix(12), #"{"ok":true,""#)

        let dir = try makeTempDir()
        let path = dir.appendingPathComponent("d.sock").path
        let server = try ControlServer(path: path) { _ in .ok }
        defer { server.stop() }
        let client = try TestSocket.unix(path)
        XCTAssertTrue(client.send(deep + "\n"))
        XCTAssertEqual(client.readLine(timeout: 20), refusal)
        XCTAssertTrue(client.send(#"{"command":["status"]}"# + "\n"))
        XCTAssertEqual(client.readLine(timeout: 20), #"{"ok":true}"#, "the client is served on")
    }
}

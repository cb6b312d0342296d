// Signal handlers and pad probes (Signals, Probes) come back as ids that can be
// disconnected, and a disconnected one leaves nothing behind: its boxed closure is
// released at once. Real GStreamer elements.

import CGStreamer
import Foundation
import Synchronization
import XCTest
@testable import MediaPub

final class SignalHandlerTests: XCTestCase {
    /// What each closure holds: alive as long as some handler's box keeps its closure.
    private final class Token: Sendable {}

    /// 2000 rounds of connecting every kind of handler and probe and disconnecting them:
    /// after each round, no closure of that round is held any more (counted: 0 rounds
    /// leave one behind), and GLib says none of the handlers is connected. Before, no id
    /// came back: a handler or a probe went only with its object.
    func testConnectedAndDisconnectedManyTimesNothingStays() throws {
        let bin = try XCTUnwrap(Element(factory: "uridecodebin"))
        let srtsink = try XCTUnwrap(Element(factory: "srtsink"))
        let identity = try XCTUnwrap(Element(factory: "identity"))
        let pad = try XCTUnwrap(identity.staticPad("sink"))
        var left = 0, stillConnected = 0
        for _ in 0..<2000 {
            weak var watched: Token?
            do {
                let token = Token()
                watched = token
                let handlers = [
                    Signals.onPadAdded(bin) { _ in _ = token },
                    Signals.onDeepElementAdded(bin) { _ in _ = token },
                    Signals.onSourceSetup(object: UnsafeMutableRawPointer(bin.raw)) { _ in _ = token },
                    Signals.onSRTCaller(srtsink) { _ in _ = token },
                ]
                let probes = [
                    Probes.onData(pad) { _ = token }, Probes.onBuffer(pad) { _ in _ = token },
                    Probes.onBytes(pad) { _ in _ = token }, Probes.onEndOfStream(pad) { _ = token },
                ]
                XCTAssertTrue(handlers.allSatisfy(\.isConnected))
                for handler in handlers { handler.disconnect(); handler.disconnect() }   // the second: nothing
                for probe in probes { probe.remove(); probe.remove() }
                stillConnected += handlers.filter(\.isConnected).count
            }
            if watched != nil { left += 1 }
        }
        print("2000 rounds of 4 handlers (5 ids) and 4 probes: \(left) rounds left a closure held, \(stillConnected) handlers still connected")
        XCTAssertEqual(left, 0)
        XCTAssertEqual(stillConnected, 0)

        // The measure sees a handler that stays: one not disconnected holds its closure
        // while its object lives, and lets it go with the object.
        weak var kept: Token?
        var element = Element(factory: "decodebin")
        do {
            let token = Token()
            kept = token
            Signals.onPadAdded(try XCTUnwrap(element)) { _ in _ = token }
        }
        XCTAssertNotNil(kept, "a handler not disconnected keeps its closure")
        XCTAssertNotNil(element)
        element = nil
        XCTAssertNil(kept, "and lets it go with its object")
    }

    /// A probe removed before data flows is never called; one left in place sees every buffer.
    func testARemovedProbeIsNeverCalled() throws {
        let pipeline = try Pipeline(parsing: "audiotestsrc num-buffers=20 ! identity name=id ! fakesink name=sink")
        let pad = try XCTUnwrap(pipeline.element(named: "id")?.staticPad("sink"))
        let end = try XCTUnwrap(pipeline.element(named: "sink")?.staticPad("sink"))
        let removedCalls = Counter(), keptCalls = Counter()
        let removed = Probes.onBuffer(pad) { _ in removedCalls.add() }
        Probes.onBuffer(pad) { _ in keptCalls.add() }
        removed.remove()
        let done = DispatchSemaphore(value: 0)
        Probes.onEndOfStream(end) { done.signal() }
        _ = try pipeline.setState(.playing)
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success, "end of stream reached the sink")
        pipeline.stop()
        XCTAssertEqual(removedCalls.value, 0)
        XCTAssertEqual(keptCalls.value, 20)
    }

    private final class Counter: Sendable {
        private let count = Mutex(0)
        func add() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }
}

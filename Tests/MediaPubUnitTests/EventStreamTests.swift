// The event stream's values (docs/http.md, GET /api/events): the ring of the last events with
// their numbers and what a resuming client missed, each client's bounded queue (oldest
// dropped, the count told once), the hub that queues for every client and wakes the server
// once per batch, the text sent; the log's ring and the bitrate history.

import Foundation
import Synchronization
import XCTest
@testable import MediaPub

final class EventStreamTests: XCTestCase {
    private func line(_ n: Int) -> Data { Data(#"{"event":"warning","n":\#(n)}"#.utf8) }

    func testTheRingKeepsTheNewestOldestFirst() {
        var ring = Ring<Int>(capacity: 3)
        XCTAssertNil(ring.append(1))
        ring.append(2); ring.append(3)
        XCTAssertEqual(ring.append(4), 1, "the oldest is dropped")
        XCTAssertEqual(ring.elements, [2, 3, 4])
        XCTAssertEqual(ring.suffix(2), [3, 4])
        XCTAssertEqual(ring.suffix(10), [2, 3, 4])
        XCTAssertEqual(ring.first, 2)
        XCTAssertEqual(ring.last, 4)
        for i in 5...1000 { ring.append(i) }
        XCTAssertEqual(ring.elements, [998, 999, 1000])
        XCTAssertEqual(ring.count, 3)
    }

    func testAResumingClientGetsWhatItMissedAndACountOfWhatIsNoLongerKept() {
        var ring = EventRing(capacity: 1000)
        for n in 1...1500 { _ = ring.append(line(n)) }
        // Kept: 501...1500.
        let recent = ring.since(1400)
        XCTAssertEqual(recent.missed, 0)
        XCTAssertEqual(recent.entries.map(\.id), Array(1401...1500))
        let old = ring.since(200)
        XCTAssertEqual(old.missed, 300, "201...500 are gone")
        XCTAssertEqual(old.entries.first?.id, 501)
        XCTAssertEqual(old.entries.count, 1000)
        XCTAssertEqual(ring.since(1500).entries, [])
        XCTAssertEqual(ring.since(99_999).missed, 0, "an id from another run: nothing missed, nothing replayed")
        XCTAssertEqual(ring.since(99_999).entries, [])
        // A client's header is outside input: the largest id is the latest, never a trap.
        XCTAssertEqual(ring.since(UInt64.max).missed, 0)
        XCTAssertEqual(ring.since(UInt64.max).entries, [])
        XCTAssertEqual(EventRing(capacity: 4).since(UInt64.max).entries, [])
        XCTAssertEqual(ring.since(0).missed, 500)
    }

    func testASlowClientLosesItsOldestAndIsToldHowManyOnce() {
        var queue = StreamQueue<Int>(capacity: 4)
        for i in 1...10 { queue.push(i) }
        let first = queue.take()
        XCTAssertEqual(first.dropped, 6)
        XCTAssertEqual(first.messages, [7, 8, 9, 10])
        queue.push(11)
        let second = queue.take()
        XCTAssertNil(second.dropped, "told once")
        XCTAssertEqual(second.messages, [11])
        XCTAssertEqual(queue.lost, 6)
        queue.drop(3)
        XCTAssertFalse(queue.isEmpty, "a count to tell is something to send")
        XCTAssertEqual(queue.take().dropped, 3)
        XCTAssertTrue(queue.isEmpty)
    }

    func testTheHubQueuesForEveryClientWakesOncePerBatchAndNeverGrows() {
        let hub = EventStream()
        let wakes = Mutex(0)
        hub.onQueued { wakes.withLock { $0 += 1 } }
        for n in 1...5 { hub.publish(line(n)) }
        XCTAssertEqual(wakes.withLock { $0 }, 0, "no client: nothing to wake")
        let a = hub.open(lastEventID: nil)
        let b = hub.open(lastEventID: 2)
        XCTAssertEqual(hub.take(a)?.entries.map(\.id), [], "a new stream starts from now")
        XCTAssertEqual(hub.take(b)?.entries.map(\.id), [3, 4, 5], "Last-Event-ID: 2 resumes at 3")
        for n in 6...3000 { hub.publish(line(n)) }
        XCTAssertEqual(wakes.withLock { $0 }, 1, "one wake until the server looks")
        hub.woken()
        hub.publish(line(3001))
        XCTAssertEqual(wakes.withLock { $0 }, 2)
        let slow = hub.take(a)
        XCTAssertEqual(slow?.entries.count, EventStream.queueSize)
        XCTAssertEqual(slow?.dropped, 3001 - 5 - EventStream.queueSize)
        XCTAssertEqual(slow?.entries.last?.id, 3001)
        hub.close(a)
        XCTAssertNil(hub.take(a))
        XCTAssertEqual(hub.clients, 1)
    }

    /// Events published on one thread while the server's thread takes them (the two sides of the
    /// hub's lock), 50 rounds: every event is taken once, in order, or counted as dropped.
    func testPublishingWhileTakingLosesNothingUncounted() {
        let rounds = 50, total = 1500
        var dropping = 0
        for _ in 0..<rounds {
            let hub = EventStream()
            let client = hub.open(lastEventID: nil)
            let done = DispatchSemaphore(value: 0)
            let lines = (1...total).map(line)
            Thread {
                for line in lines { hub.publish(line) }
                done.signal()
            }.start()
            var ids: [UInt64] = [], dropped = 0, finished = false
            while true {
                guard let (lost, entries) = hub.take(client) else { return XCTFail("the client is there") }
                dropped += lost ?? 0
                ids += entries.map(\.id)
                if finished && entries.isEmpty && lost == nil { break }
                if !finished { finished = done.wait(timeout: .now()) == .success }
            }
            XCTAssertEqual(ids, ids.sorted())
            XCTAssertEqual(Set(ids).count, ids.count)
            XCTAssertEqual(ids.count + dropped, total)
            XCTAssertEqual(ids.last, UInt64(total))
            if dropped > 0 { dropping += 1 }
        }
        print("publishing while taking: \(rounds) rounds of \(total) events, every one taken or counted (\(dropping) rounds dropped some)")
    }

    func testTheTextOfABatch() {
        let text = String(decoding: EventStream.text(dropped: 7, entries: [.init(id: 41, line: line(1)), .init(id: 42, line: line(2))]), as: UTF8.self)
        XCTAssertEqual(text, "event: dropped\ndata: {\"dropped\":7}\n\nid: 41\ndata: {\"event\":\"warning\",\"n\":1}\n\nid: 42\ndata: {\"event\":\"warning\",\"n\":2}\n\n")
    }

    func testTheLogRingKeepsTheLast2000LinesCut() {
        let ring = LogRing()
        for i in 1...2500 { ring.append("line \(i)") }
        XCTAssertEqual(ring.last(3), ["line 2498", "line 2499", "line 2500"])
        XCTAssertEqual(ring.last(5000).count, LogRing.capacity)
        XCTAssertEqual(ring.last(5000).first, "line 501")
        ring.append(String(repeating: "x", count: 10_000))
        XCTAssertEqual(ring.last(1).first?.utf8.count, LogRing.maxLine)
    }

    func testTheLoggerKeepsWhatItWroteMasked() {
        let log = Logger(level: .info, write: { _ in })
        log.info("published to \(SecretMask.mask(url: "rtmp://h/app/secretkey"))")
        log.debug("not at this level")
        XCTAssertEqual(log.recent.last(10).count, 1)
        XCTAssertFalse(log.recent.last(10)[0].contains("secretkey"))
    }

    func testTheBitrateHistoryKeepsFiveMinutesPerOutput() throws {
        var history = BitrateHistory()
        for s in 1...400 { history.sample([("rtmp", s), ("rec", 2 * s)], uptimeMs: s * 1000) }
        XCTAssertEqual(history.outputs.map(\.id), ["rtmp", "rec"])
        XCTAssertEqual(history.outputs[0].kbps.count, BitrateHistory.samples)
        XCTAssertEqual(history.outputs[0].kbps.first, 101)
        XCTAssertEqual(history.outputs[0].kbps.last, 400)
        let json = try XCTUnwrap(JSONLine.text(history))
        XCTAssertTrue(json.hasPrefix(#"{"interval_ms":1000,"outputs":[{"id":"rtmp","kbps":[101,"#), json)
        XCTAssertTrue(json.hasSuffix(#"],"uptime_ms":400000}"#), json)
    }
}

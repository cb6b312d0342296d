// What GStreamer's libraries say of their own goes through mediapub's logger
// (README, logging): GLib's repeated criticals and warnings are rate-limited, and
// a critical said on an RTMP output's sink's thread gives that connection up. The
// bookkeeping as pure values, then an "RTMP server" that answers random bytes.

import Foundation
import XCTest
@testable import MediaPub

final class LibraryCriticalsTests: XCTestCase {
    private let t0 = MonotonicInstant(nanoseconds: 1_000_000_000_000_000)
    private let assertion = "GLib-CRITICAL: gst_rtmp_chunk_stream_parse_payload: assertion 'cstream->map.size == cstream->meta->size' failed"

    /// The first of a kind is shown; the rest of its minute is counted and said as one
    /// line when the minute is over; a kind that stopped is shown again next time.
    func testARepeatedLineIsShownOnceThenCountedEachMinute() {
        var r = LogRepeats()
        XCTAssertTrue(r.note(assertion, at: t0))
        for i in 1...5_000 { XCTAssertFalse(r.note(assertion, at: t0 + Double(i) / 100)) }
        XCTAssertEqual(r.due(at: t0 + 59), [])
        XCTAssertEqual(r.nextDue, t0 + 60)
        XCTAssertEqual(r.due(at: t0 + 60), [LogRepeats.Summary(line: assertion, more: 5_000)])
        XCTAssertEqual(LogRepeats.Summary(line: "L", more: 3).text, "L (and 3 more like it in the last minute)")
        // Still repeating: counted in the next minute too.
        XCTAssertFalse(r.note(assertion, at: t0 + 61))
        XCTAssertEqual(r.due(at: t0 + 120), [LogRepeats.Summary(line: assertion, more: 1)])
        // A minute without it: forgotten, and shown again when it comes back.
        XCTAssertEqual(r.due(at: t0 + 180), [])
        XCTAssertNil(r.nextDue)
        XCTAssertEqual(r.count, 0)
        XCTAssertTrue(r.note(assertion, at: t0 + 200))
    }

    /// Lines that differ only in their numbers (a pointer, a size) are one kind; other
    /// lines are kinds of their own, up to the capacity, then all of them "other".
    func testKindsAreLinesWithoutTheirNumbersAndBounded() {
        XCTAssertEqual(LogRepeats.kind(of: "g_object_unref: assertion 'G_IS_OBJECT (0x55d995ea3740)' failed at 12"),
                       "g_object_unref: assertion 'G_IS_OBJECT (#)' failed at #")
        var r = LogRepeats(capacity: 3)
        XCTAssertTrue(r.note("a 0x1f", at: t0))
        XCTAssertFalse(r.note("a 0x2e", at: t0 + 1))
        XCTAssertTrue(r.note("b", at: t0 + 2))
        XCTAssertTrue(r.note("c", at: t0 + 3))
        XCTAssertTrue(r.note("d", at: t0 + 4), "the first beyond the capacity is shown")
        XCTAssertFalse(r.note("e", at: t0 + 5), "and the next ones beyond it are counted together")
        XCTAssertFalse(r.note("f", at: t0 + 6))
        XCTAssertEqual(r.count, 3)
        XCTAssertEqual(r.due(at: t0 + 70), [LogRepeats.Summary(line: LogRepeats.other + ", first: d", more: 2)])
        for i in 0..<1_000 { _ = r.note("line \(UUID())", at: t0 + 80 + Double(i)) }
        XCTAssertLessThanOrEqual(r.count, 3, "never grows")
    }

    /// A critical is told to the element whose task owns its thread, the first one only,
    /// once; one on a thread nobody owns is told to none; a thread taken by another task
    /// is that task's from then on.
    func testACriticalIsKeptForTheElementWhoseTaskSaidIt() {
        var c = ElementCriticals(capacity: 4)
        c.taskStarted(element: 100, thread: 7)
        XCTAssertFalse(c.critical("elsewhere", thread: 8))
        XCTAssertTrue(c.critical("first", thread: 7))
        XCTAssertTrue(c.critical("second", thread: 7))
        XCTAssertNil(c.take(element: 200))
        XCTAssertEqual(c.take(element: 100), "first")
        XCTAssertNil(c.take(element: 100), "taken once")
        c.taskStarted(element: 200, thread: 7)   // the pool's thread, now another sink's task
        XCTAssertTrue(c.critical("third", thread: 7))
        XCTAssertNil(c.take(element: 100))
        XCTAssertEqual(c.take(element: 200), "third")
        for i in 0..<1_000 { c.taskStarted(element: UInt(1_000 + i), thread: UInt(1_000 + i)); c.critical("x", thread: UInt(1_000 + i)) }
        XCTAssertNil(c.take(element: 1_000), "the oldest went: bounded")
        XCTAssertEqual(c.take(element: 1_999), "x")
    }

    /// A sink made at a freed sink's address starts with nothing kept for it (before: the
    /// old sink's untaken critical failed the new one at once), and a thread is a sink's only
    /// while its task runs there: after its last line, or once the sink is forgotten (its
    /// connection torn down), a critical on that thread (a pool thread now running something
    /// else, or a new thread given the same id) is nobody's.
    func testARecycledAddressOrThreadCarriesNoOldCritical() {
        var c = ElementCriticals(capacity: 4)
        c.taskStarted(element: 100, thread: 7)
        XCTAssertTrue(c.critical("old", thread: 7))   // never taken: its connection went first
        c.taskStarted(element: 100, thread: 9)        // a new sink at the same address
        XCTAssertNil(c.take(element: 100), "the old sink's critical is not the new one's")
        XCTAssertFalse(c.critical("on the old thread", thread: 7), "thread 7 is no longer 100's")
        c.taskEnded(thread: 9)
        XCTAssertFalse(c.critical("after its task", thread: 9), "its task ended: the thread is nobody's")
        XCTAssertNil(c.take(element: 100))
        c.taskStarted(element: 300, thread: 11)
        XCTAssertTrue(c.critical("x", thread: 11))
        c.forget(element: 300)
        XCTAssertNil(c.take(element: 300), "forgotten with its connection")
        XCTAssertFalse(c.critical("y", thread: 11), "and its thread with it")
        XCTAssertEqual(c, ElementCriticals(capacity: 4), "nothing left")
    }

    /// An "RTMP server" answering random bytes: rtmp2sink fails an assertion on them
    /// thousands of times a second. The connection is given up at the first critical
    /// (reconnecting, saying so, then failed after give_up_after), and each kind of
    /// critical is said once. Before: 565,377 GLib-CRITICAL lines (63 MB) in an 8 s run,
    /// and the output stayed connecting without a word until the connect deadline.
    func testAServerAnsweringNoiseGivesUpTheConnectionAtTheFirstCritical() throws {
        let dir = try makeTempDir()
        let port = try startNoiseRTMPServer()
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: ["rtmp://127.0.0.1:\(port)/live/key"],
                                                                  extra: "reconnect: {initial: 200ms, max: 500ms, stall: 10s, give_up_after: 2s}"))
        let r = try CLI.run(["--preset", preset.path, "--realtime", "--events", events.path], timeout: 60)
        XCTAssertEqual(r.status, 1, r.summary("every output failed"))
        let failures = try EventLog.read(events).filter {
            $0["event"] as? String == "output.state" && ["reconnecting", "failed"].contains($0["state"] as? String)
        }
        XCTAssertGreaterThanOrEqual(failures.count, 2, "\(failures)")
        for failure in failures {
            XCTAssertTrue((failure["error"] as? String ?? "").hasPrefix("the server's answer broke rtmp2sink: "), "\(failure)")
        }
        XCTAssertEqual(failures.last?["state"] as? String, "failed", "\(failures)")
        let criticals = r.stderr.split(separator: "\n").filter { $0.contains("-CRITICAL") }
        XCTAssertFalse(criticals.isEmpty, "rtmp2sink's criticals are said: \(r.stderr)")
        XCTAssertEqual(Set(criticals).count, criticals.count, "each kind once: \(criticals)")
        XCTAssertLessThan(r.stderr.utf8.count, 20_000, String(r.stderr.prefix(2000)))
    }
}

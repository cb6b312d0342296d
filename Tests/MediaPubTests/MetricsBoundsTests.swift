// The metrics endpoint serves clients side by side and bounds each one
// (docs/metrics.md): a client that dribbles its request head never holds up
// another's scrape, and is closed after the request timeout; many idle
// connections are capped.

import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class MetricsBoundsTests: XCTestCase {

    /// GET /metrics with python's urllib: "STATUS\nBODY".
    private func scrape(_ port: UInt16) throws -> ProcessResult {
        try Proc.run(try Tools.path("python3"), ["-c",
            "import urllib.request,sys; r=urllib.request.urlopen(sys.argv[1], timeout=15); sys.stdout.write(str(r.status)+'\\n'+r.read().decode())",
            "http://127.0.0.1:\(port)/metrics"], timeout: 30)
    }

    private func startRun(port: UInt16) throws -> RunningProcess {
        let dir = try makeTempDir()
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(name: "met", source: E2EPreset.testsrc, outputs: ["null://"]))
        let run = try startMediaPub(["--preset", preset.path, "--realtime", "--duration", "60s",
                                     "--metrics", "127.0.0.1:\(port)", "--events", events.path,
                                     "--control", dir.appendingPathComponent("c.sock").path])
        XCTAssertTrue(waitForPublishing(events), run.stderr)
        return run
    }

    /// A dribbling client, many idle connections and hundreds of scrapes, each its own
    /// run, folder, metrics port and control socket: the dribbling client's wait for its
    /// request to be overdue is spent on the other two. Each is checked as its own test did.
    func testADribblingClientDoesNotHoldUpAScrapeAndManyIdleOrHundredsOfScrapesLeaveNothingBehind() throws {
        let dribbling = try aDribblingClientDoesNotHoldUpAScrape()
        try manyIdleConnectionsAreCapped()
        try hundredsOfScrapesAreEachAnsweredAndLeaveNoConnectionBehind()
        try dribbling()
    }

    /// A client that sends one header line a second: another client's scrape
    /// is answered while it lingers (before: every scrape waited behind it),
    /// and the server closes it once its request is overdue. Its run is started and
    /// scraped while the client lingers; returned: the checks that it is closed and
    /// of the run's end.
    private func aDribblingClientDoesNotHoldUpAScrape() throws -> () throws -> Void {
        let port = try Ports.free()
        let run = try startRun(port: port)

        let slow = try TestSocket.tcp(port: port)
        XCTAssertTrue(slow.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n"))
        let stop = Flag()
        let dribbler = Thread {
            var n = 0
            while !stop.isSet, slow.send("X-Slow-\(n): still typing\r\n") {
                n += 1
                Thread.sleep(forTimeInterval: 1)
            }
        }
        dribbler.start()
        addTeardownBlock { stop.set() }

        let fast = try scrape(port)
        XCTAssertEqual(fast.status, 0, fast.summary("GET /metrics while a slow client lingers"))
        XCTAssertTrue(fast.stdout.hasPrefix("200\n"), fast.stdout)
        XCTAssertTrue(fast.stdout.contains("mediapub_uptime_seconds"), fast.stdout)
        XCTAssertFalse(slow.readable(timeout: 0), "the slow client is still connected and unanswered")

        return { [self] in
            defer { stop.set() }
            XCTAssertTrue(slow.closedByPeer(timeout: 30), "the dribbling client is closed once its request is overdue")
            XCTAssertEqual(try scrape(port).status, 0)
            run.terminate(SIGTERM)
            XCTAssertTrue(run.waitForExit(timeout: 15))
            XCTAssertEqual(run.result().status, 0, run.result().summary("mediapub"))
        }
    }

    /// 300 idle connections: a scrape is still answered and mediapub holds a
    /// bounded number of descriptors (before: the backlog filled and the scrape
    /// waited behind them).
    private func manyIdleConnectionsAreCapped() throws {
        try allowDescriptors(400)
        let port = try Ports.free()
        let run = try startRun(port: port)
        let before = fdCount(run.pid)
        var idle: [TestSocket] = []
        for _ in 0..<300 { idle.append(try TestSocket.tcp(port: port)) }
        let fast = try scrape(port)
        XCTAssertEqual(fast.status, 0, fast.summary("GET /metrics with 300 idle connections"))
        XCTAssertTrue(fast.stdout.contains("mediapub_uptime_seconds"), fast.stdout)
        let during = fdCount(run.pid)
        XCTAssertLessThan(during, before + 100, "descriptors of mediapub with 300 idle metrics clients (\(before) before)")
        idle.removeAll()
        run.terminate(SIGTERM)
        XCTAssertTrue(run.waitForExit(timeout: 15))
        XCTAssertEqual(run.result().status, 0, run.result().summary("mediapub"))
    }

    /// Scrapers that open a connection per scrape (curl, scripts): every one is answered,
    /// and no connection stays open after it (before: after 64 connections every other
    /// scrape got an empty reply, and each answered one left a CLOSE-WAIT descriptor).
    private func hundredsOfScrapesAreEachAnsweredAndLeaveNoConnectionBehind() throws {
        let port = try Ports.free()
        let run = try startRun(port: port)
        let before = fdCount(run.pid)
        let r = try Proc.run(try Tools.path("python3"), ["-c", """
            import http.client, sys, collections
            codes = collections.Counter()
            for _ in range(200):
                c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=10)
                try:
                    c.request("GET", "/metrics"); r = c.getresponse(); r.read(); codes[r.status] += 1
                except Exception as e:
                    codes[type(e).__name__] += 1
                c.close()
            print(dict(codes))
            """, "\(port)"], timeout: 120)
        XCTAssertEqual(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "{200: 200}", r.summary("200 scrapes"))
        XCTAssertTrue(Ports.waitUntil(timeout: 10) { self.fdCount(run.pid) <= before + 5 },
                      "descriptors back to \(before) ± 5, now \(fdCount(run.pid))")
        run.terminate()
        XCTAssertTrue(run.waitForExit(timeout: 20))
    }
}

/// A flag one thread sets and another reads.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
    func set() { lock.lock(); value = true; lock.unlock() }

}

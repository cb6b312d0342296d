import XCTest
@testable import MediaPub

/// The reconnect policy without threads or servers: backoff with jitter, give-up
/// (`never` included), the slow end for refusals, and stale connections.
final class ReconnectSupervisionTests: XCTestCase {
    private let t0 = MonotonicInstant(nanoseconds: 1_000_000_000_000_000)

    private func supervision(_ config: ReconnectConfig, retries: Bool = true) -> OutputSupervision {
        OutputSupervision(reconnect: config, retries: retries, now: t0)
    }

    func testJitterStaysWithinTwentyPercentAndClampsItsRandom() {
        let r = ReconnectConfig(initial: 2, max: 60, giveUpAfter: 600)
        for attempt in 1...8 {
            let base = min(60, 2 * pow(2, Double(attempt - 1)))
            for random in stride(from: 0.0, to: 1.0, by: 0.05) {
                let d = r.delay(attempt: attempt, random: random)
                XCTAssertGreaterThanOrEqual(d, base * 0.8 - 1e-9)
                XCTAssertLessThanOrEqual(d, base * 1.2 + 1e-9)
            }
        }
        XCTAssertEqual(r.delay(attempt: 1, random: -5), 1.6, accuracy: 1e-9, "a random below 0 counts as 0")
        XCTAssertEqual(r.delay(attempt: 1, random: 7), 2.4, accuracy: 1e-9, "a random above 1 counts as 1")
        XCTAssertEqual(r.delay(attempt: -3, random: 0.5), 2, "no negative exponent")
    }

    func testFailuresBackOffAndGiveUpAfterTheirTime() {
        var s = supervision(ReconnectConfig(initial: 1, max: 30, giveUpAfter: 10))
        _ = s.connected(at: t0)
        var delays: [TimeInterval] = []
        for second in [0.0, 1, 3, 7] {
            guard case .reported(.reconnecting, let failed, let retry?) = s.fail("x", at: t0 + second, random: 0.5) else {
                return XCTFail("retried at \(second) s")
            }
            delays.append(retry)
            XCTAssertTrue(s.retryDue(after: failed))
            _ = s.connected(at: t0 + second)
        }
        XCTAssertEqual(delays, [1, 2, 4, 8])
        XCTAssertEqual(s.reconnects, 4)
        guard case .reported(.failed, _, nil) = s.fail("down", at: t0 + 10, random: 0.5) else {
            return XCTFail("gives up 10 s after the first failure")
        }
        XCTAssertEqual(s.state, .failed)
        XCTAssertEqual(s.lastError, "down")
    }

    func testGiveUpAfterNeverRetriesForever() {
        var s = supervision(ReconnectConfig(initial: 1, max: 30, giveUpAfter: .infinity))
        // Every retry connects and fails again a second later, for 1000 retries (11 hours).
        for retry in 0..<1000 {
            let at = t0 + Double(retry) * 40
            _ = s.connected(at: at)
            guard case .reported(.reconnecting, let failed, let delay?) = s.fail("x", at: at + 1, random: 0.5)
            else { return XCTFail("gave up at retry \(retry)") }
            XCTAssertEqual(delay, min(30, pow(2, Double(retry))))
            XCTAssertTrue(s.retryDue(after: failed))
        }
        XCTAssertEqual(s.firstFailure, t0 + 1)
    }

    func testARefusalWaitsOnTheSlowEndOfTheBackoff() {
        var s = supervision(ReconnectConfig(initial: 1, max: 30, giveUpAfter: 600))
        guard case .reported(.reconnecting, _, let retry?) = s.fail("key", rejected: true, at: t0, random: 0.5) else { return XCTFail() }
        XCTAssertEqual(retry, 30)
    }

    func testAConnectionThatHeldStartsTheBackoffOver() {
        var s = supervision(ReconnectConfig(initial: 1, max: 30, giveUpAfter: 100))
        _ = s.connected(at: t0)
        for second in [0.0, 1, 2] { _ = s.fail("x", at: t0 + second, random: 0.5) }
        XCTAssertEqual(s.attempt, 3)
        _ = s.connected(at: t0 + 3)
        guard case .reported(.reconnecting, _, let retry?) = s.fail("x", at: t0 + 3 + 31, random: 0.5) else {
            return XCTFail("the give-up clock starts over too")
        }
        XCTAssertEqual(retry, 1)
        XCTAssertEqual(s.firstFailure, t0 + 34)
    }

    func testARecordingThatFailsHasFailed() {
        var s = supervision(ReconnectConfig(), retries: false)
        guard case .reported(.failed, _, nil) = s.fail("disk full", at: t0, random: 0.5) else { return XCTFail() }
        guard case .over = s.fail("again", at: t0, random: 0.5) else { return XCTFail("reported once") }
    }

    func testWhatATornDownConnectionSaysIsStale() {
        var s = supervision(ReconnectConfig())
        let old = s.connected(at: t0)
        XCTAssertTrue(s.publishing(connection: old))
        XCTAssertTrue(s.reconnectRequested(), "ctl reconnect")
        XCTAssertEqual(s.state, .reconnecting)
        guard case .stale = s.fail("late words", connection: old, at: t0, random: 0.5) else { return XCTFail() }
        XCTAssertFalse(s.publishing(connection: old))
        let new = s.connected(at: t0)
        XCTAssertTrue(s.publishing(connection: new))
        XCTAssertFalse(s.publishing(connection: new), "publishing is news once")
        XCTAssertNil(s.lastError)
    }

    func testAPendingRetryIsSupersededByCtlReconnect() {
        var s = supervision(ReconnectConfig())
        _ = s.connected(at: t0)
        guard case .reported(_, let failed, _) = s.fail("x", at: t0, random: 0.5) else { return XCTFail() }
        XCTAssertTrue(s.reconnectRequested())
        XCTAssertFalse(s.retryDue(after: failed))
        XCTAssertEqual(s.reconnects, 1)
        XCTAssertEqual(s.attempt, 0)
    }

    func testFailingWhileFinishingIsReportedFailedAtTheEnd() {
        var s = supervision(ReconnectConfig())
        let c = s.connected(at: t0)
        _ = s.publishing(connection: c)
        XCTAssertEqual(s.beginFinishing(), .publishing)
        XCTAssertFalse(s.reconnectRequested())
        guard case .over = s.fail("No space left", at: t0, random: 0.5) else { return XCTFail() }
        let end = s.stop()
        XCTAssertEqual(end.state, .failed)
        XCTAssertEqual(end.why, "No space left")
    }

    func testFinishingCleanlyStops() {
        var s = supervision(ReconnectConfig())
        _ = s.beginFinishing()
        let end = s.stop()
        XCTAssertEqual(end.state, .stopped)
        XCTAssertNil(end.why)
    }
}

import XCTest
@testable import MediaPub

/// The stall watchdog's decision: nothing acknowledged for `stall` while data goes
/// out, on a publishing output, is a stall; anything else is not.
final class StallWatchTests: XCTestCase {
    private let t0 = MonotonicInstant(nanoseconds: 1_000_000_000_000_000)

    /// Readings once a second from `t0 + 1`; the seconds at which a stall was decided.
    private func stalls(limit: TimeInterval, seconds: Int, acknowledged: (Int) -> Bool = { _ in false },
                        sending: (Int) -> Bool = { _ in true }, publishing: Bool = true) -> [Int] {
        var watch = StallWatch(limit: limit, now: t0)
        return (1...seconds).filter { second in
            watch.observe(acknowledged: acknowledged(second), sending: sending(second), publishing: publishing,
                          at: t0 + Double(second))
        }
    }

    func testSilenceWhileSendingIsAStallAfterTheLimit() {
        XCTAssertEqual(stalls(limit: 4, seconds: 5), [4, 5])
    }

    func testAnyAcknowledgementRestartsTheCount() {
        XCTAssertEqual(stalls(limit: 4, seconds: 12, acknowledged: { $0 == 3 }), [7, 8, 9, 10, 11, 12])
        XCTAssertEqual(stalls(limit: 4, seconds: 12, acknowledged: { $0 % 3 == 0 }), [])
    }

    func testNothingSentIsNoStall() {
        // An encoder that produces nothing (paused, ended) leaves the peer nothing to acknowledge.
        XCTAssertEqual(stalls(limit: 2, seconds: 10, sending: { _ in false }), [])
        XCTAssertEqual(stalls(limit: 2, seconds: 10, sending: { $0 == 7 }), [7])
    }

    func testOnlyAPublishingOutputStalls() {
        XCTAssertEqual(stalls(limit: 2, seconds: 10, publishing: false), [])
    }

    func testRestartCountsFromThen() {
        var watch = StallWatch(limit: 3, now: t0)
        XCTAssertTrue(watch.observe(acknowledged: false, sending: true, publishing: true, at: t0 + 3))
        watch.restart(at: t0 + 3)   // a new connection
        XCTAssertFalse(watch.observe(acknowledged: false, sending: true, publishing: true, at: t0 + 5))
        XCTAssertTrue(watch.observe(acknowledged: false, sending: true, publishing: true, at: t0 + 6))
        XCTAssertEqual(watch.lastAck, t0 + 3)
    }
}

import Foundation
import XCTest
@testable import MediaPub

/// The monotonic clock's instants (docs/design.md, Threads and queues: every duration is
/// timed on it): arithmetic as `Date`'s, and an endless deadline that saturates instead of
/// wrapping into the past.
final class MonotonicInstantTests: XCTestCase {
    private let t0 = MonotonicInstant(nanoseconds: 1_000_000_000_000_000)

    func testIntervalsAddAndCompareAsDatesDo() {
        XCTAssertEqual(t0.addingTimeInterval(1.5).timeIntervalSince(t0), 1.5)
        XCTAssertEqual((t0 + 2).timeIntervalSince(t0 - 3), 5)
        XCTAssertEqual(t0.timeIntervalSince(t0 + 0.25), -0.25)
        XCTAssertLessThan(t0, t0 + 1e-9)
        XCTAssertEqual(t0 + 0.5, t0.addingTimeInterval(0.5))
        XCTAssertEqual(max(t0, t0 + 1, t0 - 1), t0 + 1)
    }

    func testAnEndlessDeadlineIsTheFarFutureNeverAWrappedPast() {
        XCTAssertEqual(t0.addingTimeInterval(.infinity).nanoseconds, .max)
        XCTAssertEqual(t0.addingTimeInterval(9e18).nanoseconds, .max)
        XCTAssertLessThan(t0.addingTimeInterval(-.infinity), MonotonicInstant(nanoseconds: 0))
        XCTAssertEqual(MonotonicInstant(nanoseconds: -1).addingTimeInterval(-.infinity).nanoseconds, .min)
        XCTAssertEqual(t0.addingTimeInterval(.nan), t0)
        XCTAssertGreaterThan(MonotonicInstant(nanoseconds: .max).timeIntervalSince(MonotonicInstant(nanoseconds: .min)), 1.8e10)
    }

    /// Now moves forward, and `timeIntervalSinceNow` is a deadline's time left.
    func testNowMovesForward() {
        let a = MonotonicInstant.now
        let b = MonotonicInstant.now
        XCTAssertLessThanOrEqual(a, b)
        XCTAssertGreaterThan(a.addingTimeInterval(60).timeIntervalSinceNow, 50)
        XCTAssertLessThan(a.addingTimeInterval(-60).timeIntervalSinceNow, -60)
    }
}

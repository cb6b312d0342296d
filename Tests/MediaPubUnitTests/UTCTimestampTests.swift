// Event and JSON log timestamps (docs/events.md, `ts`): ISO 8601 UTC with milliseconds.

import Foundation
import XCTest
@testable import MediaPub

final class UTCTimestampTests: XCTestCase {

    /// Leap days, century rules, the epoch from both sides, and the clamp.
    func testKnownInstants() {
        let cases: [(Double, String)] = [
            (0, "1970-01-01T00:00:00.000Z"),
            (-0.0005, "1969-12-31T23:59:59.999Z"),
            (-86_400, "1969-12-31T00:00:00.000Z"),
            (951_782_400, "2000-02-29T00:00:00.000Z"),
            (1_709_164_800.5, "2024-02-29T00:00:00.500Z"),
            (4_107_456_000, "2100-02-28T00:00:00.000Z"),
            (4_107_542_400, "2100-03-01T00:00:00.000Z"),
            (1_798_761_599.999, "2026-12-31T23:59:59.999Z"),
            (-62_135_596_800, "0001-01-01T00:00:00.000Z"),
            (253_402_300_799, "9999-12-31T23:59:59.000Z"),
            (1e300, "9999-12-31T23:59:59.999Z"),
            (-.infinity, "1970-01-01T00:00:00.000Z"),
            (.nan, "1970-01-01T00:00:00.000Z"),
        ]
        for (t, expected) in cases {
            XCTAssertEqual(UTCTimestamp.string(Date(timeIntervalSince1970: t)), expected, "\(t)")
        }
    }

    /// The same text as Foundation's ISO8601FormatStyle (which loads ICU's time
    /// zones to give it) for 20000 instants from 1900 to 2200, milliseconds included.
    func testFoundationsISO8601TextForAnyInstant() {
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let t = Double.random(in: -2_208_988_800 ... 7_258_118_400, using: &generator)
            let date = Date(timeIntervalSince1970: t)
            XCTAssertEqual(UTCTimestamp.string(date), style.format(date), "\(t)")
        }
        for day in stride(from: -25_567, through: 84_000, by: 1) {  // every day's midnight, 1900..2199
            let date = Date(timeIntervalSince1970: Double(day) * 86_400)
            XCTAssertEqual(UTCTimestamp.string(date), style.format(date), "day \(day)")
        }
    }
}

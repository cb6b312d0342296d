// ClockTime: GStreamer's nanosecond times as a value, nil for NONE;
// arithmetic that never traps on outside input, and GST_TIME_FORMAT printing.

import CGStreamer
import CGStreamerShim
import XCTest
@testable import MediaPub

final class ClockTimeTests: XCTestCase {
    private let ns = { (n: UInt64) in ClockTime(nanoseconds: n) }

    func testNoneIsNil() {
        XCTAssertNil(ClockTime(GstClockTime.max), "GST_CLOCK_TIME_NONE")
        XCTAssertEqual(ClockTime(GstClockTime(5)), ns(5))
        let unknown: ClockTime? = nil
        XCTAssertEqual(unknown.raw, GstClockTime.max)
        XCTAssertEqual(Optional(ns(7)).raw, 7)
    }

    func testSecondsAndMillisecondsNeverTrap() {
        XCTAssertEqual(ClockTime(seconds: 1.5), ns(1_500_000_000))
        XCTAssertEqual(ClockTime(seconds: -3), .zero)
        XCTAssertEqual(ClockTime(seconds: .nan), .zero)
        XCTAssertEqual(ClockTime(seconds: .infinity), .max)
        XCTAssertEqual(ClockTime(seconds: 1e300), .max)
        XCTAssertEqual(ClockTime(milliseconds: 250), ns(250_000_000))
        XCTAssertEqual(ClockTime(milliseconds: -1), .zero)
        XCTAssertEqual(ns(1_999_999_999).milliseconds, 1999, "truncated")
        XCTAssertEqual(ns(2_500_000_000).seconds, 2.5)
    }

    func testArithmeticSaturates() {
        XCTAssertEqual(ns(3) + ns(4), ns(7))
        XCTAssertEqual(ns(10) - ns(4), ns(6))
        XCTAssertEqual(ns(4) - ns(10), .zero, "never below zero")
        XCTAssertEqual(ns(UInt64.max - 1) + ns(10), ns(UInt64.max - 1), "never NONE")
        var t = ns(1)
        t += .second
        XCTAssertEqual(t, ns(1_000_000_001))
        XCTAssertLessThan(ns(1), ns(2))
    }

    func testScalingKeepsPrecision() {
        XCTAssertEqual(ClockTime.ofSamples(44100, rate: 44100), .second)
        XCTAssertEqual(ClockTime.ofSamples(1, rate: 48000), ns(20_833))
        XCTAssertEqual(ClockTime.ofSamples(1024, rate: 0), ns(1024 * 1_000_000_000), "rate 0 counts as 1")
        XCTAssertEqual(ns(40_000_000).scaled(by: 1, 2), ns(20_000_000))
        // 10 years of samples at 48 kHz: the product overflows 64 bits, the result does not.
        let tenYears: UInt64 = 10 * 365 * 86_400 * 48_000
        XCTAssertEqual(ClockTime.ofSamples(tenYears, rate: 48000), ns(10 * 365 * 86_400 * 1_000_000_000))
        XCTAssertEqual(ns(5).scaled(by: 3, 0), ns(5), "a zero denominator leaves it")
    }

    func testPrintsAsGStreamerDoes() {
        XCTAssertEqual(ClockTime.zero.description, "0:00:00.000000000")
        XCTAssertEqual(ns(3_723_000_000_042).description, "1:02:03.000000042")
        XCTAssertEqual(ClockTime(milliseconds: 1500).description, "0:00:01.500000000")
    }
}

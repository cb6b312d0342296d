import XCTest
@testable import MediaPub

final class PresetMediaTimeTests: XCTestCase {
    func testParseDurationTable() {
        let table: [(String, TimeInterval?)] = [
            ("500ms", 0.5), ("2s", 2), ("10m", 600), ("1h", 3600), ("1h30m", 5400), ("1h30m15s", 5415),
            ("01:30:00", 5400), ("1:30", 90), ("90", 90), ("2.5s", 2.5), ("0", 0), ("0s", 0),
            ("1m30s", 90), ("1.5h", 5400), ("100ms", 0.1), ("00:00:01.5", 1.5), (" 2s ", 2), ("2S", 2),
            ("", nil), ("abc", nil), ("-1s", nil), ("2x", nil), ("1s1h", nil), ("1:70", nil),
            ("1:2:3:4", nil), ("s", nil), ("1..2s", nil), ("1e3", nil), ("ms", nil), ("1h1h", nil),
        ]
        for (text, expected) in table {
            XCTAssertEqual(MediaTime.parseDuration(text), expected, "parseDuration(\(text))")
        }
    }

    /// Durations have one upper bound, 87600h (10 years), so that every
    /// conversion to ms, ns or ticks fits; longer is `.tooLong`, not a number.
    func testDurationsAreBoundedToTenYears() {
        XCTAssertEqual(MediaTime.maxDuration, 87_600 * 3600)
        XCTAssertEqual(try MediaTime.duration("87600h").get(), 87_600 * 3600)
        XCTAssertEqual(MediaTime.parseDuration("87600h"), 87_600 * 3600)
        XCTAssertEqual(MediaTime.parseDuration("2h"), 7200)
        for text in ["87600h1ms", "87601h", "99999999999999h", "6000000h", "999999999999999999h", "9999999999999999h",
                     "315360001", "5256001m", String(repeating: "9", count: 400), String(repeating: "9", count: 400) + "h",
                     "9999999999999999:00:00"] {
            XCTAssertNil(MediaTime.parseDuration(text), text)
            XCTAssertEqual(MediaTime.duration(text), .failure(.tooLong), text)
        }
        for text in ["", "abc", "-1s", "1e3", "nan", "inf", "infinity", "1e400h"] {
            XCTAssertEqual(MediaTime.duration(text), .failure(.notADuration), text)
        }
        XCTAssertEqual(MediaTime.DurationError.tooLong.message, "longer than the maximum 87600h (10 years)")
    }

    func testParseBitrateTable() {
        let table: [(String, Int?)] = [
            ("128k", 128_000), ("2.5M", 2_500_000), ("128000", 128_000), ("2500k", 2_500_000),
            ("1G", 1_000_000_000), ("128K", 128_000), ("2500kbps", 2_500_000), ("1.1M", 1_100_000),
            ("", nil), ("k", nil), ("abc", nil), ("-5k", nil), ("12q", nil), ("1.2.3k", nil),
        ]
        for (text, expected) in table {
            XCTAssertEqual(MediaTime.parseBitrate(text), expected, "parseBitrate(\(text))")
        }
    }

    func testFormatDuration() {
        XCTAssertEqual(MediaTime.formatDuration(2), "2s")
        XCTAssertEqual(MediaTime.formatDuration(0.5), "500ms")
        XCTAssertEqual(MediaTime.formatDuration(5400), "1h30m")
        XCTAssertEqual(MediaTime.formatDuration(90), "1m30s")
        XCTAssertEqual(MediaTime.formatDuration(600), "10m")
        XCTAssertEqual(MediaTime.formatDuration(0), "0s")
        XCTAssertEqual(MediaTime.formatDuration(2.5), "2500ms")
        XCTAssertEqual(MediaTime.formatDuration(.infinity), "never")
    }

    func testFormatDurationRoundTrips() {
        for t: TimeInterval in [0, 0.1, 0.25, 1, 1.5, 2, 59, 61, 90.5, 3599, 3600, 5415, 86400, 0.0001, 1.0 / 3] {
            let text = MediaTime.formatDuration(t)
            XCTAssertEqual(MediaTime.parseDuration(text), t, "\(t) → \(text)")
        }
    }

    func testFormatBitrateRoundTrips() {
        XCTAssertEqual(MediaTime.formatBitrate(2_500_000), "2500k")
        XCTAssertEqual(MediaTime.formatBitrate(2_000_000), "2M")
        XCTAssertEqual(MediaTime.formatBitrate(128_000), "128k")
        XCTAssertEqual(MediaTime.formatBitrate(128_500), "128500")
        for b in [0, 1, 999, 1000, 16_000, 128_000, 2_500_000, 50_000_000, 123_456] {
            XCTAssertEqual(MediaTime.parseBitrate(MediaTime.formatBitrate(b)), b)
        }
    }
}

final class ReconnectDelayTests: XCTestCase {
    func testBackoffDoublesToItsMaximumWithTwentyPercentJitter() {
        let r = ReconnectConfig(initial: 1, max: 30, giveUpAfter: .infinity)
        XCTAssertEqual((1...7).map { r.delay(attempt: $0, random: 0.5) }, [1, 2, 4, 8, 16, 30, 30])
        XCTAssertEqual(r.delay(attempt: 3, random: 0), 3.2, accuracy: 1e-9)
        XCTAssertEqual(r.delay(attempt: 3, random: 0.999999), 4.8, accuracy: 1e-5)
        XCTAssertEqual(r.delay(attempt: 1_000_000, random: 0.5), 30, "no overflow however long it has failed")
        XCTAssertEqual(r.delay(attempt: 0, random: 0.5), 1)
    }
}

import XCTest
@testable import MediaPub

/// What status and metrics count of an output (docs/status.md): `bytes_sent` is what
/// reached a connection, `bytes_acked` never exceeds it, both add up over reconnects.
final class OutputStatsTests: XCTestCase {
    func testNothingConnectedIsZeroAndZero() {
        var stats = Output.Stats()
        stats.handed = 50_000   // pushed into a connection that never got anywhere
        stats.connectionEnded()
        XCTAssertEqual(stats.sent, 0)
        XCTAssertEqual(stats.acked, 0)
    }

    func testAcknowledgedNeverExceedsSentAndBothAddUpOverReconnects() {
        var stats = Output.Stats()
        stats.connection(written: 1000, acknowledged: 800)
        stats.connection(written: 1500, acknowledged: 1600)   // read a moment apart: the server's own count ran ahead
        XCTAssertEqual(stats.sent, 1500)
        XCTAssertEqual(stats.acked, 1500)
        stats.connection(written: 1400, acknowledged: 1000)   // never down
        XCTAssertEqual(stats.sent, 1500)
        XCTAssertEqual(stats.acked, 1500)
        stats.connectionEnded()
        stats.connectionEnded()   // once only
        stats.connection(written: 300, acknowledged: 100)   // a new connection counts from zero, on top
        XCTAssertEqual(stats.sent, 1800)
        XCTAssertEqual(stats.acked, 1600)
    }

    func testSamplesDeliveredAddUp() {
        var stats = Output.Stats()
        stats.delivered(100)
        stats.delivered(-5)
        stats.delivered(50)
        XCTAssertEqual(stats.sent, 150)
        XCTAssertEqual(stats.acked, 0)
    }

    func testBitrateIsOfWhatWasSent() {
        var stats = Output.Stats()
        let start = MonotonicInstant.now
        stats.delivered(250_000)
        let rate = stats.bitrateKbps(at: start.addingTimeInterval(2))   // 2 Mbit over 2 s and the moment before `start`
        XCTAssertTrue((990...1000).contains(rate), "\(rate)")
        stats.delivered(1_000_000)
        XCTAssertEqual(stats.bitrateKbps(at: start.addingTimeInterval(3)), rate, "measured again every 2 s")
    }
}

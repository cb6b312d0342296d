// How `/health` on the metrics server (docs/metrics.md) judges a run: the pure
// judgement; the endpoint itself is HealthTests, end to end.

import Foundation
import XCTest
@testable import MediaPub

/// How `/health` judges a run from its status and its timeline's last tick.
final class HealthJudgementTests: XCTestCase {
    private func output(_ id: String, _ url: String, _ state: OutputState, error: String? = nil) -> OutputStatus {
        OutputStatus(id: id, url: url, state: state, bytesSent: 0, reconnects: 0, bitrateKbps: 0, error: error)
    }

    private func status(_ state: RunState, _ outputs: [OutputStatus]) -> RunStatus {
        RunStatus(name: "t", state: state, uptimeMs: 60_000, publishing: true, outputTimeMs: 59_000, players: [], outputs: outputs)
    }

    func testHealthyWhileTheTimelineAdvancesAndAnOutputPublishesOrWrites() {
        let rtmp = "rtmp://live.example.com/app/****"
        let down = output("0", rtmp, .reconnecting, error: "connection refused")
        XCTAssertEqual(Health.of(status(.running, [down, output("1", "file:///rec/a.mp4", .publishing)]), secondsSinceLastTick: 0.04), .healthy)
        XCTAssertEqual(Health.of(status(.running, [output("archive", "file:///rec/a.mp4", .publishing)]), secondsSinceLastTick: 1), .healthy)
        XCTAssertEqual(Health.of(status(.running, [down, output("1", "srt://h:9000?passphrase=****", .failed)]), secondsSinceLastTick: 0.04).reason,
                       "no output is publishing: 0 (\(rtmp)) is reconnecting: connection refused; 1 (srt://h:9000?passphrase=****) is failed")
        XCTAssertEqual(Health.of(status(.running, [output("0", rtmp, .connecting)]), secondsSinceLastTick: 0.04).reason,
                       "no output is publishing: 0 (\(rtmp)) is connecting")
    }

    func testUnhealthyWhenTheTimelineStandsStillOrTheRunIsNotRunning() {
        let publishing = [output("0", "rtmp://live.example.com/app/****", .publishing)]
        XCTAssertEqual(Health.of(status(.running, publishing), secondsSinceLastTick: Health.timelineStall + 2).reason,
                       "the output timeline has not advanced for 7 s")
        XCTAssertEqual(Health.of(status(.running, publishing), secondsSinceLastTick: nil).reason, "the output timeline has not started")
        XCTAssertEqual(Health.of(status(.starting, publishing), secondsSinceLastTick: 0.1).reason, "the run is starting")
        XCTAssertEqual(Health.of(status(.stopping, publishing), secondsSinceLastTick: 0.1).reason, "the run is stopping")
        let body = Health.of(status(.stopping, publishing), secondsSinceLastTick: 0.1).body
        XCTAssertEqual(body, "{\"ok\":false,\"reason\":\"the run is stopping\"}\n")
    }
}

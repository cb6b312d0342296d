import Foundation
import XCTest
@testable import MediaPub
@testable import MediaPubTestSupport

/// `/metrics` rendered from a status value: names, types, labels and values.
final class MetricsExpositionTests: XCTestCase {
    private func family(_ name: String, _ help: String, _ type: String, _ samples: [String]) -> String {
        "# HELP mediapub_\(name) \(help)\n# TYPE mediapub_\(name) \(type)\n" + samples.map { "mediapub_\(name)\($0)\n" }.joined()
    }

    func testExpositionOfAFullStatus() {
        let rtmp = #"{output="0",url="rtmp://h/app/****"}"#, srt = #"{output="srt",url="srt://h:9000"}"#
        let expected = [
            family("uptime_seconds", "Seconds since the run started.", "gauge", [" 81.234"]),
            family("output_time_seconds", "Seconds of output timeline produced.", "counter", [" 81.0"]),
            family("publishing", "The publishing flag (1 on, 0 standby).", "gauge", [" 1.0"]),
            family("player_position_seconds", "Position in the current item.", "gauge", [#"{player="music"} 12.0"#]),
            family("player_state", "1 for the player's current state.", "gauge", [#"{player="music",state="playing"} 1.0"#]),
            family("output_bytes_sent_total", "Bytes that reached a connection of the output (docs/status.md, bytes_sent).", "counter", [rtmp + " 1843200.0", srt + " 2048.0"]),
            family("output_bitrate_kbps", "Recent bitrate of the output.", "gauge", [rtmp + " 2610.0", srt + " 0.0"]),
            family("output_reconnects_total", "Reconnections of the output.", "counter", [rtmp + " 0.0", srt + " 3.0"]),
            family("output_state", "1 for the output's current state.", "gauge",
                   [#"{output="0",url="rtmp://h/app/****",state="publishing"} 1.0"#, #"{output="srt",url="srt://h:9000",state="reconnecting"} 1.0"#]),
            family("output_bytes_acked_total", "Of the bytes sent, those the server acknowledged (RTMP, Icecast).", "counter",
                   [srt + " 1024.0"]),
            family("output_error_info", "1, with the output's last error, while it is reconnecting or failed.", "gauge",
                   [#"{output="srt",url="srt://h:9000",error="stalled"} 1.0"#]),
            family("output_srt_rtt_milliseconds", "Round-trip time to the SRT peer.", "gauge", [srt + " 12.5"]),
            family("output_srt_acks_total", "Acknowledgements the SRT peer sent.", "counter", [srt + " 10.0"]),
            family("output_srt_packets_lost_total", "Packets the SRT peer reported lost.", "counter", [srt + " 2.0"]),
            family("output_srt_packets_retransmitted_total", "Packets sent again.", "counter", [srt + " 3.0"]),
            family("output_srt_packets_dropped_total", "Packets dropped as too late to send.", "counter", [srt + " 1.0"]),
            family("output_srt_callers", "The callers (viewers) an SRT listener has connected now.", "gauge", [srt + " 2.0"]),
            family("schedule_block_info", "1 for the programme's block on air; none while filler plays.", "gauge",
                   [#"{block="news"} 1.0"#]),
            family("schedule_late_seconds", "How late the programme's block on air went on air.", "gauge", [" 0.04"]),
            family("schedule_next_start_seconds", "Seconds until the programme's next block starts.", "gauge",
                   [#"{block="music"} 3579.0"#]),
            family("live_state", "1 for the live feed's current state.", "gauge", [#"{state="on_air"} 1.0"#]),
            family("live_on_air_seconds", "How long the live feed has been on air in its current (or last) spell.", "gauge", [" 12.0"]),
            family("live_delay_seconds", "The live feed's delay through its jitter buffer.", "gauge", [" 0.24"]),
            family("live_frames_dropped_total", "The live feed's pictures dropped on air to follow its sound.", "counter", [" 3.0"]),
            family("live_frames_repeated_total", "The live feed's pictures repeated on air to follow its sound.", "counter", [" 4.0"]),
            family("live_bitrate_bits_per_second", "What the live feed's source gave over the last second.", "gauge", [" 1500000.0"]),
            family("alerts_total", "Alerts raised by the checks of monitor.", "counter",
                   [#"{kind="silence"} 2.0"#, #"{kind="black"} 1.0"#, #"{kind="frozen"} 0.0"#]),
            family("alert_active", "1 while an alert of the kind is in progress.", "gauge",
                   [#"{kind="silence"} 0.0"#, #"{kind="black"} 1.0"#, #"{kind="frozen"} 0.0"#]),
            family("output_loudness_momentary_lufs", "The output's momentary loudness (400 ms).", "gauge", [" -22.4"]),
            family("output_loudness_short_term_lufs", "The output's short-term loudness (3 s).", "gauge", [" -23.1"]),
            family("output_loudness_integrated_lufs", "The output's integrated loudness since the run began.", "gauge", []),
            family("limiter_gain_reduction_db", "The true-peak limiter's deepest gain reduction over the last 100 ms.", "gauge", [" 1.5"]),
            family("timeline_lag_seconds", "How far the realtime output timeline is behind its time (0: on time).", "gauge", [" 0.012"]),
            family("events_dropped_total", "Lines a consumer (an events file, stdout, the webhook, the log) lost by falling behind.",
                   "counter", [#"{consumer="stdout"} 120.0"#, #"{consumer="log"} 0.0"#]),
        ].joined()
        XCTAssertEqual(MetricsExposition.render(TypedSamples.status, drops: TypedSamples.drops), expected)
    }

    func testEveryFamilyIsThereBeforeItHasSamples() {
        let empty = RunStatus(name: "n", state: .starting, uptimeMs: 0, publishing: false, outputTimeMs: 0, players: [], outputs: [])
        let lines = MetricsExposition.render(empty).split(separator: "\n")
        XCTAssertEqual(lines.filter { $0.hasPrefix("# TYPE ") }.count, 34)
        XCTAssertEqual(lines.filter { !$0.hasPrefix("#") }, ["mediapub_uptime_seconds 0.0", "mediapub_output_time_seconds 0.0", "mediapub_publishing 0.0"])
    }

    func testLabelValuesAreEscaped() {
        var status = TypedSamples.status
        status.outputs = [OutputStatus(id: #"a"b\c"#, url: "/r/x.mp4", state: .stopped, bytesSent: 0, reconnects: 0,
                                       bitrateKbps: 0, error: "a \"b\"\nc", srt: nil, bytesAcked: nil)]
        let text = MetricsExposition.render(status)
        XCTAssertTrue(text.contains(#"mediapub_output_state{output="a\"b\\c",url="/r/x.mp4",state="stopped"} 1.0"#))
        XCTAssertTrue(text.contains(#"error="a \"b\"\nc"} 1.0"#), text)
    }
}

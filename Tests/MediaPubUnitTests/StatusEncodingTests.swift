import Foundation
import XCTest
@testable import MediaPub
@testable import MediaPubTestSupport

/// `status` encodes to exactly the object docs/status.md shows: keys as there, null
/// for an unknown duration or tag, optional output fields left out.
final class StatusEncodingTests: XCTestCase {
    func testFullStatusEncodesExactly() {
        let expected = #"{"alerts":{"active":[{"action":"standby","began_at":"2026-03-29T10:01:00.000Z","began_ms":60000,"#
            + #""kind":"black","output_ms":70000,"player":"tv","source":"/srv/film.mp4"}],"black":1,"frozen":0,"silence":2},"#
            + #""live":{"bitrate_kbps":1500,"delay_ms":240,"frames_dropped":3,"frames_repeated":4,"mode":"auto","on_air_ms":12000,"source":"srt://:9001?mode=listener&passphrase=****","state":"on_air"},"#
            + #""loudness":{"integrated_lufs":null,"limiter_reduction_db":1.5,"momentary_lufs":-22.4,"short_term_lufs":-23.1,"target_lufs":-23},"#
            + #""name":"bgm","output_time_ms":81000,"outputs":["#
            + #"{"bitrate_kbps":2610,"bytes_sent":1843200,"id":"0","reconnects":0,"state":"publishing","url":"rtmp://h/app/****"},"#
            + #"{"bitrate_kbps":0,"bytes_acked":1024,"bytes_sent":2048,"callers":2,"error":"stalled","id":"srt","reconnects":3,"#
            + #""srt":{"acks_received":10,"dropped":1,"packets_lost":2,"packets_sent":100,"retransmitted":3,"rtt_ms":12.5},"#
            + #""state":"reconnecting","url":"srt://h:9000"}],"#
            + #""overlays":[{"id":"logo","image":"/srv/logo.png","on_standby":true,"opacity":70,"since_ms":0,"text":null,"visible":true}],"#
            + #""players":[{"aux":true,"duration_ms":null,"id":"music","index":1,"mute_local":false,"#
            + #""now_playing":{"album":null,"artist":"A","title":"T"},"pitch":-3,"play_volume":100,"position_ms":12000,"#
            + #""publish_volume":40,"repeat":false,"source":"/m/b.flac","speed":1.5,"state":"playing"}],"#
            + #""publishing":true,"schedule":{"block":"news","item":"/srv/news.mp4","late_ms":40,"#
            + #""next":[{"at":"2026-03-29 13:00:00 +02:00","block":"music","in_ms":3579000}],"#
            + #""now":"2026-03-29 12:00:21 +02:00","offset_ms":21000,"scheduled_at":"2026-03-29 12:00:00 +02:00","#
            + #""timezone":"Europe/Paris"},"state":"running","timeline":{"lag_ms":12},"uptime_ms":81234}"#
        XCTAssertEqual(JSONLine.text(TypedSamples.status), expected)
    }

    func testStatusReplyWrapsIt() {
        let status = RunStatus(name: "n", state: .starting, uptimeMs: 0, publishing: false, outputTimeMs: 0, players: [], outputs: [])
        XCTAssertEqual(JSONLine.text(ControlReply.status(status)),
                       #"{"ok":true,"status":{"name":"n","output_time_ms":0,"outputs":[],"players":[],"publishing":false,"state":"starting","uptime_ms":0}}"#)
    }

    func testStatusDecodesBackToTheSameJSON() throws {
        let text = try XCTUnwrap(JSONLine.text(TypedSamples.status))
        let decoded = try XCTUnwrap(JSONLine.decode(RunStatus.self, from: text))
        XCTAssertEqual(JSONLine.text(decoded), text)
        XCTAssertEqual(decoded.players, [TypedSamples.player])
        XCTAssertEqual(decoded.outputs[1].srt, TypedSamples.srt)
    }

    func testANumberThatIsNotFiniteIsNoJSON() {
        var status = TypedSamples.status
        status.players[0].speed = .nan
        XCTAssertNil(JSONLine.text(status), "refused, never written as invalid JSON")
    }
}

import Foundation
import XCTest
@testable import MediaPub
@testable import MediaPubTestSupport

/// Each event encodes to exactly the JSON line mediapub has always written
/// (keys sorted, null where a value is unknown, optional errors left out).
final class EventEncodingTests: XCTestCase {
    private func line(_ event: Event) -> String? {
        JSONLine.text(StampedEvent(ts: "T", event: event))
    }

    func testEveryEventEncodesExactly() {
        let expected = [
            #"{"event":"run.state","name":"bgm","state":"running","ts":"T"}"#,
            #"{"error":"boom","event":"player.state","player":"music","state":"error","ts":"T"}"#,
            #"{"duration_ms":184000,"event":"player.progress","player":"music","position_ms":1500,"ts":"T"}"#,
            #"{"duration_ms":184000,"event":"player.track","gain_db":-5.8,"index":2,"loudness_lufs":-17.2,"player":"music","source":"/srv/a.flac","tags":{"album":"Album","artist":"Artist","title":"Song"},"ts":"T"}"#,
            #"{"event":"publishing","publishing":false,"ts":"T"}"#,
            #"{"error":"stalled: x","event":"output.state","output":"archive","state":"reconnecting","ts":"T","url":"rtmp://h/app/****"}"#,
            #"{"event":"warning","message":"w","ts":"T"}"#,
            #"{"event":"error","message":"e","ts":"T"}"#,
            #"{"event":"run.stopped","exit_code":0,"reason":"content ended","ts":"T"}"#,
            #"{"block":"news","event":"schedule.block","joined_at_ms":21000,"late_ms":40,"scheduled_at":"2026-03-29 12:00:00 +02:00","state":"started","ts":"T"}"#,
            #"{"event":"live.state","reason":"nothing from the feed for 3s","source":"srt://:9001?mode=listener","state":"released","ts":"T"}"#,
            #"{"action":"standby","began_at":"2026-03-29T10:01:00.000Z","began_ms":60000,"event":"alert","kind":"black","output_ms":70000,"player":"tv","source":"/srv/film.mp4","ts":"T"}"#,
            #"{"action":"next","began_at":"2026-03-29T10:00:05.000Z","began_ms":5000,"event":"cleared","kind":"silence","output_ms":15000,"player":"music","source":"/srv/a.flac","ts":"T"}"#,
            #"{"event":"overlay","name":"logo","output_ms":12040,"state":"hidden","ts":"T"}"#,
            #"{"event":"timeline.late","lag_ms":1240,"output_ms":30000,"ts":"T"}"#,
            #"{"event":"timeline.caught_up","late_for_ms":3100,"output_ms":33400,"ts":"T","worst_lag_ms":2050}"#,
        ]
        XCTAssertEqual(TypedSamples.events.map(line), expected)
        XCTAssertEqual(TypedSamples.events.map(\.name), Event.names, "one sample per event, in the order of Event.names")
    }

    func testUnknownValuesAreNullAndAbsentErrorsAreLeftOut() {
        XCTAssertEqual(line(.playerState(player: "p", state: .playing, error: nil)),
                       #"{"event":"player.state","player":"p","state":"playing","ts":"T"}"#)
        XCTAssertEqual(line(.playerProgress(player: "p", positionMs: 0, durationMs: nil)),
                       #"{"duration_ms":null,"event":"player.progress","player":"p","position_ms":0,"ts":"T"}"#)
        XCTAssertEqual(line(.playerTrack(player: "p", index: 0, source: "s", durationMs: nil, tags: NowPlaying())),
                       #"{"duration_ms":null,"event":"player.track","index":0,"player":"p","source":"s","tags":{"album":null,"artist":null,"title":null},"ts":"T"}"#)
        XCTAssertEqual(line(.playerTrack(player: "p", index: 0, source: "s", durationMs: 1, tags: NowPlaying(),
                                         loudness: TrackLoudness((nil, -14)))),
                       #"{"duration_ms":1,"event":"player.track","gain_db":-14,"index":0,"loudness_lufs":null,"player":"p","source":"s","tags":{"album":null,"artist":null,"title":null},"ts":"T"}"#)
        XCTAssertEqual(line(.outputState(output: "0", url: "/r/a.mp4", state: .publishing, error: nil)),
                       #"{"event":"output.state","output":"0","state":"publishing","ts":"T","url":"/r/a.mp4"}"#)
        XCTAssertEqual(line(.runStopped(reason: "every output failed", exitCode: 1)),
                       #"{"event":"run.stopped","exit_code":1,"reason":"every output failed","ts":"T"}"#)
    }

    func testTextIsEscapedAsJSONWithSlashesAsTheyAre() {
        XCTAssertEqual(line(.warning("a \"b\"\\c/d\n")), #"{"event":"warning","message":"a \"b\"\\c/d\n","ts":"T"}"#)
    }

    func testEveryEventDecodesBackToItself() throws {
        for event in TypedSamples.events + [.playerProgress(player: "p", positionMs: 1, durationMs: nil)] {
            let text = try XCTUnwrap(line(event))
            XCTAssertEqual(JSONLine.decode(Event.self, from: text), event, text)
        }
        XCTAssertNil(JSONLine.decode(Event.self, from: #"{"event":"nope"}"#))
    }

    /// Events stamps each line with `ts` and hands listeners the same object the
    /// destinations get; stamps never go back.
    func testEventsStampsInOrder() throws {
        let events = Events()
        let heard = Collector<String>()
        events.addListener { heard.add(String(decoding: $0, as: UTF8.self)) }
        for i in 0..<50 { events.emit(.playerProgress(player: "p", positionMs: i, durationMs: nil)) }
        let stamps = try heard.all.map { line -> String in
            let event = try XCTUnwrap(JSONLine.decode(JSONValue.self, from: line))
            guard case .string(let ts)? = event["ts"] else { throw CocoaError(.coderValueNotFound) }
            XCTAssertTrue(line.hasPrefix(#"{"duration_ms":null,"event":"player.progress","#), line)
            return ts
        }
        XCTAssertEqual(stamps.count, 50)
        XCTAssertEqual(stamps, stamps.sorted(), "ts never goes back")
        XCTAssertTrue(stamps.allSatisfy { $0.hasSuffix("Z") && $0.count == 24 }, "\(stamps[0])")
    }
}

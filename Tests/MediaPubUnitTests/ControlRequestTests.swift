import Foundation
import XCTest
@testable import MediaPub

/// A control request line → its words (as JSON gives them) and its answer line
/// (`ok`, `error`, `request_id` echoed); no socket.
final class ControlRequestTests: XCTestCase {
    private func words(_ line: String) -> Result<[String], ControlFailure>? {
        ControlRequest(line: line)?.words
    }

    func testWordsAreStringsNumbersOrBooleans() {
        XCTAssertEqual(words(#"{"command":["volume","music",40]}"#), .success(["volume", "music", "40"]))
        XCTAssertEqual(words(#"{"command":["speed","music",1.5]}"#), .success(["speed", "music", "1.5"]))
        XCTAssertEqual(words(#"{"command":["mute-local","music",true]}"#), .success(["mute-local", "music", "on"]))
        XCTAssertEqual(words(#"{"command":["aux","music",false]}"#), .success(["aux", "music", "off"]))
        XCTAssertEqual(words(#"{"command":"seek","args":["music","90s"]}"#), .success(["seek", "music", "90s"]))
        XCTAssertEqual(words(#"{"command":"status","args":"ignored"}"#), .success(["status"]))
        XCTAssertEqual(words(#"{"command":[]}"#), .success([]))
    }

    func testWhatIsNotACommand() {
        XCTAssertEqual(words(#"{"command":["status",{"a":1}]}"#), .failure(ControlFailure("command words are strings or numbers, not an object")))
        XCTAssertEqual(words(#"{"command":["status",[1]]}"#), .failure(ControlFailure("command words are strings or numbers, not a list")))
        XCTAssertEqual(words(#"{"command":["status",null]}"#), .failure(ControlFailure("command words are strings or numbers, not null")))
        XCTAssertEqual(words(#"{"command":7}"#), .failure(ControlFailure(#"missing "command" (e.g. {"command":["status"]})"#)))
        XCTAssertEqual(words(#"{}"#), .failure(ControlFailure(#"missing "command" (e.g. {"command":["status"]})"#)))
        XCTAssertNil(ControlRequest(line: "[1]"))
        XCTAssertNil(ControlRequest(line: "status"))
        XCTAssertNil(ControlRequest(line: #"{"command":["status"]"#))
    }

    func testAnswersEchoTheRequestID() {
        let ok: ([String]) -> ControlReply = { _ in .ok }
        XCTAssertEqual(ControlRequest.answer(#"{"command":["quit"]}"#, handle: ok), #"{"ok":true}"#)
        XCTAssertEqual(ControlRequest.answer(#"{"command":["quit"],"request_id":7}"#, handle: ok), #"{"ok":true,"request_id":7}"#)
        XCTAssertEqual(ControlRequest.answer(#"{"command":["quit"],"request_id":{"b":[1,"x/y"],"a":null}}"#, handle: ok),
                       #"{"ok":true,"request_id":{"a":null,"b":[1,"x/y"]}}"#)
        XCTAssertEqual(ControlRequest.answer(#"{"command":{},"request_id":"r"}"#, handle: ok),
                       #"{"error":"missing \"command\" (e.g. {\"command\":[\"status\"]})","ok":false,"request_id":"r"}"#)
        XCTAssertEqual(ControlRequest.answer("nonsense", handle: ok),
                       #"{"error":"not a JSON object: send one object a line, e.g. {\"command\":[\"status\"]}","ok":false}"#)
    }

    /// `mediapub ctl load` waits longer than the server's bound on a load, so a slow
    /// load reads `"state":"loading"` (the server's answer), never "no answer within 10s".
    func testTheClientWaitsLongerForALoadThanTheServerTakes() {
        XCTAssertGreaterThan(ControlServer.answerWait(for: ["load", "main", "x.mp3"]), ControlServer.loadWait + 1)
        XCTAssertEqual(ControlServer.answerWait(for: ["status"]), 10)
    }

    func testReplies() {
        XCTAssertEqual(JSONLine.text(ControlReply.ok), #"{"ok":true}"#)
        XCTAssertEqual(JSONLine.text(ControlReply.failure("seek: no")), #"{"error":"seek: no","ok":false}"#)
        XCTAssertEqual(JSONLine.text(ControlReply.position(ms: 90000)), #"{"ok":true,"position_ms":90000}"#)
        XCTAssertEqual(JSONLine.text(ControlReply.loading), #"{"ok":true,"state":"loading"}"#)
        XCTAssertEqual(JSONLine.text(ControlReply.loaded(.playing, durationMs: nil)), #"{"duration_ms":null,"ok":true,"state":"playing"}"#)
        XCTAssertEqual(JSONLine.text(ControlReply.loaded(.ended, durationMs: 1000)), #"{"duration_ms":1000,"ok":true,"state":"ended"}"#)
    }
}

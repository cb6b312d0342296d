import Foundation
import XCTest
@testable import MediaPub

/// `mediapub probe` prints exactly the object it printed as a dictionary: null for an
/// unknown duration, a stream's absent fields left out, indented with keys sorted.
final class ProbeResultTests: XCTestCase {
    func testEncodesKeysAndNulls() throws {
        let result = ProbeResult(source: "/m/a b.mp3", durationMs: nil, seekable: false, streams: [
            .init(type: "video", codec: "H.264", caps: "video/x-h264", width: 320, height: 240, fps: 29.97002997002997),
            .init(type: "audio", codec: "MP3", sampleRate: 44100, channels: 2),
        ], tags: ["title": "T"])
        XCTAssertEqual(JSONLine.text(result),
                       #"{"duration_ms":null,"seekable":false,"source":"/m/a b.mp3","streams":["#
                       + #"{"caps":"video/x-h264","codec":"H.264","fps":29.97002997002997,"height":240,"type":"video","width":320},"#
                       + #"{"channels":2,"codec":"MP3","sample_rate":44100,"type":"audio"}],"tags":{"title":"T"}}"#)
    }

    func testPrintedIndentedWithSlashesAsTheyAre() throws {
        let result = ProbeResult(source: "/m/x.wav", durationMs: 1500, seekable: true,
                                 streams: [.init(type: "audio", sampleRate: 48000)], tags: [:])
        let text = String(decoding: try result.json(), as: UTF8.self)
        XCTAssertTrue(text.contains(#""source" : "/m/x.wav""#), text)
        XCTAssertTrue(text.contains(#""duration_ms" : 1500"#), text)
        XCTAssertEqual(try JSONDecoder().decode(ProbeResult.self, from: result.json()), result)
    }
}

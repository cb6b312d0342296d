// Custom capture: a preset without `video:` produces an audio-only
// stream, even when the source has a picture.

import Foundation
import XCTest

final class AudioOnlyOutputTests: XCTestCase {

    func testPresetWithoutVideoRecordsAnAudioOnlyFile() throws {
        let dir = try makeTempDir()
        try TestMedia.makeColorVideo(in: dir, name: "src.mp4", seconds: 3, color: "red", freq: 440)
        for ext in ["mp4", "ts"] {
            let out = dir.appendingPathComponent("out.\(ext)")
            let yaml = PlayerPreset.audioOnly(players: [PlayerPreset.player("main", source: "src.mp4")],
                                              output: out)
            let r = try runPreset(yaml, in: dir, name: "\(ext).yaml")
            XCTAssertEqual(r.status, 0, r.summary("mediapub audio-only \(ext)"))
            let p = try MediaProbe.probe(out.path)
            XCTAssertEqual(p.codecNames, ["aac"], "only an AAC stream in the \(ext): \(p.rawJSON)")
            XCTAssertEqual(p.audio?.sampleRate, 44100)
            XCTAssertEqual(p.audio?.channels, 2)
            XCTAssertEqual(p.duration ?? 0, 3, accuracy: 0.2, "\(ext): \(p.rawJSON)")
            let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
            XCTAssertEqual(MediaProbe.dominantFrequency(pcm, rate: 16000) ?? 0, 440, accuracy: 10, ext)
        }
    }
}

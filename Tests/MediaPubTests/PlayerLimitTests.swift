// Players (docs/presets.md, Players): up to four players; a fifth is refused — by the
// library (Broadcast init throws) and by the preset loader (exit 2, naming
// the file, line and key).

import Foundation
import XCTest
@testable import MediaPub

final class PlayerLimitTests: XCTestCase {

    func testFifthPlayerIsRefusedByTheLibrary() throws {
        let dir = try makeTempDir()
        try TestMedia.makeAudio(in: dir, name: "tone.wav", seconds: 1, freq: 440, ext: "wav")
        let source = dir.appendingPathComponent("tone.wav").path
        let four = (1...4).map { PlayerConfig(id: "p\($0)", source: source) }
        var opts = RunOptions()
        opts.outputs = [try OutputURL("null://")]
        // Four are accepted...
        XCTAssertNoThrow(try Broadcast(preset: Preset(name: "four", video: nil, players: four), options: opts,
                                       log: Logger(level: .warn), events: Events()))
        // ...a fifth is refused with tooManyPlayers.
        let five = four + [PlayerConfig(id: "p5", source: source)]
        XCTAssertThrowsError(try Broadcast(preset: Preset(name: "five", video: nil, players: five), options: opts,
                                           log: Logger(level: .warn), events: Events())) { error in
            XCTAssertEqual(error as? MediaPubError, .tooManyPlayers(4), "\(error)")
            XCTAssertTrue("\(error)".contains("4"), "the message gives the limit: \(error)")
        }
    }

    func testFifthPlayerInAPresetIsAPresetError() throws {
        let dir = try makeTempDir()
        try TestMedia.makeAudio(in: dir, name: "tone.wav", seconds: 1, freq: 440, ext: "wav")
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.audioOnly(players: (1...5).map { PlayerPreset.player("p\($0)", source: "tone.wav") }, output: out)
        let r = try runPreset(yaml, in: dir, name: "five.yaml")
        XCTAssertEqual(r.status, 2, r.summary("mediapub with five players"))
        XCTAssertTrue(r.stderr.contains("five.yaml:") && r.stderr.contains("players"), "names file and key:\n\(r.stderr)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), "nothing was started")
    }
}

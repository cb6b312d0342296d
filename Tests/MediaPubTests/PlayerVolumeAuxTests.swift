// Players (docs/presets.md, Players: `publish_volume:`, `aux:`): the publish volume
// scales the player's level in the stream, aux off keeps it out of the mix.
// Verified on the recording with ffmpeg volumedetect and Goertzel tone levels.

import Foundation
import XCTest

final class PlayerVolumeAuxTests: XCTestCase {

    func testPublishVolumeFiftyPercentLowersTheLevelBySixDecibels() throws {
        let dir = try makeTempDir()
        try TestMedia.makeAudio(in: dir, name: "tone.wav", seconds: 4, freq: 440, ext: "wav")
        var levels: [Int: (mean: Double, tone: Double)] = [:]
        for volume in [100, 50] {
            let out = dir.appendingPathComponent("out-\(volume).mp4")
            let yaml = PlayerPreset.audioOnly(players: [PlayerPreset.player("main", source: "tone.wav",
                                                                            ["publish_volume: \(volume)"])], output: out)
            let r = try runPreset(yaml, in: dir, name: "v\(volume).yaml")
            XCTAssertEqual(r.status, 0, r.summary("mediapub publish_volume \(volume)"))
            let vd = try MediaProbe.volumeDetect(out.path)
            let pcm = MediaProbe.slice(try MediaProbe.decodePCM(out.path, rate: 16000), rate: 16000, from: 0.5, to: 3.5)
            levels[volume] = (vd.mean, MediaProbe.toneLevelDB(pcm, rate: 16000, freq: 440))
        }
        guard let full = levels[100], let half = levels[50] else { return XCTFail("missing runs") }
        XCTAssertGreaterThan(full.mean, -40, "the tone is audible at 100 %")
        XCTAssertEqual(full.mean - half.mean, 6.02, accuracy: 1, "volumedetect mean: 100 % \(full.mean) dB, 50 % \(half.mean) dB")
        XCTAssertEqual(full.tone - half.tone, 6.02, accuracy: 1, "440 Hz level: 100 % \(full.tone) dB, 50 % \(half.tone) dB")
    }

    func testAuxOffKeepsThatPlayerOutOfTheMix() throws {
        let dir = try makeTempDir()
        try TestMedia.makeAudio(in: dir, name: "a440.wav", seconds: 3, freq: 440, ext: "wav")
        try TestMedia.makeAudio(in: dir, name: "b1000.wav", seconds: 3, freq: 1000, ext: "wav")
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.audioOnly(players: [
            PlayerPreset.player("voice", source: "a440.wav"),
            PlayerPreset.player("silent", source: "b1000.wav", ["aux: false"]),
        ], output: out)
        let r = try runPreset(yaml, in: dir)
        XCTAssertEqual(r.status, 0, r.summary("mediapub two players, one aux off"))
        let pcm = MediaProbe.slice(try MediaProbe.decodePCM(out.path, rate: 16000), rate: 16000, from: 0.3, to: 2.7)
        let l440 = MediaProbe.toneLevelDB(pcm, rate: 16000, freq: 440)
        let l1000 = MediaProbe.toneLevelDB(pcm, rate: 16000, freq: 1000)
        XCTAssertGreaterThan(l440, -30, "the aux player's 440 Hz is in the stream")
        XCTAssertLessThan(l1000, l440 - 40, "no 1000 Hz from the aux:false player (440: \(l440) dB, 1000: \(l1000) dB)")
        XCTAssertEqual(MediaProbe.dominantFrequency(pcm, rate: 16000) ?? 0, 440, accuracy: 10)
    }
}

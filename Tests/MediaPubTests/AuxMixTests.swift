// Custom capture (docs/design.md): every aux player's audio is mixed into
// the stream at its publish volume. Verified on the recording with Goertzel
// tone levels of PCM decoded by ffmpeg.

import Foundation
import XCTest

final class AuxMixTests: XCTestCase {

    func testTwoPlayersAreMixedAtTheirPublishVolumes() throws {
        let dir = try makeTempDir()
        // Equal source levels (ffmpeg's sine: amplitude 1/8); different rates,
        // so the mixer also resamples.
        try TestMedia.makeAudio(in: dir, name: "a440.wav", seconds: 4, freq: 440, ext: "wav", sampleRate: 44100)
        try TestMedia.makeAudio(in: dir, name: "b1000.flac", seconds: 4, freq: 1000, ext: "flac", sampleRate: 48000)
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.audioOnly(players: [
            PlayerPreset.player("a", source: "a440.wav", ["publish_volume: 100"]),
            PlayerPreset.player("b", source: "b1000.flac", ["publish_volume: 50"]),
        ], output: out)
        let r = try runPreset(yaml, in: dir)
        XCTAssertEqual(r.status, 0, r.summary("mediapub two aux players"))
        let pcm = MediaProbe.slice(try MediaProbe.decodePCM(out.path, rate: 16000), rate: 16000, from: 0.5, to: 3.5)
        let l440 = MediaProbe.toneLevelDB(pcm, rate: 16000, freq: 440)
        let l1000 = MediaProbe.toneLevelDB(pcm, rate: 16000, freq: 1000)
        // Source sine amplitude 1/8 = -18.1 dBFS.
        XCTAssertEqual(l440, -18.1, accuracy: 1.5, "440 Hz at 100 %")
        XCTAssertEqual(l440 - l1000, 6.02, accuracy: 1, "440 Hz at 100 %: \(l440) dB, 1000 Hz at 50 %: \(l1000) dB")
    }
}

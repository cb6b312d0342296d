// Players: run-time controls through the library API,
// verified on the recording. Pause holds the last picture with silent audio
// and resume continues from there; load(data:) decodes a resource from
// memory; out-of-range speed and pitch are refused and change nothing.

import Foundation
import XCTest
@testable import MediaPub

final class PlayerControlTests: XCTestCase {

    /// Luma clock source (Y = 30 + 25 t). Paused from 1.0 s to 2.0 s of output.
    func testPauseHoldsTheLastFrameSilentlyAndResumeContinues() throws {
        let dir = try makeTempDir()
        try TestMedia.makeLumaClock(in: dir, name: "clock.mp4", seconds: 8, lumaBase: 30, lumaPerSecond: 25)
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.video(players: [PlayerPreset.player("main", source: "clock.mp4", ["video: true"])], output: out)
        let b = try makeBroadcast(yaml, in: dir, duration: 3)
        let states = Collector<PlayerState>()
        b.atOutputTime(1.0) { b in b.player("main")?.pause(); states.add(b.player("main")?.currentState ?? .error) }
        b.atOutputTime(2.0) { b in b.player("main")?.resume() }
        guard let result = runBounded(b, timeout: 60) else { return }
        XCTAssertEqual(result.exitCode, 0, result.reason)
        XCTAssertEqual(states.all, [.paused], "state right after pause()")

        let stats = try MediaProbe.frameStats(out.path)
        XCTAssertEqual(Double(stats.count), 75, accuracy: 1, "the output runs on while paused: 3 s at 25 fps")
        let t0 = stats.first?.pts ?? 0
        let timeline = stats.map { (out: $0.pts - t0, content: ($0.yavg - 30) / 25) }
        let paused = timeline.filter { $0.out >= 1.05 && $0.out < 1.95 }
        XCTAssertGreaterThan(paused.count, 20)
        XCTAssertTrue(paused.allSatisfy { abs($0.content - 1.0) <= 0.1 },
                      "while paused, the last picture (content ≈ 1.0 s) repeats: \(paused.prefix(5)) … \(paused.suffix(3))")
        let resumed = timeline.filter { $0.out >= 2.1 }
        let offResumed = resumed.filter { abs($0.content - ($0.out - 1.0)) > 0.12 }
        XCTAssertTrue(offResumed.isEmpty, "after resume, content continues from 1.0 s: \(offResumed.prefix(5))")

        let audioStart = try MediaProbe.streamStartTime(out.path, type: "audio")
        let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
        func rms(_ a: Double, _ b: Double) -> Double {
            MediaProbe.rmsDB(MediaProbe.slice(pcm, rate: 16000, from: a - audioStart, to: b - audioStart))
        }
        XCTAssertGreaterThan(rms(0.2, 0.9), -30, "sound before the pause")
        XCTAssertLessThan(rms(1.1, 1.9), -60, "silence while paused")
        XCTAssertGreaterThan(rms(2.1, 2.9), -30, "sound after resume")
    }

    /// A 440 Hz file plays; at 1.0 s the player loads a 1000 Hz MP3 from memory.
    func testLoadFromMemoryDataReplacesTheResource() throws {
        let dir = try makeTempDir()
        try TestMedia.makeAudio(in: dir, name: "first.wav", seconds: 6, freq: 440, ext: "wav")
        let second = try TestMedia.makeAudio(in: dir, name: "second.mp3", seconds: 3, freq: 1000, ext: "mp3")
        let bytes = try Data(contentsOf: second)
        try FileManager.default.removeItem(at: second) // only the bytes in memory remain
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.audioOnly(players: [PlayerPreset.player("main", source: "first.wav")], output: out)
        let b = try makeBroadcast(yaml, in: dir, duration: 3)
        b.atOutputTime(1.0) { b in b.player("main")?.load(data: bytes, name: "second.mp3") }
        guard let result = runBounded(b, timeout: 60) else { return }
        XCTAssertEqual(result.exitCode, 0, result.reason)

        let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
        let before = MediaProbe.slice(pcm, rate: 16000, from: 0.1, to: 0.9)
        let after = MediaProbe.slice(pcm, rate: 16000, from: 1.5, to: 2.9)
        XCTAssertEqual(MediaProbe.dominantFrequency(before, rate: 16000) ?? 0, 440, accuracy: 10, "the file before load(data:)")
        XCTAssertEqual(MediaProbe.dominantFrequency(after, rate: 16000) ?? 0, 1000, accuracy: 10, "the in-memory MP3 after load(data:)")
        XCTAssertLessThan(MediaProbe.toneLevelDB(after, rate: 16000, freq: 440),
                          MediaProbe.toneLevelDB(after, rate: 16000, freq: 1000) - 30, "the old resource is gone")
    }

    func testOutOfRangeSpeedAndPitchAreRefused() throws {
        let dir = try makeTempDir()
        try TestMedia.makeAudio(in: dir, name: "tone.wav", seconds: 2, freq: 440, ext: "wav")
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.audioOnly(players: [PlayerPreset.player("main", source: "tone.wav")], output: out)
        let b = try makeBroadcast(yaml, in: dir, duration: 2)
        guard let p = b.player("main") else { return XCTFail("no player") }
        for bad in [0.49, 4.01, 0, -1] { XCTAssertThrowsError(try p.setSpeed(bad), "speed \(bad)") }
        for bad in [-12.5, 12.5, 24] { XCTAssertThrowsError(try p.setPitch(bad), "pitch \(bad)") }
        // The message names the control, the value and the range it takes.
        XCTAssertThrowsError(try p.setSpeed(5)) { XCTAssertEqual("\($0)", "speed 5 is out of range 0.5..4") }
        XCTAssertThrowsError(try p.setPitch(24)) { XCTAssertEqual("\($0)", "pitch 24 is out of range -12..12") }
        XCTAssertNoThrow(try p.setSpeed(1.0))
        XCTAssertNoThrow(try p.setPitch(0))
        guard let result = runBounded(b, timeout: 60) else { return }
        XCTAssertEqual(result.exitCode, 0, result.reason)
        // The refused values changed nothing: 2 s of the 440 Hz tone.
        XCTAssertEqual(try MediaProbe.probe(out.path).duration ?? 0, 2, accuracy: 0.15)
        let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
        XCTAssertEqual(MediaProbe.dominantFrequency(pcm, rate: 16000) ?? 0, 440, accuracy: 10)
    }
}

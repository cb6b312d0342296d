// Players (docs/presets.md, Players: `pitch:`, `speed:`): the voice changer shifts the
// tone's frequency without changing the duration; the play speed changes the
// duration without changing the frequency. Verified on the recorded output
// with ffprobe and an FFT of PCM decoded by ffmpeg.

import Foundation
import XCTest
@testable import MediaPub

final class PlayerPitchSpeedTests: XCTestCase {

    /// Records a 440 Hz WAV source (audio-only preset) with `fields` on the
    /// player; returns the output's duration and decoded mono PCM at 16 kHz.
    private func record(seconds: Double, fields: [String]) throws -> (duration: Double, pcm: [Float], result: ProcessResult) {
        let dir = try makeTempDir()
        try TestMedia.makeAudio(in: dir, name: "tone.wav", seconds: seconds, freq: 440, ext: "wav")
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.audioOnly(players: [PlayerPreset.player("main", source: "tone.wav", fields)], output: out)
        let r = try runPreset(yaml, in: dir, timeout: 90)
        XCTAssertEqual(r.status, 0, r.summary("mediapub \(fields)"))
        guard FileManager.default.fileExists(atPath: out.path) else {
            throw HarnessError("no recording was written: " + r.summary("mediapub"))
        }
        let probe = try MediaProbe.probe(out.path)
        XCTAssertNil(probe.video, "audio-only preset: \(probe.rawJSON)")
        return (probe.duration ?? 0, try MediaProbe.decodePCM(out.path, rate: 16000), r)
    }

    func testPitchUpTwelveSemitonesDoublesTheFrequencyAndKeepsTheDuration() throws {
        try assertPitch(semitones: 12, gives: 880, accuracy: 15, "440 Hz one octave up")
    }

    func testPitchDownTwelveSemitonesHalvesTheFrequencyAndKeepsTheDuration() throws {
        try assertPitch(semitones: -12, gives: 220, accuracy: 10, "440 Hz one octave down")
    }

    /// A 4 s 440 Hz source with `pitch: semitones` records 4 s at `frequency`, and the
    /// original tone is gone, not merely joined by the shifted one.
    private func assertPitch(semitones: Int, gives frequency: Double, accuracy: Double, _ what: String,
                             file: StaticString = #filePath, line: UInt = #line) throws {
        let rec = try record(seconds: 4, fields: ["pitch: \(semitones)"])
        XCTAssertEqual(rec.duration, 4, accuracy: 0.2, "duration unchanged by pitch", file: file, line: line)
        let f = MediaProbe.dominantFrequency(rec.pcm, rate: 16000) ?? 0
        XCTAssertEqual(f, frequency, accuracy: accuracy, what, file: file, line: line)
        let mid = MediaProbe.slice(rec.pcm, rate: 16000, from: 1, to: 3)
        XCTAssertLessThan(MediaProbe.toneLevelDB(mid, rate: 16000, freq: 440),
                          MediaProbe.toneLevelDB(mid, rate: 16000, freq: frequency) - 20, "no 440 Hz left", file: file, line: line)
    }

    func testSpeedTwoPlaysTenSecondsInFiveWithTheToneUnchanged() throws {
        // stop.at_end is the default: the run ends when the source has played.
        let rec = try record(seconds: 10, fields: ["speed: 2.0"])
        XCTAssertEqual(rec.duration, 5, accuracy: 0.2, "10 s of source at 2x")
        let f = MediaProbe.dominantFrequency(rec.pcm, rate: 16000) ?? 0
        XCTAssertEqual(f, 440, accuracy: 10, "pitch kept at 2x speed")
        // Sound all the way through the five seconds.
        for s in stride(from: 0.5, to: 4.5, by: 1.0) {
            XCTAssertGreaterThan(MediaProbe.rmsDB(MediaProbe.slice(rec.pcm, rate: 16000, from: s, to: s + 0.5)), -40,
                                 "tone at \(s) s of output")
        }
    }

    /// `ctl pitch` (docs/control.md) is heard from the next tick, whatever the value: 0 too,
    /// which sets the voice changer's element to unity in place. What its decoder had queued
    /// at the old pitch (some 750 ms) is not played. The tone goes on without a gap.
    func testEveryPitchChangeIsHeardFromTheNextTick() throws {
        let dir = try makeTempDir()
        try TestMedia.makeAudio(in: dir, name: "tone.wav", seconds: 5, freq: 440, ext: "wav")
        let out = dir.appendingPathComponent("out.m4a")
        let b = try makeBroadcast(PlayerPreset.audioOnly(players: [PlayerPreset.player("main", source: "tone.wav", ["pitch: 12"])],
                                                         output: out), in: dir)
        let changes: [(at: Double, semitones: Double, heard: Double)] = [(1, 0, 440), (2, -12, 220), (3, 0, 440), (4, 12, 880)]
        for change in changes { b.atOutputTime(change.at) { try? $0.player("main")?.setPitch(change.semitones) } }
        XCTAssertNotNil(runBounded(b, timeout: 60))
        let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
        XCTAssertEqual(Double(pcm.count) / 16000, 5, accuracy: 0.1, "the item plays its 5 s: each change goes on where it was")
        func heard(_ from: Double) -> Double {
            let window = MediaProbe.slice(pcm, rate: 16000, from: from, to: from + 0.05)
            return [220.0, 440, 880].max { MediaProbe.toneLevelDB(window, rate: 16000, freq: $0) < MediaProbe.toneLevelDB(window, rate: 16000, freq: $1) } ?? 0
        }
        for (index, change) in ([(at: 0.0, semitones: 12.0, heard: 880.0)] + changes).enumerated() {
            let end = index < changes.count ? changes[index].at : 4.95
            for from in stride(from: change.at + 0.04, through: end - 0.05, by: 0.05) {
                XCTAssertEqual(heard(from), change.heard, "at \(from) s, after pitch \(change.semitones) at \(change.at) s")
            }
        }
        XCTAssertLessThan(MediaProbe.longestQuiet(MediaProbe.slice(pcm, rate: 16000, from: 0.5, to: 4.5), rate: 16000, window: 0.01, thresholdDB: -40),
                          0.02, "no gap at a change")
    }
}

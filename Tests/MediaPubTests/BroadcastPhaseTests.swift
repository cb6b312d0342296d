// A broadcast's life (Run/BroadcastPhase.swift): what is asked before its timeline
// exists is what the timeline starts with, and a broadcast runs once.

import Foundation
import XCTest
@testable import MediaPub

final class BroadcastPhaseTests: XCTestCase {
    /// Set off before the run, the flag is what the timeline starts with: the recording
    /// begins on the standby (silence) and turns to the source at 1 s, as scheduled
    /// before the run. A second `run()` is refused and touches nothing.
    func testWhatIsAskedBeforeTheRunIsWhatItStartsWithAndItRunsOnce() throws {
        let dir = try makeTempDir()
        try TestMedia.makeAudio(in: dir, name: "tone.wav", seconds: 5, freq: 1000, ext: "wav")
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.audioOnly(players: [PlayerPreset.player("main", source: "tone.wav")], output: out)
        let b = try makeBroadcast(yaml, in: dir, duration: 2)
        b.publishing = false
        b.atOutputTime(1) { $0.publishing = true }
        guard let first = runBounded(b, timeout: 60) else { return }
        XCTAssertEqual(first.exitCode, 0, first.reason)
        let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
        XCTAssertEqual(Double(pcm.count) / 16000, 2, accuracy: 0.1)
        XCTAssertLessThan(MediaProbe.rmsDB(MediaProbe.slice(pcm, rate: 16000, from: 0.1, to: 0.9)), -60, "off from the start")
        XCTAssertEqual(MediaProbe.dominantFrequency(MediaProbe.slice(pcm, rate: 16000, from: 1.2, to: 1.9), rate: 16000) ?? 0, 1000,
                       accuracy: 15, "on from 1 s")

        let before = try Data(contentsOf: out)
        guard let second = runBounded(b, timeout: 30) else { return }
        XCTAssertEqual(second.exitCode, ExitCode.usage.rawValue, second.reason)
        XCTAssertTrue(second.reason.contains("runs once"), second.reason)
        XCTAssertEqual(try Data(contentsOf: out), before, "the recording is left as it was")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".mp4") }
        XCTAssertEqual(files, ["out.mp4"], "nothing else recorded")
    }
}

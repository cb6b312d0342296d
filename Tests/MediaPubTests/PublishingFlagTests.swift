// Custom capture (docs/control.md, `publish`): the publishing flag. Turned off from
// 2 s to 5 s of output (library schedule, exact in output time) during an
// 8 s recording: the file stays one unbroken timeline, the red standby slate
// shows in the off window and only there, and the standby ringtone sounds
// there and nowhere else. Measured with ffmpeg signalstats (per-frame colour)
// and Goertzel levels of PCM decoded by ffmpeg.

import Foundation
import XCTest
@testable import MediaPub

final class PublishingFlagTests: XCTestCase {

    func testFlagOffFromTwoToFiveSecondsShowsSlateAndRingtoneOnlyThere() throws {
        let dir = try makeTempDir()
        try TestMedia.makeColorVideo(in: dir, name: "content.mp4", seconds: 12, color: "blue", freq: 440)
        try TestMedia.makeAudio(in: dir, name: "ring.wav", seconds: 1, freq: 1500, ext: "wav")
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.video(players: [PlayerPreset.player("main", source: "content.mp4", ["video: true"])],
                                      output: out, extra: """
                                      standby:
                                        color: "#FF0000"
                                        audio: ring.wav
                                      """)
        let b = try makeBroadcast(yaml, in: dir, duration: 8)
        b.atOutputTime(2.0) { $0.publishing = false }
        b.atOutputTime(5.0) { $0.publishing = true }
        guard let result = runBounded(b, timeout: 90) else { return }
        XCTAssertEqual(result.exitCode, 0, "run: \(result.reason)")

        // One unbroken timeline: a frame every 40 ms, none backwards, 8 s of audio.
        let stats = try assertUnbrokenTimeline(out.path, seconds: 8)
        let audioStart = try MediaProbe.streamStartTime(out.path, type: "audio")

        // The slate in the off window, and only there; edges within 100 ms of the flips.
        let t0 = stats.first?.pts ?? 0
        let red = stats.filter(\.looksRed).map { $0.pts - t0 }
        guard let firstRed = red.first, let lastRed = red.last else {
            return XCTFail("the red slate never appeared: \(Array(stats.dropFirst(45).prefix(10)))")
        }
        XCTAssertEqual(firstRed, 2.0, accuracy: 0.1, "slate starts at the flip to off")
        XCTAssertEqual(lastRed + 0.04, 5.0, accuracy: 0.1, "slate ends at the flip back on")
        let offWindow = stats.filter { $0.pts - t0 >= firstRed && $0.pts - t0 <= lastRed }
        XCTAssertTrue(offWindow.allSatisfy(\.looksRed), "the whole off window is slate")
        let onFrames = stats.filter { $0.pts - t0 < firstRed || $0.pts - t0 > lastRed }
        let notContent = onFrames.filter { !Colour.blue.matches($0) }
        XCTAssertTrue(notContent.isEmpty, "outside the off window, the content (blue): \(notContent.prefix(5))")

        // The ringtone (1500 Hz) in the off window and not elsewhere; the content tone the other way round.
        let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
        func level(_ f: Double, _ a: Double, _ b: Double) -> Double {
            MediaProbe.toneLevelDB(MediaProbe.slice(pcm, rate: 16000, from: a - audioStart, to: b - audioStart), rate: 16000, freq: f)
        }
        let ringOff = level(1500, 2.15, 4.85), contentOff = level(440, 2.15, 4.85)
        XCTAssertGreaterThan(ringOff, -30, "ringtone while off")
        XCTAssertLessThan(contentOff, ringOff - 30, "no content sound while off (440: \(contentOff), 1500: \(ringOff))")
        for (a, b) in [(0.15, 1.85), (5.15, 7.85)] {
            let ring = level(1500, a, b), content = level(440, a, b)
            XCTAssertGreaterThan(content, -30, "content sound \(a)–\(b) s")
            XCTAssertLessThan(ring, content - 30, "no ringtone \(a)–\(b) s (440: \(content), 1500: \(ring))")
        }
        // Ringtone edges, in 20 ms windows: within 100 ms of the flips.
        let win = 0.02
        let ringWindows = stride(from: 0.0, to: 7.98, by: win).filter { t in
            let w = MediaProbe.slice(pcm, rate: 16000, from: t - audioStart, to: t + win - audioStart)
            return MediaProbe.toneLevelDB(w, rate: 16000, freq: 1500) > -35
        }
        if let first = ringWindows.first, let last = ringWindows.last {
            XCTAssertEqual(first, 2.0, accuracy: 0.1, "ringtone starts at the flip to off")
            XCTAssertEqual(last + win, 5.0, accuracy: 0.1, "ringtone stops at the flip back on")
        } else {
            XCTFail("no 20 ms window holds the ringtone")
        }
    }

    /// A 3 s ringtone whose first 0.3 s beep at 1500 Hz, and two 2 s standby spells
    /// (1–3 s and 4.5–6.5 s): each spell starts the ringtone from its beginning, so
    /// each opens with the beep. Carried on from where it stopped, the second spell
    /// would start 2 s into the ringtone, in its silence.
    func testEveryStandbySpellStartsTheRingtoneFromItsBeginning() throws {
        let dir = try makeTempDir()
        try TestMedia.makeColorVideo(in: dir, name: "content.mp4", seconds: 10, color: "blue", freq: 440)
        try TestMedia.ffmpegRun(["-f", "lavfi", "-i", "sine=frequency=1500:sample_rate=48000:duration=3,volume='if(lt(t\\,0.3)\\,1\\,0)':eval=frame",
                                 "-c:a", "pcm_s16le", dir.appendingPathComponent("ring.wav").path])
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.video(players: [PlayerPreset.player("main", source: "content.mp4", ["video: true"])],
                                      output: out, extra: "standby:\n  audio: ring.wav\n")
        let b = try makeBroadcast(yaml, in: dir, duration: 7.5)
        b.atOutputTime(1.0) { $0.publishing = false }
        b.atOutputTime(3.0) { $0.publishing = true }
        b.atOutputTime(4.5) { $0.publishing = false }
        b.atOutputTime(6.5) { $0.publishing = true }
        guard let result = runBounded(b, timeout: 90) else { return }
        XCTAssertEqual(result.exitCode, 0, "run: \(result.reason)")

        let audioStart = try MediaProbe.streamStartTime(out.path, type: "audio")
        let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
        let win = 0.02
        let beeping = stride(from: 0.0, to: 7.48, by: win).filter { t in
            let w = MediaProbe.slice(pcm, rate: 16000, from: t - audioStart, to: t + win - audioStart)
            return MediaProbe.toneLevelDB(w, rate: 16000, freq: 1500) > -35
        }
        let first = beeping.filter { $0 < 3.5 }, second = beeping.filter { $0 > 3.5 }
        XCTAssertEqual(first.first ?? -1, 1.0, accuracy: 0.1, "the first spell opens with the beep: \(beeping)")
        XCTAssertEqual(second.first ?? -1, 4.5, accuracy: 0.1, "the second spell opens with the beep too: \(beeping)")
        for spell in [first, second] {
            XCTAssertEqual(Double(spell.count) * win, 0.3, accuracy: 0.1, "one whole 0.3 s beep per spell: \(spell)")
        }
    }
}

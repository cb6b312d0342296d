// The checks of `monitor:` on a run (docs/presets.md, monitor; docs/events.md, alert
// and cleared): items made by ffmpeg with a silent, a black and a still stretch, run
// as fast as possible; the events file says what was found, and the recording, read
// by ffmpeg, what went out.

import Foundation
import XCTest

final class DeadAirTests: XCTestCase {
    /// A tone at 1/8 of full scale, silent from `from` to `to` (seconds), as WAV.
    @discardableResult
    private func tone(in dir: URL, _ name: String, seconds: Double, freq: Double, silentFrom from: Double, to: Double) throws -> URL {
        let out = dir.appendingPathComponent(name)
        try TestMedia.ffmpegRun(["-f", "lavfi", "-i",
                                 "sine=frequency=\(freq):sample_rate=44100:duration=\(seconds),volume='if(between(t,\(from),\(to)),0,1)':eval=frame",
                                 "-ac", "2", "-c:a", "pcm_s16le", out.path])
        return out
    }

    private func run(_ yaml: String, in dir: URL) throws -> [[String: Any]] {
        let events = dir.appendingPathComponent("events.jsonl")
        let r = try runPreset(yaml, in: dir, args: ["--no-realtime", "--events", events.path])
        XCTAssertEqual(r.status, 0, r.summary("mediapub with monitor checks"))
        return try EventLog.read(events)
    }

    private func alerts(_ events: [[String: Any]], _ name: String, kind: String) -> [[String: Any]] {
        events.filter { $0["event"] as? String == name && $0["kind"] as? String == kind }
    }

    private func ms(_ event: [String: Any]?, _ key: String) -> Double { Double(event?[key] as? Int ?? -1_000_000) / 1000 }

    /// 45 s: moving, then black 5–20 s (silent too), moving, a still picture 25–40 s, moving;
    /// the picture's alerts put the (red) standby slate on the output until motion returns.
    func testSilenceABlackAndAStillPictureRaiseOneAlertEachAndClearWhenTheyEnd() throws {
        let dir = try makeTempDir()
        try TestMedia.ffmpegRun([
            "-f", "lavfi", "-i", "color=c=gray:s=160x90:r=25:d=45,format=yuv420p,"
                + "geq=lum='if(between(T,5,20),16,if(between(T,25,40),128+60*sin(X/10),128+60*sin(2*PI*T+X/10)))':cb=128:cr=128",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=45,volume='if(between(t,5,20),0,1)':eval=frame",
            "-map", "0:v", "-map", "1:a", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "25", "-bf", "0",
            "-c:a", "aac", "-ac", "2", "-t", "45", dir.appendingPathComponent("item.mp4").path,
        ])
        let out = dir.appendingPathComponent("out.mp4")
        let events = try run(PlayerPreset.video(players: [PlayerPreset.player("tv", source: "item.mp4")], output: out, extra: """
            monitor:
              silence: { below: -50dBFS, for: 10s, action: alert }
              picture: { black: 10s, frozen: 10s, action: standby }
            standby: { color: red }
            """), in: dir)
        for (kind, began, back) in [("silence", 5.0, 20.0), ("black", 5.0, 20.0), ("frozen", 25.0, 40.0)] {
            let raised = alerts(events, "alert", kind: kind), cleared = alerts(events, "cleared", kind: kind)
            XCTAssertEqual(raised.count, 1, "one \(kind) alert: \(raised)")
            XCTAssertEqual(cleared.count, 1, "one \(kind) cleared: \(cleared)")
            XCTAssertEqual(ms(raised.first, "began_ms"), began, accuracy: 0.25, kind)
            XCTAssertEqual(ms(raised.first, "output_ms") - ms(raised.first, "began_ms"), 10, accuracy: 0.1, "\(kind): about 10 s in")
            XCTAssertEqual(ms(cleared.first, "output_ms"), back, accuracy: 0.25, "\(kind) cleared when it ended")
            XCTAssertEqual(raised.first?["player"] as? String, "tv")
            XCTAssertEqual(raised.first?["began_at"] as? String, cleared.first?["began_at"] as? String)
        }
        let frames = try MediaProbe.frameStats(out.path)
        XCTAssertEqual(frames.count, 45 * 25, accuracy: 1, "one unbroken timeline")
        func red(_ from: Double, _ to: Double) -> [Bool] { frames.filter { $0.pts >= from && $0.pts < to }.map(\.looksRed) }
        for (from, to) in [(0.0, 14.9), (20.1, 34.9), (40.1, 44.9)] {
            XCTAssertFalse(red(from, to).contains(true), "the item's own picture from \(from) s to \(to) s")
        }
        for (from, to) in [(15.1, 19.9), (35.1, 39.9)] {
            XCTAssertTrue(red(from, to).allSatisfy { $0 } && !red(from, to).isEmpty, "the standby slate from \(from) s to \(to) s")
        }
    }

    /// `action: standby`: the standby sound goes out from the alert until the sound returns.
    func testStandbyActionPlaysTheStandbySoundUntilTheSoundReturns() throws {
        let dir = try makeTempDir()
        try tone(in: dir, "item.wav", seconds: 30, freq: 440, silentFrom: 5, to: 20)
        try TestMedia.makeAudio(in: dir, name: "ring.wav", seconds: 3, freq: 1000, ext: "wav")
        let out = dir.appendingPathComponent("out.mp4")
        let events = try run(PlayerPreset.audioOnly(players: [PlayerPreset.player("music", source: "item.wav")], output: out, extra: """
            standby: { audio: ring.wav }
            monitor: { silence: { for: 10s, action: standby } }
            """), in: dir)
        let raised = alerts(events, "alert", kind: "silence"), cleared = alerts(events, "cleared", kind: "silence")
        XCTAssertEqual(raised.count, 1, "\(raised)")
        XCTAssertEqual(cleared.count, 1, "\(cleared)")
        XCTAssertEqual(ms(raised.first, "output_ms"), 15, accuracy: 0.25)
        XCTAssertEqual(ms(cleared.first, "output_ms"), 20, accuracy: 0.25)
        let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
        func level(_ from: Double, _ to: Double, _ freq: Double) -> Double {
            MediaProbe.toneLevelDB(MediaProbe.slice(pcm, rate: 16000, from: from, to: to), rate: 16000, freq: freq)
        }
        XCTAssertLessThan(level(6, 14.5, 1000), -60, "silence before the alert: the standby is not on")
        XCTAssertGreaterThan(level(15.5, 19.5, 1000), -24, "the standby sound in the alert's window")
        XCTAssertLessThan(level(21, 29, 1000), -60, "the standby off once the sound returned")
        XCTAssertGreaterThan(level(21, 29, 440), -24, "the item's sound back")
    }

    /// `action: next`: the silent item is skipped for the next one.
    func testNextActionStartsTheNextItem() throws {
        let dir = try makeTempDir()
        try tone(in: dir, "a.wav", seconds: 30, freq: 440, silentFrom: 5, to: 31)
        try TestMedia.makeAudio(in: dir, name: "b.wav", seconds: 5, freq: 880, ext: "wav")
        let out = dir.appendingPathComponent("out.mp4")
        let events = try run(PlayerPreset.audioOnly(players: ["  - id: music\n    playlist: { items: [a.wav, b.wav], mode: once }\n"],
                                                    output: out, extra: "monitor: { silence: { for: 10s, action: next } }"), in: dir)
        let raised = alerts(events, "alert", kind: "silence")
        XCTAssertEqual(raised.count, 1, "\(raised)")
        XCTAssertEqual(raised.first?["action"] as? String, "next")
        XCTAssertEqual(ms(raised.first, "output_ms"), 15, accuracy: 0.25)
        let alertAt = events.firstIndex { $0["event"] as? String == "alert" } ?? Int.max
        let next = events.firstIndex { $0["event"] as? String == "player.track" && $0["index"] as? Int == 1 } ?? -1
        XCTAssertGreaterThan(next, alertAt, "the next item started after the alert")
        let pcm = try MediaProbe.decodePCM(out.path, rate: 16000)
        XCTAssertEqual(Double(pcm.count) / 16000, 20, accuracy: 0.5, "15 s of the first item, then the 5 s one")
        XCTAssertGreaterThan(MediaProbe.toneLevelDB(MediaProbe.slice(pcm, rate: 16000, from: 15.5, to: 19.5), rate: 16000, freq: 880), -24)
    }
}

// A player's switch on the frame (docs/design.md, Switching on the frame): content
// cued ahead takes over on the tick it was cued for, its first frame that tick's
// picture and its sound starting in that tick, the cut faded (no click, no gap);
// a cue that fails leaves what plays untouched. Checked on the recording with
// ffprobe/ffmpeg (colour per frame, PCM), never with mediapub's own messages.

import Foundation
import XCTest
@testable import MediaPub

final class CueTests: XCTestCase {
    private let rate = 44100

    /// The long item that plays: red, a 440 Hz tone (a hair over, so that at 2 s and 10 s
    /// it is at its peak: a cut there without a fade is a step).
    private func makeLongItem(_ dir: URL, seconds: Double = 20) throws -> URL {
        try TestMedia.makeColorVideo(in: dir, name: "long.mp4", seconds: seconds, color: "red", freq: 440.125)
    }

    /// The cued content: grey whose luma says its time (Y = 40 + 15 t), a tone of 500 + 100 ⌊t⌋ Hz
    /// (a hair over, so that at its 8 s mark it is at its peak).
    private func makeClockItem(_ dir: URL) throws -> URL {
        try TestMedia.makeLumaClock(in: dir, name: "block.mp4", seconds: 12, lumaBase: 40, lumaPerSecond: 15,
                                    toneSteps: (base: 500.03125, step: 100))
    }

    /// The cued item's own time in a grey frame, nil for any other frame.
    private func clockSeconds(_ f: FrameStat) -> Double? {
        abs(f.uavg - 128) < 8 && abs(f.vavg - 128) < 8 ? (f.yavg - 40) / 15 : nil
    }

    private func looksBlue(_ f: FrameStat) -> Bool { f.uavg > 200 && f.vavg < 130 }
    private func looksGreen(_ f: FrameStat) -> Bool { f.uavg < 110 && f.vavg < 110 }

    /// The recording's PCM (mono at the output's rate), sliced in output seconds.
    private struct Sound {
        let pcm: [Float]
        let start: Double
        let rate: Int
        func at(_ a: Double, _ b: Double) -> [Float] { MediaProbe.slice(pcm, rate: rate, from: a - start, to: b - start) }
    }

    private func sound(_ out: URL) throws -> Sound {
        Sound(pcm: try MediaProbe.decodePCM(out.path, rate: rate),
              start: try MediaProbe.streamStartTime(out.path, type: "audio"), rate: rate)
    }

    /// Around the cut at `cut` s: no silence longer than the fade, and no step above the
    /// tones' own (measured on the recording a little before and after).
    private func assertCleanCut(_ s: Sound, at cut: Double, file: StaticString = #filePath, line: UInt = #line) {
        let quiet = MediaProbe.longestQuiet(s.at(cut - 0.5, cut + 0.5), rate: rate, window: 0.005, thresholdDB: -50)
        XCTAssertLessThanOrEqual(quiet, CutFade.seconds, "silence at the cut: \(quiet) s", file: file, line: line)
        let own = max(MediaProbe.largestStep(s.at(cut - 0.9, cut - 0.2)), MediaProbe.largestStep(s.at(cut + 0.2, cut + 0.9)))
        let atCut = MediaProbe.largestStep(s.at(cut - 0.2, cut + 0.2))
        XCTAssertGreaterThan(own, 0.005, "the tones sound around the cut", file: file, line: line)
        XCTAssertLessThanOrEqual(atCut, own * 1.5, "a click at the cut: a step of \(atCut), the tones' own \(own)",
                                 file: file, line: line)
    }

    /// As fast as possible: a long item plays; at 7 s the clock item is cued at its 7 s
    /// mark for output second 10.0, committed then. The recording is red to the frame
    /// before 10.0 and the clock item from 7.0 on from the frame at 10.0; the sound cuts
    /// from 440 Hz to the item's 7 s tone with no gap and no click.
    func testCueLandsOnItsFrameAsFastAsPossible() throws {
        let dir = try makeTempDir()
        try makeLongItem(dir)
        let block = try makeClockItem(dir)
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.video(players: [PlayerPreset.player("main", source: "long.mp4")], output: out)
        let b = try makeBroadcast(yaml, in: dir, duration: 12)
        let tickets = Collector<Int>(), outcomes = Collector<MediaPlayer.CueOutcome>()
        b.atOutputTime(7.0) { b in
            guard let p = b.player("main"), let list = Playlist(items: [block.path], mode: .once, order: [0], position: 0) else { return }
            tickets.add(p.cue(list, startAt: 7, at: p.format.tickClock.tick(at: 10.0)))
        }
        b.atOutputTime(10.0) { b in
            guard let p = b.player("main"), let ticket = tickets.all.first else { return }
            outcomes.add(p.commitCue(ticket, wait: 10))
        }
        guard let result = runBounded(b, timeout: 90) else { return }
        XCTAssertEqual(result.exitCode, 0, result.reason)
        XCTAssertEqual(outcomes.all, [.landed(lateTicks: 0, lateMs: 0)])

        let stats = try assertUnbrokenTimeline(out.path, seconds: 12)
        XCTAssertTrue(stats[..<250].allSatisfy(\.looksRed), "red up to the frame before 10.0 s: \(stats[245..<250].map(\.yavg))")
        let after = stats[250...].enumerated().map { (out: 10 + Double($0.offset) / 25, content: clockSeconds($0.element)) }
        let off = after.filter { f in f.content.map { abs($0 - (f.out - 3)) > 0.1 } ?? true }
        XCTAssertTrue(off.isEmpty, "from the frame at 10.0 s, the cued item from its 7 s mark: \(off.prefix(5))")
        XCTAssertEqual(clockSeconds(stats[250]) ?? 0, 7, accuracy: 0.1, "the frame at 10.0 s is the item's at 7.0 s")

        let s = try sound(out)
        XCTAssertEqual(MediaProbe.dominantFrequency(s.at(9.0, 9.9), rate: rate) ?? 0, 440, accuracy: 5, "the long item's tone")
        XCTAssertEqual(MediaProbe.dominantFrequency(s.at(10.1, 10.9), rate: rate) ?? 0, 1200, accuracy: 5, "the item's tone at 7 s")
        XCTAssertEqual(MediaProbe.dominantFrequency(s.at(11.1, 11.9), rate: rate) ?? 0, 1300, accuracy: 5, "the item's tone at 8 s")
        XCTAssertLessThan(MediaProbe.toneLevelDB(s.at(10.1, 10.9), rate: rate, freq: 440), -50, "the long item's sound is gone")
        assertCleanCut(s, at: 10.0)
    }

    /// A cue of a missing file fails: the long item plays on to its end, its sound untouched
    /// (no fade where the cut would have been). It is cued for 2.0 s just before its fade
    /// would begin (1.92 s): the fade waits to know whether the cue is to land.
    func testFailedCueLeavesWhatPlaysUntouched() throws {
        let dir = try makeTempDir()
        try makeLongItem(dir, seconds: 4)
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.video(players: [PlayerPreset.player("main", source: "long.mp4")], output: out)
        let b = try makeBroadcast(yaml, in: dir)
        let tickets = Collector<Int>(), outcomes = Collector<MediaPlayer.CueOutcome>()
        let missing = dir.appendingPathComponent("missing.mp4").path
        b.atOutputTime(1.92) { b in
            guard let p = b.player("main") else { return }
            tickets.add(p.cue(Playlist(source: missing, repeat: false), startAt: 0, at: p.format.tickClock.tick(at: 2.0)))
        }
        b.atOutputTime(2.0) { b in
            guard let p = b.player("main"), let ticket = tickets.all.first else { return }
            outcomes.add(p.commitCue(ticket, wait: 10))
        }
        guard let result = runBounded(b, timeout: 60) else { return }
        XCTAssertEqual(result.exitCode, 0, result.reason)
        guard case .failed(let why)? = outcomes.all.first else { return XCTFail("the cue did not fail: \(outcomes.all)") }
        XCTAssertTrue(why.contains("missing.mp4"), why)

        let stats = try assertUnbrokenTimeline(out.path, seconds: 4)
        XCTAssertTrue(stats.allSatisfy(\.looksRed), "the long item to its end")
        let s = try sound(out)
        let levels = MediaProbe.windowRMSDB(s.at(0.2, 3.8), rate: rate, window: 0.01)
        let median = levels.sorted()[levels.count / 2]
        let dips = levels.enumerated().filter { median - $0.element > 1 }.map { 0.2 + Double($0.offset) / 100 }
        XCTAssertTrue(dips.isEmpty, "the sound never dips (median \(median) dB): dips at \(dips.prefix(10))")
    }

    /// The item ran out (stop at_end false: the slate shows) and a block comes: its cue
    /// brings the player back to playing on its frame. A second cue for the same tick
    /// replaced the first, which never shows.
    func testCueAfterTheEndAndASecondCueReplacingTheFirst() throws {
        let dir = try makeTempDir()
        try makeLongItem(dir, seconds: 2)
        let green = try TestMedia.makeColorVideo(in: dir, name: "green.mp4", seconds: 3, color: "green", freq: 660)
        let blue = try TestMedia.makeColorVideo(in: dir, name: "blue.mp4", seconds: 3, color: "blue", freq: 880)
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.video(players: [PlayerPreset.player("main", source: "long.mp4")], output: out,
                                      extra: "stop:\n  at_end: false")
        let b = try makeBroadcast(yaml, in: dir, duration: 4)
        let tickets = Collector<Int>(), outcomes = Collector<(Int, MediaPlayer.CueOutcome)>()
        for (at, item) in [(0.5, green), (1.0, blue)] {
            b.atOutputTime(at) { b in
                guard let p = b.player("main") else { return }
                let box = Collector<Int>()
                let ticket = p.cue(Playlist(source: item.path, repeat: false), startAt: 0, at: p.format.tickClock.tick(at: 3.0)) {
                    outcome in outcomes.add((box.all.first ?? 0, outcome))
                }
                box.add(ticket)
                tickets.add(ticket)
            }
        }
        let states = Collector<PlayerState>()
        b.atOutputTime(3.0) { b in
            guard let p = b.player("main"), let ticket = tickets.all.last else { return }
            states.add(p.currentState)
            _ = p.commitCue(ticket, wait: 10)
            states.add(p.currentState)
        }
        guard let result = runBounded(b, timeout: 60) else { return }
        XCTAssertEqual(result.exitCode, 0, result.reason)
        b.player("main")?.drainEvents()
        XCTAssertEqual(states.all, [.ended, .playing], "ended before the cue, playing from its tick")
        let settled = Dictionary(outcomes.all, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(settled[1], .cancelled("replaced by cue 2"))
        XCTAssertEqual(settled[2], .landed(lateTicks: 0, lateMs: 0))

        let stats = try assertUnbrokenTimeline(out.path, seconds: 4)
        XCTAssertTrue(stats[..<50].allSatisfy(\.looksRed), "the item to its end")
        XCTAssertTrue(stats[50..<75].allSatisfy { !$0.looksRed && !looksBlue($0) }, "the slate once it ended")
        XCTAssertTrue(stats[75...].allSatisfy(looksBlue), "the second cue's item from the frame at 3.0 s")
        XCTAssertFalse(stats.contains(where: looksGreen), "the replaced cue never shows")
        let s = try sound(out)
        XCTAssertEqual(MediaProbe.dominantFrequency(s.at(3.1, 3.9), rate: rate) ?? 0, 880, accuracy: 5)
    }

    /// Realtime: a cue prepared ahead (ready before its tick) lands on its frame; one cued
    /// and committed at once lands as late as its outcome says, to the frame, its cut as
    /// clean (what played sounds on until it is ready, and fades out before it).
    func testRealtimeCueLandsOnItsFrameOrAsLateAsItSays() throws {
        let dir = try makeTempDir()
        try makeLongItem(dir)
        let block = try makeClockItem(dir)
        let blue = try TestMedia.makeColorVideo(in: dir, name: "blue.mp4", seconds: 3, color: "blue", freq: 880)
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.video(players: [PlayerPreset.player("main", source: "long.mp4")], output: out)
        let b = try makeBroadcast(yaml, in: dir, duration: 5, realtime: true)
        guard let p = b.player("main") else { return XCTFail("no player") }
        let tick = p.format.tickClock.tick(at:)
        let first = p.cue(Playlist(source: block.path, repeat: false), startAt: 7, at: tick(2.0))
        XCTAssertEqual(p.waitForCue(first, timeout: 30), .ready, "prepared ahead")
        let outcomes = Collector<MediaPlayer.CueOutcome>()
        b.atOutputTime(2.0) { _ in outcomes.add(p.commitCue(first, wait: 0)) }
        b.atOutputTime(3.0) { _ in
            let second = p.cue(Playlist(source: blue.path, repeat: false), startAt: 0, at: tick(3.0)) { outcomes.add($0) }
            _ = p.commitCue(second, wait: 0)
        }
        guard let result = runBounded(b, timeout: 60) else { return }
        XCTAssertEqual(result.exitCode, 0, result.reason)
        p.drainEvents()
        guard outcomes.all.count == 2, case .landed(let late, _) = outcomes.all[1] else {
            return XCTFail("outcomes: \(outcomes.all)")
        }
        XCTAssertEqual(outcomes.all[0], .landed(lateTicks: 0, lateMs: 0), "prepared ahead: on its frame")

        let stats = try MediaProbe.frameStats(out.path)
        XCTAssertTrue(stats[..<50].allSatisfy(\.looksRed), "red up to the frame before 2.0 s")
        XCTAssertEqual(clockSeconds(stats[50]) ?? 0, 7, accuracy: 0.1, "the frame at 2.0 s is the item's at 7.0 s")
        let firstBlue = stats.firstIndex(where: looksBlue)
        XCTAssertEqual(firstBlue, 75 + late, "the second cue shows from the frame its lateness (\(late) ticks) says")
        if let firstBlue { XCTAssertNotNil(clockSeconds(stats[firstBlue - 1]), "the cued item up to then") }
        let s = try sound(out)
        assertCleanCut(s, at: 2.0)
        // Late, what played sounded again until the second cue was ready, then faded out before it.
        assertCleanCut(s, at: Double(75 + late) / 25)
    }

    /// Realtime: the player is paused and a load is on its way (a server that answers late)
    /// when a cue lands: it plays the cued item from its frame, and the load, asked for
    /// before, never takes over.
    func testCueLandsOnAPausedPlayerAndDropsALoadOnItsWay() throws {
        let dir = try makeTempDir()
        try makeLongItem(dir)
        let block = try makeClockItem(dir)
        let served = try makeTempDir()
        try TestMedia.makeColorVideo(in: served, name: "green.mp4", seconds: 5, color: "green", freq: 660)
        let server = try startSlowHTTPServer(root: served, delay: 3)
        let out = dir.appendingPathComponent("out.mp4")
        let yaml = PlayerPreset.video(players: [PlayerPreset.player("main", source: "long.mp4")], output: out)
        let b = try makeBroadcast(yaml, in: dir, duration: 5, realtime: true)
        guard let p = b.player("main") else { return XCTFail("no player") }
        let ticket = p.cue(Playlist(source: block.path, repeat: false), startAt: 7, at: p.format.tickClock.tick(at: 2.0))
        XCTAssertEqual(p.waitForCue(ticket, timeout: 30), .ready, "prepared ahead")
        let seen = Collector<String>()
        let late = server.url("green.mp4")
        b.atOutputTime(0.5) { _ in
            p.pause()
            p.load(source: late)
        }
        b.atOutputTime(2.0) { _ in
            seen.add("\(p.currentState)")
            seen.add("\(p.commitCue(ticket, wait: 0))")
            seen.add("\(p.currentState)")
        }
        guard let result = runBounded(b, timeout: 60) else { return }
        XCTAssertEqual(result.exitCode, 0, result.reason)
        XCTAssertEqual(seen.all, ["paused", "landed(lateTicks: 0, lateMs: 0)", "playing"])
        XCTAssertTrue(server.log.contains("green.mp4"), "the load was asked of the server: \(server.log)")

        let stats = try MediaProbe.frameStats(out.path)
        XCTAssertTrue(stats[..<50].allSatisfy(\.looksRed), "red, then held while paused, up to the frame before 2.0 s")
        let after = stats[50...].enumerated().filter { f in
            clockSeconds(f.element).map { abs($0 - (7 + Double(f.offset) / 25)) > 0.1 } ?? true
        }
        XCTAssertTrue(after.isEmpty, "the cued item from 7 s on, from the frame at 2.0 s to the end: \(after.prefix(5))")
        XCTAssertFalse(stats.contains(where: looksGreen), "the load never takes over")
        let s = try sound(out)
        XCTAssertLessThan(MediaProbe.rmsDB(s.at(0.7, 1.9)), -60, "silent while paused")
        XCTAssertEqual(MediaProbe.dominantFrequency(s.at(2.1, 2.9), rate: rate) ?? 0, 1200, accuracy: 5, "the item's tone at 7 s")
    }

    /// Without a run: a missing file fails, a stop cancels, a later cue replaces, cancelCue calls one off.
    func testCueOutcomesWithoutARun() throws {
        let dir = try makeTempDir()
        let item = try TestMedia.makeColorVideo(in: dir, name: "blue.mp4", seconds: 1, color: "blue", freq: 880)
        let format = MediaFormat(sampleRate: 44100, channels: 2, video: (320, 180, 25))
        let p = MediaPlayer(config: PlayerConfig(id: "p", source: item.path), format: format, feedsVideo: true)
        let list = Playlist(source: item.path, repeat: false)

        let missing = p.cue(Playlist(source: dir.appendingPathComponent("nope.mp4").path, repeat: false), startAt: 0, at: 50)
        guard case .failed(let why) = p.waitForCue(missing, timeout: 30) else { return XCTFail("\(p.cueOutcome(missing))") }
        XCTAssertTrue(why.contains("nope.mp4"), why)

        let a = p.cue(list, startAt: 0, at: 50)
        let b = p.cue(list, startAt: .nan, at: 50)
        XCTAssertEqual(p.cueOutcome(a), .cancelled("replaced by cue \(b)"))
        XCTAssertEqual(p.waitForCue(b, timeout: 30), .ready)
        XCTAssertEqual(p.cancelCue(b), .cancelled("cancelled"))
        XCTAssertEqual(p.commitCue(b, wait: 0), .cancelled("cancelled"), "a cancelled cue cannot be committed")

        let c = p.cue(list, startAt: 0, at: 50)
        p.stop()
        XCTAssertEqual(p.cueOutcome(c), .cancelled("the player was stopped"))
        XCTAssertEqual(p.currentState, .stopped)
    }
}

// No command, at any instant, puts a standby frame or a gap on air (docs/control.md):
// in one realtime recording of a looping playlist of short items, each of next, prev,
// seek, speed, pitch, volume, repeat and load is fired from another thread (as the
// control socket's commands are) within two ticks of an item's end, 50 times in all;
// the recording (ffmpeg signalstats per frame, the PCM ffmpeg decodes) has no frame
// of the standby's red and no silent 10 ms window.

import Foundation
import Synchronization
import XCTest
@testable import MediaPub

final class CommandAtItemEndTests: XCTestCase {
    /// A command and the tick it is fired on, relative to an item's end: -2 and -1 are
    /// the ticks before it (by what is left of the item by its length, give or take half
    /// a tick: its sound may end a little before its pictures), 0, 1 and 2 the ticks from
    /// the change to the next item on (a change of session with at most two ticks of the
    /// item left: a switch a command makes is no item's end).
    private struct Shot {
        let name: String
        let offset: Int
        let fire: @Sendable (MediaPlayer) -> Void
    }

    /// Decides on each tick (on the timeline thread) whether the next shot is due, and
    /// fires it on a queue of its own, racing the ticks that follow.
    private final class Driver: Sendable {
        private struct State {
            var shots: [Shot]
            var fired: [String] = []
            var lastSession: ObjectIdentifier?
            /// Ticks left of the item at the last tick.
            var lastLeft: Double?
            /// Ticks since the last item's end, and the offsets fired after it.
            var ticksSinceEnd = 99
            var firedAfter: Set<Int> = []
            var ticks = 0
            /// The tick the last shot was fired on.
            var lastShotAt: Int?
            /// The item (session) a shot was last fired before the end of.
            var firedBefore: ObjectIdentifier?
        }
        private let state: Mutex<State>
        private let commands = DispatchQueue(label: "test-commands")
        private let fps: Double

        init(_ shots: [Shot], fps: Double) {
            state = Mutex(State(shots: shots))
            self.fps = fps
        }

        var fired: [String] { state.withLock { $0.fired } }
        var left: Int { state.withLock { $0.shots.count } }

        /// Returns true once every shot was fired and 0.6 s more has played (what the last one does on air).
        @discardableResult
        func tick(_ player: MediaPlayer) -> Bool {
            let session = player.state.withLock { $0.current.map(ObjectIdentifier.init) }
            let speed = player.settings.speed
            // On the timeline: the item's length as the player has it (`durationMs` asks the pipeline).
            let left: Double? = player.lengthMs.map { Double($0 - player.positionMs) / 1000 / speed * fps }
            let shot = state.withLock { s -> Shot? in
                s.ticks += 1
                s.ticksSinceEnd += 1
                if session != s.lastSession, (s.lastLeft ?? 99) <= 2.5 { s.ticksSinceEnd = 0; s.firedAfter = [] }
                s.lastSession = session
                s.lastLeft = left
                guard let shot = s.shots.first, let session else { return nil }
                if shot.offset < 0 {
                    guard s.firedBefore != session, let left, left > 0, left <= Double(-shot.offset) + 0.5 else { return nil }
                    s.firedBefore = session
                } else {
                    guard s.ticksSinceEnd == shot.offset, !s.firedAfter.contains(shot.offset) else { return nil }
                    s.firedAfter.insert(shot.offset)
                }
                s.shots.removeFirst()
                if s.shots.isEmpty { s.lastShotAt = s.ticks }
                s.fired.append("\(shot.name)@\(shot.offset) \(String(format: "%.2f", 1 + Double(s.ticks - 1) / fps))")
                return shot
            }
            if let shot { commands.async { shot.fire(player) } }
            return state.withLock { s in s.lastShotAt.map { s.ticks - $0 >= Int(fps * 0.6) } ?? false }
        }
    }

    func testCommandsFiredAtItemEndsNeverPutTheStandbyOrAGapOnAir() throws {
        let dir = try makeTempDir()
        let colours = ["green", "blue", "yellow", "magenta"]
        for (i, c) in colours.enumerated() {
            try TestMedia.makeColorVideo(in: dir, name: "\(c).mp4", seconds: 0.6, color: c, freq: 440 + 110 * Double(i))
        }
        let out = dir.appendingPathComponent("out.mp4")
        let player = "  - id: main\n    video: true\n    playlist:\n      mode: loop\n      items: [\(colours.map { "\($0).mp4" }.joined(separator: ", "))]\n"
        let yaml = PlayerPreset.video(players: [player], output: out, extra: "standby:\n  color: \"#FF0000\"")

        let files = colours.map { dir.appendingPathComponent("\($0).mp4").path }
        // The commands in turn; `repeat on` comes before each load, so the loaded source loops.
        let kinds: [(String, @Sendable (MediaPlayer, Int) -> Void)] = [
            ("next", { p, _ in p.next() }),
            ("prev", { p, _ in p.previous() }),
            ("seek", { p, _ in _ = p.seek(toMs: 40) }),
            ("speed", { p, k in try? p.setSpeed(k % 2 == 0 ? 1.25 : 1) }),
            ("pitch", { p, k in try? p.setPitch(k % 2 == 0 ? 3 : 0) }),
            ("volume", { p, k in p.setPublishVolume(k % 2 == 0 ? 90 : 100) }),
            ("repeat-on", { p, _ in p.setRepeat(true) }),
            ("load", { p, k in p.load(source: files[k % files.count]) }),
            ("repeat-off", { p, _ in p.setRepeat(false) }),
        ]
        // Three after an item's end and two before the next one's, as far as the commands let them.
        let offsets = [0, 1, 2, -2, -1, 1, 2, -1, 0, -2]
        let shots = (0..<50).map { i -> Shot in
            let (name, run) = kinds[i % kinds.count]
            return Shot(name: name, offset: offsets[i % offsets.count]) { p in run(p, i / kinds.count) }
        }
        let driver = Driver(shots, fps: 25)
        // The run ends once every command has fired (some 14 s), 25 s at most.
        let limit = 25.0
        let b = try makeBroadcast(yaml, in: dir, duration: limit, realtime: true)
        let main = try XCTUnwrap(b.player("main"))
        for tick in 25..<Int(limit * 25) {
            b.atOutputTime(Double(tick) / 25) { b in if driver.tick(main) { b.requestStop() } }
        }
        guard let result = runBounded(b, timeout: 60) else { return }
        XCTAssertEqual(result.exitCode, 0, "run: \(result.reason)")
        print("commands fired within two ticks of an item's end: \(driver.fired.count): \(driver.fired)")
        XCTAssertEqual(driver.left, 0, "every command fired: \(driver.fired)")

        // From the first picture of the content on (the standby is on air until the first item is ready).
        let stats = try MediaProbe.frameStats(out.path)
        let first = try XCTUnwrap(stats.firstIndex { !$0.looksRed }, "the content went on air")
        let red = stats[first...].filter(\.looksRed).map { String(format: "%.2f", $0.pts) }
        print("standby frames once the content is on air: \(red.count) at \(red)")
        XCTAssertTrue(red.isEmpty, "standby frames at \(red)")
        let pcm = try MediaProbe.decodePCM(out.path, rate: 44100)
        let start = try MediaProbe.streamStartTime(out.path, type: "audio")
        let seconds = Double(pcm.count) / 44100 + start
        let from = stats[first].pts + 0.1
        let levels = MediaProbe.windowRMSDB(MediaProbe.slice(pcm, rate: 44100, from: from - start, to: seconds - 0.2 - start),
                                            rate: 44100, window: 0.01)
        let silent = levels.enumerated().filter { $0.element < -40 }.map { String(format: "%.2f", from + Double($0.offset) * 0.01) }
        print("silent 10 ms windows once the content is on air: \(silent.count) at \(silent)")
        XCTAssertTrue(silent.isEmpty, "silent 10 ms windows at \(silent)")
    }
}

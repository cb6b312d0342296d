// A programme's hand-overs that are no block's time (docs/presets.md, Schedule): a
// block whose single item ends before the block does goes on with the filler as a cut
// (no standby frame, no gap), and the block after an `overrun: finish` block plays its
// own item for its slot. One rehearsal as fast as possible of 50 cycles, checked on
// the recording (ffmpeg signalstats per frame, the PCM ffmpeg decodes).

import Foundation
import XCTest

final class ProgrammeHandoverTests: XCTestCase {
    private enum Colour: Equatable { case red, green, blue, standby, other }

    /// BT.601 limited range: red Y≈81 U≈90 V≈240, green Y≈145 U≈54 V≈34, blue Y≈41 U≈240 V≈110,
    /// the standby's magenta Y≈106 U≈202 V≈222.
    private func colour(_ f: FrameStat) -> Colour {
        if f.uavg > 180, f.vavg > 180 { return .standby }
        if f.vavg > 200, f.uavg < 120 { return .red }
        if f.uavg < 100, f.vavg < 100 { return .green }
        if f.uavg > 200 { return .blue }
        return .other
    }

    /// Each 3 s cycle: blocks f (red) and g (grey), each a 1.2 s item with `overrun: finish` in
    /// a 1 s slot, so g starts 0.2 s late and block n (blue, a single 0.5 s item) 0.4 s late;
    /// n's item ends 0.1 s before its slot does: the filler (green) plays the rest. 25 cycles:
    /// 50 finishes followed by a block (before: that block was cut to the filler after a
    /// frame in some), 25 blocks handing over to the filler (before: 1 to 3 standby frames
    /// and silence each time).
    func testABlockEndingBeforeItsSlotCutsToTheFillerAndTheBlockAfterAFinishPlaysItsItem() throws {
        let dir = try makeTempDir()
        try TestMedia.makeColorVideo(in: dir, name: "f.mp4", seconds: 1.2, color: "red", freq: 440, size: "64x36")
        try TestMedia.makeColorVideo(in: dir, name: "g.mp4", seconds: 1.2, color: "gray", freq: 550, size: "64x36")
        try TestMedia.makeColorVideo(in: dir, name: "n.mp4", seconds: 0.5, color: "blue", freq: 660, size: "64x36")
        try TestMedia.makeColorVideo(in: dir, name: "filler.mp4", seconds: 4, color: "green", freq: 880, size: "64x36")
        let cycles = 25
        let start = ISO8601DateFormatter().date(from: "2026-12-24T10:00:00Z")!
        let clock = DateFormatter()
        clock.dateFormat = "yyyy-MM-dd HH:mm:ss"
        clock.timeZone = TimeZone(identifier: "UTC")
        var blocks = ""
        for i in 0..<cycles {
            let at = start.addingTimeInterval(Double(i) * 3)
            blocks += "    - {id: f\(i), at: \"\(clock.string(from: at))\", duration: 1s, source: f.mp4, overrun: finish}\n"
            blocks += "    - {id: g\(i), at: \"\(clock.string(from: at.addingTimeInterval(1)))\", duration: 1s, source: g.mp4, overrun: finish}\n"
            blocks += "    - {id: n\(i), at: \"\(clock.string(from: at.addingTimeInterval(2)))\", duration: 1s, source: n.mp4}\n"
        }
        let out = dir.appendingPathComponent("out.mp4")
        var yaml = PlayerPreset.video(players: ["  - id: main\n    video: true\n"], output: out, extra: """
            standby:
              color: "#FF00FF"
            schedule:
              timezone: UTC
              filler: {items: [filler.mp4], mode: loop}
              blocks:
            \(blocks)
            """)
        yaml = yaml.replacingOccurrences(of: "size: 320x180", with: "size: 64x36")
        let seconds = Double(cycles) * 3
        let r = try runPreset(yaml, in: dir, args: ["--no-realtime", "--duration", "\(Int(seconds))s",
                                                    "--from", "2026-12-24 10:00:00"], timeout: 240)
        XCTAssertEqual(r.status, 0, r.summary("run"))

        let frames = try MediaProbe.frameStats(out.path)
        XCTAssertEqual(Double(frames.count), seconds * 25, accuracy: 1)
        let standby = frames.filter { colour($0) == .standby }.map { String(format: "%.2f", $0.pts) }
        print("standby frames in \(cycles) cycles: \(standby.count) at \(standby.prefix(20))")
        XCTAssertTrue(standby.isEmpty, "standby frames at \(standby.prefix(20))")
        // Each cycle: red 1.2 s, grey 1.2 s, blue 0.5 s (each block's item, all of it), green the rest.
        var short: [String] = []
        for i in 0..<cycles {
            let cycle = frames[min(frames.count, i * 75)..<min(frames.count, (i + 1) * 75)]
            let (red, grey, blue) = (cycle.filter { colour($0) == .red }.count, cycle.filter { colour($0) == .other }.count,
                                     cycle.filter { colour($0) == .blue }.count)
            if abs(red - 30) > 1 || abs(grey - 30) > 1 || abs(blue - 12) > 1 {
                short.append("cycle \(i): red \(red), grey \(grey), blue \(blue) frames")
            }
        }
        var runs: [String] = []
        var last: (Colour, Int)?
        for (i, f) in frames.enumerated() where last?.0 != colour(f) {
            if let l = last { runs.append("\(l.0)@\(String(format: "%.2f", Double(l.1) / 25))x\(i - l.1)") }
            last = (colour(f), i)
        }
        print("colour runs: \(runs.prefix(40))")
        print("cycles where a block after a finish (2 a cycle) did not play its item: \(short.count) of \(cycles)")
        XCTAssertTrue(short.isEmpty, "\(short.prefix(10))")

        let pcm = try MediaProbe.decodePCM(out.path, rate: 44100)
        let audioStart = try MediaProbe.streamStartTime(out.path, type: "audio")
        let levels = MediaProbe.windowRMSDB(MediaProbe.slice(pcm, rate: 44100, from: 0.2 - audioStart, to: seconds - 0.2 - audioStart),
                                            rate: 44100, window: 0.01)
        let median = levels.sorted()[levels.count / 2]
        // The 50 ms fades of a cut stay within 30 dB of the tones; a gap does not.
        let silent = levels.enumerated().filter { $0.element < median - 30 }.map { String(format: "%.2f", 0.2 + Double($0.offset) * 0.01) }
        print("silent 10 ms windows in \(cycles) cycles: \(silent.count) at \(silent.prefix(20))")
        XCTAssertTrue(silent.isEmpty, "silent 10 ms windows at \(silent.prefix(20))")
    }
}

import Foundation
import XCTest
@testable import MediaPub

/// Overlays on the output picture (docs/presets.md, overlays), checked in the recording
/// with ffmpeg: a logo blended at its opacity and nothing else touched, a now-playing
/// text that changes on the frame its track does, and `ctl overlay hide` from the next
/// frame with no output reconnecting (docs/control.md).
final class OverlayTests: XCTestCase {
    /// The picture under the overlays: a solid colour, RGB.
    static let background = "0x406080"
    static let backgroundRGB = (0x40, 0x60, 0x80)

    /// Per frame, the mean R, G, B (`yuv444p`: Y, U, V) of the `w`×`h` region at `x`,`y` of the recording (ffmpeg).
    private func regionMeans(_ path: URL, x: Int, y: Int, w: Int, h: Int, format: String = "rgb24") throws -> [[Double]] {
        let raw = path.deletingPathExtension().appendingPathExtension("\(x)-\(y).\(format)")
        try TestMedia.ffmpegRun(["-i", path.path, "-vf", "crop=\(w):\(h):\(x):\(y),scale=1:1:flags=area",
                                  "-f", "rawvideo", "-pix_fmt", format, raw.path])
        let bytes = [UInt8](try Data(contentsOf: raw))
        return stride(from: 0, to: bytes.count - 2, by: 3).map { [Double(bytes[$0]), Double(bytes[$0 + 1]), Double(bytes[$0 + 2])] }
    }

    /// Per frame, the `w`×`h` region at `x`,`y` in grey, scaled to `sw`×`sh` (a signature of what is drawn there).
    private func regionGrey(_ path: URL, x: Int, y: Int, w: Int, h: Int, sw: Int, sh: Int) throws -> [[Double]] {
        let raw = path.deletingPathExtension().appendingPathExtension("grey.raw")
        try TestMedia.ffmpegRun(["-i", path.path, "-vf", "crop=\(w):\(h):\(x):\(y),scale=\(sw):\(sh):flags=area",
                                  "-f", "rawvideo", "-pix_fmt", "gray", raw.path])
        let bytes = [UInt8](try Data(contentsOf: raw))
        return stride(from: 0, to: bytes.count - sw * sh + 1, by: sw * sh).map { i in bytes[i..<i + sw * sh].map(Double.init) }
    }

    private func distance(_ a: [Double], _ b: [Double]) -> Double {
        zip(a, b).map { abs($0 - $1) }.reduce(0, +) / Double(max(1, a.count))
    }

    private func logoPreset(_ dir: URL, source: URL, out: URL, overlays: String, extra: String = "") -> String {
        PlayerPreset.video(name: "ovl\(UInt32.random(in: 0...UInt32.max))", players: [PlayerPreset.player("main", source: source.path)],
                           output: out, extra: overlays + extra)
    }

    /// A red logo top-right at 50 %: its corner is the half-way blend of the logo and the
    /// picture under it, within encoder error; the rest of the picture is as without overlays.
    /// The logo as drawn is the same picture at 100 % bottom-right; the blend is taken in
    /// Y, U, V, where it is made (an RGB mean of a saturated red is clipped).
    func testALogoIsBlendedAtItsOpacityAndTouchesNothingElse() throws {
        let dir = try makeTempDir()
        let source = try TestMedia.makeColorVideo(in: dir, name: "bg.mp4", seconds: 2, color: Self.background, freq: 440)
        let logo = try TestMedia.makePNG(in: dir, name: "logo.png", color: "0xFF0000", size: "40x20")
        let plain = dir.appendingPathComponent("plain.mp4"), drawn = dir.appendingPathComponent("drawn.mp4")
        XCTAssertEqual(try runPreset(logoPreset(dir, source: source, out: plain, overlays: ""), in: dir, name: "plain.yaml").status, 0)
        let overlay = "overlays:\n  - {id: logo, image: \"\(logo.path)\", position: top-right, margin: 0, opacity: 50%}\n"
            + "  - {id: full, image: \"\(logo.path)\", position: bottom-right, margin: 0}\n"
        let run = try runPreset(logoPreset(dir, source: source, out: drawn, overlays: overlay), in: dir, name: "drawn.yaml")
        XCTAssertEqual(run.status, 0, run.summary("run with a logo"))
        // The logo's inside (away from its edges, where chroma is shared with the picture).
        let cornerPlain = try regionMeans(plain, x: 284, y: 4, w: 32, h: 12, format: "yuv444p")
        let corner = try regionMeans(drawn, x: 284, y: 4, w: 32, h: 12, format: "yuv444p")
        let full = try regionMeans(drawn, x: 284, y: 164, w: 32, h: 12, format: "yuv444p")
        XCTAssertGreaterThanOrEqual(corner.count, 50, "2 s at 25 fps")
        XCTAssertEqual(corner.count, cornerPlain.count)
        for (i, ((got, under), logo)) in zip(zip(corner, cornerPlain), full).enumerated() {
            XCTAssertGreaterThan(logo[2] - logo[1], 120, "frame \(i): the logo at 100 % is red (V well above U): \(logo)")
            let expected = (0..<3).map { (logo[$0] + under[$0]) / 2 }
            for c in 0..<3 {
                XCTAssertEqual(got[c], expected[c], accuracy: 6, "frame \(i) channel \(c): \(got) vs the blend \(expected)")
            }
        }
        // Everything away from the logos: as without overlays.
        let restPlain = try regionMeans(plain, x: 0, y: 30, w: 240, h: 140)
        let rest = try regionMeans(drawn, x: 0, y: 30, w: 240, h: 140)
        XCTAssertEqual(rest.count, restPlain.count)
        for (i, (a, b)) in zip(rest, restPlain).enumerated() {
            XCTAssertLessThan(distance(a, b), 1.5, "frame \(i): the picture away from the logo changed: \(a) vs \(b)")
        }
    }

    /// A now-playing text: the same on every frame of a track, different for the next
    /// track's title, and changed within a frame of the picture's own change.
    func testTheNowPlayingTextChangesOnTheFrameItsTrackDoes() throws {
        let dir = try makeTempDir()
        func item(_ name: String, title: String, mark: String) throws -> URL {
            let out = dir.appendingPathComponent(name)
            // The same colour where the text goes; a mark of the item's own at the top, to see its first frame.
            try TestMedia.ffmpegRun([
                "-f", "lavfi", "-i", "color=c=\(Self.background):s=320x180:r=25:d=1,drawbox=x=0:y=0:w=320:h=40:color=\(mark):t=fill",
                "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=1", "-map", "0:v", "-map", "1:a",
                "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "25", "-bf", "0",
                "-c:a", "aac", "-ac", "2", "-t", "1", "-metadata", "title=\(title)", out.path])
            return out
        }
        let first = try item("one.mp4", title: "Alpha", mark: "0x20C020")
        let second = try item("two.mp4", title: "Zebra Crossing Waltz", mark: "0xC02020")
        let out = dir.appendingPathComponent("np.mp4")
        let yaml = PlayerPreset.video(name: "ovlnp\(UInt32.random(in: 0...UInt32.max))", players: [
            "  - id: music\n    playlist: {items: [\"\(first.path)\", \"\(second.path)\"]}\n",
        ], output: out, extra: "overlays:\n  - {id: np, text: \"{player.music.title}\", position: bottom-left, margin: 10,"
            + " font: \"Sans Bold 20\", color: \"#FFFFFF\", outline: \"#000000\"}\n")
        let run = try runPreset(yaml, in: dir, args: ["--no-realtime", "--duration", "2s"])
        XCTAssertEqual(run.status, 0, run.summary("run"))
        let marks = try regionMeans(out, x: 0, y: 0, w: 320, h: 32)
        let text = try regionGrey(out, x: 0, y: 130, w: 320, h: 50, sw: 80, sh: 12)
        XCTAssertEqual(text.count, marks.count)
        XCTAssertGreaterThanOrEqual(marks.count, 48, "two 1 s items at 25 fps")
        // The second item's first frame: its mark is red.
        let cut = try XCTUnwrap(marks.firstIndex { $0[0] > $0[1] }, "the second item's picture")
        XCTAssertEqual(Double(cut), 25, accuracy: 1.5, "the items change at 1 s")
        let one = text[cut / 2], two = text[min(text.count - 1, cut + 12)]
        XCTAssertGreaterThan(distance(one, two), 6, "the two titles draw different texts")
        for f in 1..<(cut - 1) { XCTAssertLessThan(distance(text[f], one), 3, "frame \(f): the first title, as drawn on its frames") }
        // The playlist comes round to the first item again at 2 s: the second's 1 s is what is checked.
        for f in (cut + 1)..<min(text.count, cut + 24) { XCTAssertLessThan(distance(text[f], two), 3, "frame \(f): the second title, as drawn on its frames") }
        let changed = try XCTUnwrap(text.indices.first { distance(text[$0], two) < distance(text[$0], one) }, "the text changes")
        XCTAssertEqual(changed, cut, accuracy: 1, "the text changes within a frame of its track (frame \(cut))")
    }

    /// A white logo top-left: in the recording, never in the player's frame tap.
    func testTheFrameTapsCarryThePictureWithoutTheOverlays() throws {
        let dir = try makeTempDir()
        let source = try TestMedia.makeColorVideo(in: dir, name: "bg.mp4", seconds: 1, color: Self.background, freq: 440)
        let logo = try TestMedia.makePNG(in: dir, name: "logo.png", color: "0xFFFFFF", size: "40x20")
        let out = dir.appendingPathComponent("tap.mp4")
        let yaml = PlayerPreset.video(players: [PlayerPreset.player("main", source: source.path)], output: out,
                                      extra: "overlays:\n  - {id: logo, image: \"\(logo.path)\", position: top-left, margin: 0}\n")
        let b = try makeBroadcast(yaml, in: dir)
        let taps = Collector<VideoFrame>()
        b.player("main")?.addVideoTap(format: .rgba) { taps.add($0) }
        guard let result = runBounded(b, timeout: 60) else { return }
        XCTAssertEqual(result.exitCode, 0, result.reason)
        let recorded = try regionMeans(out, x: 4, y: 4, w: 32, h: 12)
        XCTAssertFalse(recorded.isEmpty)
        for (i, c) in recorded.enumerated() { XCTAssertGreaterThan(c[1], 230, "frame \(i): the recording has the white logo: \(c)") }
        let frames = taps.all
        XCTAssertGreaterThanOrEqual(frames.count, 20, "the tap got the second's frames")
        for f in frames {
            let bytes = [UInt8](f.data)
            let at = (10 * f.width + 10) * 4   // inside where the logo is drawn on the output
            XCTAssertEqual(Double(bytes[at + 1]), Double(Self.backgroundRGB.1), accuracy: 8,
                           "tap at \(f.ptsMs) ms: the player's own picture, no logo: \(bytes[at..<at + 4])")
        }
    }

    /// On standby the slate gets the overlays too, but for one with `on_standby: false`.
    func testTheStandbySlateGetsTheOverlaysThatAskForIt() throws {
        let dir = try makeTempDir()
        let source = try TestMedia.makeColorVideo(in: dir, name: "bg.mp4", seconds: 1, color: Self.background, freq: 440)
        let logo = try TestMedia.makePNG(in: dir, name: "logo.png", color: "0xFFFFFF", size: "40x20")
        let out = dir.appendingPathComponent("standby.mp4")
        let yaml = PlayerPreset.video(name: "ovlsb\(UInt32.random(in: 0...UInt32.max))",
                                      players: [PlayerPreset.player("main", source: source.path)], output: out,
                                      extra: "publishing: false\nstandby: {color: \"#000000\"}\noverlays:\n"
            + "  - {id: on, image: \"\(logo.path)\", position: top-left, margin: 0}\n"
            + "  - {id: off, image: \"\(logo.path)\", position: top-right, margin: 0, on_standby: false}\n")
        let run = try runPreset(yaml, in: dir, args: ["--no-realtime", "--duration", "1s"])
        XCTAssertEqual(run.status, 0, run.summary("run"))
        let left = try regionMeans(out, x: 4, y: 4, w: 32, h: 12), right = try regionMeans(out, x: 284, y: 4, w: 32, h: 12)
        XCTAssertGreaterThanOrEqual(left.count, 24)
        for (i, (l, r)) in zip(left, right).enumerated() {
            XCTAssertGreaterThan(l[1], 230, "frame \(i): the logo over the black slate: \(l)")
            XCTAssertLessThan(r[1], 25, "frame \(i): on_standby: false, not over the slate: \(r)")
        }
    }

    private func ctl(_ socket: String, _ words: [String]) throws -> [String: Any] {
        let r = try CLI.run(["ctl", "--socket", socket] + words, timeout: 30)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.summary("ctl \(words)"))
    }

    /// `ctl overlay hide logo`: from the frame the `overlay` event names, the corner is the
    /// picture alone; before it, the logo; the output never reconnected.
    func testHidingALogoTakesEffectOnTheNextFramesWithoutReconnecting() throws {
        let dir = try makeTempDir()
        let source = try TestMedia.makeColorVideo(in: dir, name: "bg.mp4", seconds: 1, color: Self.background, freq: 440)
        let logo = try TestMedia.makePNG(in: dir, name: "logo.png", color: "0xFF0000", size: "40x20")
        let out = dir.appendingPathComponent("hide.mp4")
        let events = dir.appendingPathComponent("events.jsonl")
        let socket = dir.appendingPathComponent("c.sock").path
        let yaml = PlayerPreset.video(name: "ovlhide\(UInt32.random(in: 0...UInt32.max))",
                                      players: [PlayerPreset.player("main", source: source.path, ["repeat: true"])], output: out,
                                      extra: "overlays:\n  - {id: logo, image: \"\(logo.path)\", position: top-right, margin: 0, opacity: 50%}\n")
        let preset = try writeFile(dir, "hide.yaml", yaml)
        let run = try startMediaPub(["--preset", preset.path, "--realtime", "--duration", "4s", "--control", socket, "--events", events.path])
        XCTAssertTrue(EventLog.waitFor(events, of: run, EventLog.outputState("publishing")), "the recording publishes")
        XCTAssertEqual(try ctl(socket, ["overlay", "hide", "nosuch"])["ok"] as? Bool, false, "no such overlay")
        XCTAssertEqual(try ctl(socket, ["overlay", "hide", "logo"])["ok"] as? Bool, true)
        let hidden: ([String: Any]) -> Bool = { $0["event"] as? String == "overlay" && $0["name"] as? String == "logo" && $0["state"] as? String == "hidden" }
        XCTAssertTrue(EventLog.waitFor(events, of: run, hidden), "the overlay event")
        let status = try XCTUnwrap(try ctl(socket, ["status"])["status"] as? [String: Any])
        let shown = try XCTUnwrap((status["overlays"] as? [[String: Any]])?.first)
        XCTAssertEqual(shown["visible"] as? Bool, false)
        XCTAssertTrue(run.waitForExit(timeout: 60), "the run ends after its 4 s")
        let log = try EventLog.read(events)
        let at = try XCTUnwrap(log.first(where: hidden)?["output_ms"] as? Int)
        XCTAssertEqual(shown["since_ms"] as? Int, at)
        let states = log.filter { $0["event"] as? String == "output.state" }.compactMap { $0["state"] as? String }
        XCTAssertEqual(states.filter { $0 == "publishing" }.count, 1, "published once, never reconnected: \(states)")
        XCTAssertFalse(states.contains("reconnecting"), "\(states)")
        let corner = try regionMeans(out, x: 284, y: 4, w: 32, h: 12)
        let frame = at * 25 / 1000
        XCTAssertGreaterThan(frame, 2, "hidden after some frames with the logo")
        XCTAssertLessThan(frame + 3, corner.count, "and some without it")
        let rgb = Self.backgroundRGB
        // The recording's timeline starts at its own first keyframe, up to a frame off the
        // output's: the frame either side of the hide is not judged.
        for (i, c) in corner.enumerated() where i < frame - 1 && i > 0 {
            XCTAssertGreaterThan(c[0] - Double(rgb.0), 40, "frame \(i), before the hide: the logo's red: \(c)")
        }
        for (i, c) in corner.enumerated() where i >= frame + 1 {
            XCTAssertLessThan(distance(c, [Double(rgb.0), Double(rgb.1), Double(rgb.2)]), 6, "frame \(i), after the hide: the picture alone: \(c)")
        }
    }
}

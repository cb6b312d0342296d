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

    /// A text is laid out and placed as GStreamer's own textoverlay draws it on the picture
    /// (as it still draws a text with a box): its letters' pixels are where textoverlay puts
    /// them, though it is rendered once and blended, not drawn by a textoverlay each frame.
    func testATextIsDrawnAsTextoverlayDrawsItOnThePicture() throws {
        let dir = try makeTempDir()
        let source = try TestMedia.makeColorVideo(in: dir, name: "bg.mp4", seconds: 1, color: Self.background, freq: 440)
        let out = dir.appendingPathComponent("text.mp4")
        let text = "text: \"Abc 123\", font: \"Sans Bold 20\", color: \"#FFFFFF\""
        let yaml = PlayerPreset.video(players: [PlayerPreset.player("main", source: source.path)], output: out,
                                      extra: "overlays:\n  - {id: blended, \(text), x: 10, y: 10}\n"
                                          + "  - {id: drawn, \(text), x: 10, y: 100, box: \"#00000080\"}\n")
        let run = try runPreset(yaml, in: dir, args: ["--no-realtime"])
        XCTAssertEqual(run.status, 0, run.summary("run"))
        // The white letters (luma over 160, on a picture of 90 and a box darker still), pixel by
        // pixel; only antialiased edges, over the two backgrounds, may fall either side.
        let blended = try regionGrey(out, x: 0, y: 0, w: 200, h: 60, sw: 200, sh: 60).map { $0.map { $0 > 160 } }
        let drawn = try regionGrey(out, x: 0, y: 90, w: 200, h: 60, sw: 200, sh: 60).map { $0.map { $0 > 160 } }
        XCTAssertEqual(blended.count, drawn.count)
        XCTAssertGreaterThanOrEqual(blended.count, 20, "1 s at 25 fps")
        for (i, (mine, theirs)) in zip(blended, drawn).enumerated() {
            let letters = theirs.filter { $0 }.count
            let differ = zip(mine, theirs).filter { $0 != $1 }.count
            XCTAssertGreaterThan(letters, 300, "frame \(i): textoverlay drew the letters")
            XCTAssertLessThan(Double(differ), 0.15 * Double(letters), "frame \(i): \(differ) of \(letters) letter pixels differ")
        }
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

    /// A realtime run of `source` repeated, recorded to `name`.mp4, with a logo top-right and a
    /// control socket, once its recording publishes.
    private func startLogoRun(_ dir: URL, source: URL, logo: URL, name: String, opacity: String = "",
                              args: [String] = []) throws -> (RunningProcess, URL, URL, String) {
        let out = dir.appendingPathComponent("\(name).mp4")
        let events = dir.appendingPathComponent("events.jsonl")
        let socket = dir.appendingPathComponent("c.sock").path
        let yaml = PlayerPreset.video(name: "ovl\(name)\(UInt32.random(in: 0...UInt32.max))",
                                      players: [PlayerPreset.player("main", source: source.path, ["repeat: true"])], output: out,
                                      extra: "overlays:\n  - {id: logo, image: \"\(logo.path)\", position: top-right, margin: 0\(opacity)}\n")
        let preset = try writeFile(dir, "\(name).yaml", yaml)
        let run = try startMediaPub(["--preset", preset.path, "--realtime", "--control", socket, "--events", events.path] + args)
        XCTAssertTrue(EventLog.waitFor(events, of: run, EventLog.outputState("publishing")), "the recording publishes")
        return (run, out, events, socket)
    }

    /// `ctl overlay hide logo`: from the frame the `overlay` event names, the corner is the
    /// picture alone; before it, the logo; the output never reconnected.
    func testHidingALogoTakesEffectOnTheNextFramesWithoutReconnecting() throws {
        let dir = try makeTempDir()
        let source = try TestMedia.makeColorVideo(in: dir, name: "bg.mp4", seconds: 1, color: Self.background, freq: 440)
        let logo = try TestMedia.makePNG(in: dir, name: "logo.png", color: "0xFF0000", size: "40x20")
        let (run, out, events, socket) = try startLogoRun(dir, source: source, logo: logo, name: "hide", opacity: ", opacity: 50%",
                                                          args: ["--duration", "4s"])
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

extension OverlayTests {
    /// The picture alerts look under the overlays (docs/presets.md, monitor.picture): a
    /// still picture with a clock ticking over it is still frozen, and a black one with a
    /// white logo on it still black, while the recording shows the clock's seconds moving
    /// and the logo on the black.
    func testAStillPictureUnderAMovingClockIsFrozenAndABlackOneUnderALogoBlack() throws {
        let dir = try makeTempDir()
        let item = dir.appendingPathComponent("item.mp4")
        // Still 0–12 s, black 12–24 s, moving for the last second.
        try TestMedia.ffmpegRun([
            "-f", "lavfi", "-i", "color=c=gray:s=320x180:r=25:d=25,format=yuv420p,"
                + "geq=lum='if(lt(T,12),128+60*sin(X/10),if(lt(T,24),16,128+60*sin(2*PI*T+X/10)))':cb=128:cr=128",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=25",
            "-map", "0:v", "-map", "1:a", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "25", "-bf", "0",
            "-c:a", "aac", "-ac", "2", "-t", "25", item.path,
        ])
        let logo = try TestMedia.makePNG(in: dir, name: "logo.png", color: "0xFFFFFF", size: "40x20")
        let out = dir.appendingPathComponent("clock.mp4")
        let events = dir.appendingPathComponent("events.jsonl")
        let yaml = PlayerPreset.video(name: "ovlclk\(UInt32.random(in: 0...UInt32.max))",
                                      players: [PlayerPreset.player("tv", source: item.path)], output: out, extra: """
            overlays:
              - {id: clock, text: "{clock:%H:%M:%S}", position: top-left, margin: 8, font: "Sans Bold 20", color: "#FFFFFF", outline: "#000000"}
              - {id: logo, image: "\(logo.path)", position: top-right, margin: 0}
            monitor: { picture: { black: 10s, frozen: 10s } }

            """)
        let run = try runPreset(yaml, in: dir, args: ["--no-realtime", "--events", events.path])
        XCTAssertEqual(run.status, 0, run.summary("run with a clock, a logo and picture checks"))
        let log = try EventLog.read(events)
        func seconds(_ e: [String: Any]?, _ key: String) -> Double { Double(e?[key] as? Int ?? -1_000_000) / 1000 }
        for (kind, at) in [("frozen", 10.0), ("black", 22.0)] {
            let raised = log.filter { $0["event"] as? String == "alert" && $0["kind"] as? String == kind }
            XCTAssertEqual(raised.count, 1, "one \(kind) alert: \(raised)")
            XCTAssertEqual(seconds(raised.first, "output_ms"), at, accuracy: 0.25, "\(kind) about 10 s into it")
        }
        // The clock moves on the output: its region differs second to second over the still picture.
        let clock = try regionGrey(out, x: 0, y: 0, w: 160, h: 45, sw: 40, sh: 9)
        XCTAssertGreaterThanOrEqual(clock.count, 24 * 25, "the whole item")
        let perSecond = stride(from: 12, to: 12 * 25, by: 25).map { clock[$0] }
        let changes = zip(perSecond, perSecond.dropFirst()).filter { a, b in zip(a, b).contains { abs($0 - $1) > 40 } }.count
        XCTAssertGreaterThanOrEqual(changes, 9, "the clock's seconds change on the output over the still picture")
        let corner = try regionMeans(out, x: 284, y: 4, w: 32, h: 12)
        for f in stride(from: 13 * 25, to: 23 * 25, by: 25) {
            XCTAssertGreaterThan(corner[f][1], 230, "frame \(f): the white logo over the black picture: \(corner[f])")
        }
    }
}

extension OverlayTests {
    /// A run whose outputs take sound only draws no overlay: a warning says so at start,
    /// and `ctl overlay` is refused, not answered ok for nothing.
    func testARunWhoseOutputsTakeSoundOnlyRefusesCtlOverlay() throws {
        let dir = try makeTempDir()
        let source = try TestMedia.makeColorVideo(in: dir, name: "bg.mp4", seconds: 1, color: Self.background, freq: 440)
        let logo = try TestMedia.makePNG(in: dir, name: "logo.png", color: "0xFF0000", size: "40x20")
        let events = dir.appendingPathComponent("events.jsonl")
        let socket = dir.appendingPathComponent("c.sock").path
        let yaml = PlayerPreset.video(name: "ovlsnd\(UInt32.random(in: 0...UInt32.max))",
                                      players: [PlayerPreset.player("main", source: source.path, ["repeat: true"])],
                                      output: dir.appendingPathComponent("sound.m4a"),
                                      extra: "overlays:\n  - {id: logo, image: \"\(logo.path)\", position: top-right}\n")
        let preset = try writeFile(dir, "sound.yaml", yaml)
        let run = try startMediaPub(["--preset", preset.path, "--realtime", "--control", socket, "--events", events.path])
        XCTAssertTrue(EventLog.waitFor(events, of: run, EventLog.outputState("publishing")), "the recording publishes")
        let reply = try ctl(socket, ["overlay", "hide", "logo"])
        XCTAssertEqual(reply["ok"] as? Bool, false, "\(reply)")
        XCTAssertTrue((reply["error"] as? String)?.contains("no output of this run takes pictures") == true, "\(reply)")
        let status = try XCTUnwrap(try ctl(socket, ["status"])["status"] as? [String: Any])
        XCTAssertNil(status["overlays"], "no overlay is drawn, none is shown")
        XCTAssertEqual(try ctl(socket, ["quit"])["ok"] as? Bool, true)
        XCTAssertTrue(run.waitForExit(timeout: 60), "the run ends on quit")
        let warnings = try EventLog.read(events).filter { $0["event"] as? String == "warning" }.compactMap { $0["message"] as? String }
        XCTAssertEqual(warnings.filter { $0.contains("no overlay is drawn") }.count, 1, "the start's warning: \(warnings)")
    }
}

extension OverlayTests {
    /// A boxed text at `x`/`y` (docs/presets.md, overlays): its box is the text grown by 6
    /// pixels on each side, so it begins up to 6 pixels left of `x` and above `y`; inside it
    /// the luma is lowered by the box's alpha, not blended towards black.
    func testATextBoxIsSixPixelsWiderThanItsTextAndLowersTheLumaByItsAlpha() throws {
        let dir = try makeTempDir()
        let source = try TestMedia.makeColorVideo(in: dir, name: "grey.mp4", seconds: 1, color: "0x808080", freq: 440)
        let out = dir.appendingPathComponent("box.mp4")
        let yaml = PlayerPreset.video(name: "ovlbox\(UInt32.random(in: 0...UInt32.max))",
                                      players: [PlayerPreset.player("main", source: source.path)], output: out,
                                      extra: "overlays:\n  - {id: t, text: \"Hg Box\", x: 40, y: 40, font: \"Sans 20\", box: \"#00000060\"}\n")
        let run = try runPreset(yaml, in: dir, args: ["--no-realtime", "--duration", "0.2s"])
        XCTAssertEqual(run.status, 0, run.summary("run"))
        let frame = try XCTUnwrap(try regionGrey(out, x: 0, y: 0, w: 320, h: 180, sw: 320, sh: 180).last)
        func bounds(_ keep: (Double) -> Bool) -> (x0: Int, y0: Int, x1: Int, y1: Int)? {
            let at = frame.indices.filter { keep(frame[$0]) }
            guard !at.isEmpty else { return nil }
            return (at.map { $0 % 320 }.min()!, at.map { $0 / 320 }.min()!, at.map { $0 % 320 }.max()!, at.map { $0 / 320 }.max()!)
        }
        let picture = frame[170 * 320 + 300]
        let box = try XCTUnwrap(bounds { $0 < picture - 48 }, "the box is drawn")
        let text = try XCTUnwrap(bounds { $0 > picture + 48 }, "the text is drawn")
        XCTAssertTrue((34...40).contains(box.x0) && (34...40).contains(box.y0), "the box begins up to 6 px before x, y: \(box)")
        for (margin, side) in [(text.x0 - box.x0, "left"), (text.y0 - box.y0, "top"), (box.x1 - text.x1, "right"), (box.y1 - text.y1, "bottom")] {
            XCTAssertTrue((5...10).contains(margin), "the box is about 6 px past the text on the \(side): \(margin) (\(box), text \(text))")
        }
        // Read as full-range grey: 0x60 of the stream's luma (16–235) is 0x60 × 255 / 219 of it.
        XCTAssertEqual(frame[(box.y0 + 2) * 320 + box.x0 + 2], picture - 0x60 * 255 / 219, accuracy: 8,
                       "the luma lowered by the alpha, not blended (picture \(picture))")
    }
}

extension OverlayTests {
    /// `ctl overlay set logo image=` (docs/control.md): a FIFO, an image over 16 Mpx, and a PNG
    /// damaged past its header are each answered ok:false naming the file, without waiting for
    /// anything, and change nothing (status keeps the old image; no `overlay` event); the run
    /// goes on: a good image set next is drawn from the frame its event names, the old one until then.
    func testCtlOverlaySetRefusesAFIFOAHugeOrDamagedImageAndTheRunGoesOn() throws {
        let dir = try makeTempDir()
        let source = try TestMedia.makeColorVideo(in: dir, name: "bg.mp4", seconds: 1, color: Self.background, freq: 440)
        let red = try TestMedia.makePNG(in: dir, name: "red.png", color: "0xFF0000", size: "40x20")
        let blue = try TestMedia.makePNG(in: dir, name: "blue.png", color: "0x0000FF", size: "40x20")
        let fifo = dir.appendingPathComponent("pipe.png").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let hugePath = TestImages.write(TestImages.pngHeader(width: 20000, height: 20000), to: dir.appendingPathComponent("huge.png").path)
        let damaged = TestImages.write(TestImages.damagedPNG(width: 40, height: 20), to: dir.appendingPathComponent("damaged.png").path)
        let (run, out, events, socket) = try startLogoRun(dir, source: source, logo: red, name: "set")
        for (path, words) in [(fifo, "is not a regular file"), (hugePath, "at most 16 Mpx"), (damaged, "cannot be decoded")] {
            let reply = try ctl(socket, ["overlay", "set", "logo", "image=\(path)"])
            XCTAssertEqual(reply["ok"] as? Bool, false, "\(path): \(reply)")
            let error = reply["error"] as? String ?? ""
            XCTAssertTrue(error.contains(path) && error.contains(words), "\(path): \(reply)")
        }
        let before = try XCTUnwrap((try ctl(socket, ["status"])["status"] as? [String: Any])?["overlays"] as? [[String: Any]])
        XCTAssertEqual(before.first?["image"] as? String, red.path, "nothing changed")
        XCTAssertEqual(try ctl(socket, ["overlay", "set", "logo", "image=\(blue.path)"])["ok"] as? Bool, true)
        let set: ([String: Any]) -> Bool = { $0["event"] as? String == "overlay" && $0["name"] as? String == "logo" }
        XCTAssertTrue(EventLog.waitFor(events, of: run, set), "the overlay event of the good image")
        // Half a second of output with it, as status tells the output's time.
        let setMs = try XCTUnwrap(try EventLog.read(events).first(where: set)?["output_ms"] as? Int)
        var outputMs = 0
        for _ in 0..<300 where outputMs < setMs + 500 {
            outputMs = (try ctl(socket, ["status"])["status"] as? [String: Any])?["output_time_ms"] as? Int ?? 0
        }
        XCTAssertGreaterThanOrEqual(outputMs, setMs + 500, "the output went on after the change")
        XCTAssertEqual(try ctl(socket, ["quit"])["ok"] as? Bool, true)
        XCTAssertTrue(run.waitForExit(timeout: 60), "the run ends on quit")
        let changes = try EventLog.read(events).filter(set)
        XCTAssertEqual(changes.map { $0["state"] as? String }, ["set"], "one change, the good image's: \(changes)")
        let frame = try XCTUnwrap(changes.first?["output_ms"] as? Int) * 25 / 1000
        let corner = try regionMeans(out, x: 284, y: 4, w: 32, h: 12)
        XCTAssertLessThan(frame + 3, corner.count, "frames after the change")
        for (i, c) in corner.enumerated() where i > 0 && i < frame - 1 {
            XCTAssertGreaterThan(c[0] - c[2], 100, "frame \(i), before the change: the red logo: \(c)")
        }
        for (i, c) in corner.enumerated() where i > frame + 1 {
            XCTAssertGreaterThan(c[2] - c[0], 100, "frame \(i), after the change: the blue logo: \(c)")
        }
    }
}

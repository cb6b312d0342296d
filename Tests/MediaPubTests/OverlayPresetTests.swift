import XCTest
@testable import MediaPub
@testable import MediaPubTestSupport

/// Overlays as a preset gives them (docs/presets.md, overlays): a bad one refused at
/// start at its `file:line: key`, the template's fields and the clock's format, and
/// `ctl overlay`'s words. Pure: no pipelines.
final class OverlayPresetTests: XCTestCase {
    typealias K = PresetTestKit

    private func folder() throws -> String {
        let dir = try K.tempDir()
        // A 64x32 PNG (decoded whole where it is checked).
        TestImages.write(TestImages.png(width: 64, height: 32), to: dir + "/logo.png")
        K.touch(dir + "/notes.txt", "not a picture")
        return dir
    }

    private func preset(_ overlays: String) -> String {
        "video: {size: 320x180}\nplayers:\n  - {id: music, source: a.mp4}\noverlays:\n" + overlays
    }

    /// Each bad overlay is one problem, at its line and key.
    func testABadOverlayIsRefusedAtItsKey() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cases: [(String, String, String)] = [
            ("  - {id: logo, image: missing.png}\n", "overlays[0].image", "cannot find"),
            ("  - {id: logo, image: notes.txt}\n", "overlays[0].image", "not a PNG or JPEG"),
            ("  - {id: np, text: hi, font: \"NoSuchFamilyAtAll Bold 20\"}\n", "overlays[0].font", "no font \"NoSuchFamilyAtAll\""),
            ("  - {id: np, text: hi, x: 400, y: 10}\n", "overlays[0].x", "off the 320x180 picture"),
            ("  - {id: np, text: hi, x: 10, y: 100%}\n", "overlays[0].y", "off the 320x180 picture"),
            ("  - {id: logo, image: logo.png, width: 400}\n", "overlays[0].width", "larger than the 320x180 picture"),
            ("  - {id: logo, image: logo.png, margin: 300}\n", "overlays[0].margin", "leaves nothing"),
            ("  - {id: logo, image: logo.png, x: 300, y: 0}\n", "overlays[0].x", "off the 320x180 picture"),
            ("  - {id: np, text: \"{player.ghost.title}\"}\n", "overlays[0].text", "no player \"ghost\""),
            ("  - {id: np, text: \"{clock:%Q}\"}\n", "overlays[0].text", "%Q"),
            ("  - {id: np, text: \"{weather}\"}\n", "overlays[0].text", "is no field"),
            ("  - {id: np}\n", "overlays[0].text", "needs an image or a text"),
            ("  - {id: np, text: hi, image: logo.png}\n", "overlays[0].text", "exclusive"),
            ("  - {id: np, text: hi, color: blue}\n", "overlays[0].color", "not a color"),
            ("  - {id: np, text: hi, outline: \"#000000\", box: \"#00000080\"}\n", "overlays[0].box", "exclusive"),
            ("  - {id: logo, image: logo.png, font: Sans}\n", "overlays[0].font", "only for a text"),
            ("  - {id: a, text: x}\n  - {id: a, text: y}\n", "overlays[1].id", "another overlay is a"),
        ]
        for (overlays, key, words) in cases {
            let problems = K.problems(preset(overlays), base: dir)
            XCTAssertEqual(problems.map(\.key), [key], overlays)
            XCTAssertTrue(problems.first?.message.contains(words) == true, "\(overlays): \(problems)")
            XCTAssertEqual(problems.first?.line, overlays.hasPrefix("  - {id: a") && key.hasSuffix("[1].id") ? 6 : 5, overlays)
        }
        XCTAssertEqual(K.problems("players:\n  - {source: a.mp4}\noverlays:\n  - {id: np, text: hi}\n", base: dir).map(\.key),
                       ["overlays"], "no video section, nothing to draw on")
        let fine = try K.load(preset("  - {id: logo, image: logo.png, position: top-right, width: 10%, opacity: 70%}\n"
                                     + "  - {id: np, text: \"{player.music.title}\", font: \"Sans Bold 24\", box: \"#00000080\"}\n"),
                              base: dir)
        XCTAssertEqual(fine.overlays.map(\.id), ["logo", "np"])
        XCTAssertEqual(fine.overlays[0].image, dir + "/logo.png")
        let image = try ImageFile.load(dir + "/logo.png").get().size
        XCTAssertEqual(OverlayPlacement.logo(fine.overlays[0], image: image, width: 320, height: 180),
                       OverlayPlacement.Rect(x: 320 - 32 - 20, y: 20, width: 32, height: 16), "10% of 320, aspect kept, top-right")
    }

    /// A logo's image is checked whole where the preset is read: a FIFO is refused without
    /// waiting for a writer, an image over 16 Mpx by its header (one whose sides multiplied
    /// overflow, or above a PNG's 2^31-1, too, never trapping), and a PNG damaged past
    /// its header (changed or cut) because it does not decode; each at its `image` key, naming the file.
    func testAFIFOAHugeOrADamagedImageIsRefusedAtValidate() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        XCTAssertEqual(mkfifo(dir + "/pipe.png", 0o600), 0)
        TestImages.write(TestImages.pngHeader(width: 20000, height: 20000), to: dir + "/huge.png")
        // Headers whose sides multiplied overflow Int: refused, never a trap.
        TestImages.write(TestImages.pngHeader(width: 0xFFFF_FFFF, height: 0xFFFF_FFFF), to: dir + "/overflow.png")
        TestImages.write(TestImages.pngHeader(width: 0x7FFF_FFFF, height: 0x7FFF_FFFF), to: dir + "/widest.png")
        TestImages.write(TestImages.damagedPNG(width: 64, height: 32), to: dir + "/damaged.png")
        TestImages.write(TestImages.damagedPNG(width: 64, height: 32, cut: true), to: dir + "/cut.png")
        let cases = [("pipe.png", "is not a regular file"), ("huge.png", "20000x20000 pixels: a logo's image is at most 16 Mpx"),
                     ("damaged.png", "cannot be decoded"), ("cut.png", "cannot be decoded"),
                     ("overflow.png", "is not a PNG or JPEG picture that can be read"),
                     ("widest.png", "2147483647x2147483647 pixels: a logo's image is at most 16 Mpx")]
        for (file, words) in cases {
            // Read on a thread of its own, so that a read that waits fails the test instead of hanging it.
            let done = expectation(description: file)
            nonisolated(unsafe) var problems: [PresetProblem] = []
            let yaml = preset("  - {id: logo, image: \(file)}\n")
            Thread.detachNewThread {
                problems = K.problems(yaml, base: dir)
                done.fulfill()
            }
            if XCTWaiter().wait(for: [done], timeout: 30) != .completed {
                // Let the blocked open go (a writer that closes at once), then fail.
                let fd = open(dir + "/pipe.png", O_WRONLY | O_NONBLOCK)
                if fd >= 0 { close(fd) }
                XCTFail("\(file): reading the preset waited")
                continue
            }
            XCTAssertEqual(problems.map(\.key), ["overlays[0].image"], "\(file): \(problems)")
            XCTAssertTrue(problems.first?.message.contains(dir + "/" + file) == true, "\(file): names it: \(problems)")
            XCTAssertTrue(problems.first?.message.contains(words) == true, "\(file): \(problems)")
        }
    }

    /// A template renders as Pango markup with every field's value escaped, so a title's
    /// `&` or `<` is a letter and a title that is markup is never obeyed; only the preset's
    /// own words are markup, and only with `markup: true` (checked at its `text`). A text
    /// is at most 4096 characters, and so is what it renders, however long a tag.
    func testFieldsAreEscapedAndOnlyThePresetsOwnWordsAreMarkup() throws {
        let t = try OverlayTemplate.parse("<b>{player.music.title}</b> — {player.music.artist} &amp; co", players: ["music"]).get()
        var values = OverlayTemplate.Values()
        values.players["music"] = (NowPlaying(title: "Simon & Garfunkel", artist: "<span size=\"400000\">X</span>", album: nil), "/m/a.mp3")
        let artist = "&lt;span size=&quot;400000&quot;&gt;X&lt;/span&gt;"
        XCTAssertEqual(t.render(values, markup: true), "<b>Simon &amp; Garfunkel</b> — \(artist) &amp; co")
        XCTAssertEqual(t.render(values), "&lt;b&gt;Simon &amp; Garfunkel&lt;/b&gt; — \(artist) &amp;amp; co")
        for markup in [true, false] { XCTAssertNil(PangoMarkup.refusal(t.render(values, markup: markup)), "drawable (markup: \(markup))") }
        XCTAssertNil(t.markupRefusal)
        // Long: a 1 MB title draws 4096 characters; a template over 4096 is refused.
        values.players["music"]?.tags.title = String(repeating: "a", count: 1 << 20)
        XCTAssertEqual(try OverlayTemplate.parse("{player.music.title}", players: ["music"]).get().render(values).count, 4096)
        XCTAssertThrowsError(try OverlayTemplate.parse(String(repeating: "b", count: 4097), players: []).get())
        // With markup: the preset's tags are never cut, only the value (before: the cut left
        // "<b>" unclosed, or split "</b>", and textoverlay drew nothing).
        let bold = try OverlayTemplate.parse("<b>{player.music.title}</b> on air", players: ["music"]).get()
        for titleLength in [4000, 4090, 4093, 1 << 20] {
            values.players["music"]?.tags.title = String(repeating: "a", count: titleLength)
            let drawn = bold.render(values, markup: true)
            XCTAssertNil(PangoMarkup.refusal(drawn), "title of \(titleLength): drawable: …\(drawn.suffix(40))")
            XCTAssertTrue(drawn.hasPrefix("<b>a") && drawn.hasSuffix("a</b> on air"), "\(titleLength): …\(drawn.suffix(40))")
            XCTAssertEqual(drawn.count, min(4096, titleLength + 14), "\(titleLength): at most 4096 characters")
        }
        // In a preset: markup only for a text, and only markup that can be drawn.
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cases: [(String, String, String)] = [
            ("  - {id: np, text: \"<b>{player.music.title}\", markup: true}\n", "overlays[0].text", "not markup that can be drawn"),
            ("  - {id: np, text: \"<blink>x</blink>\", markup: true}\n", "overlays[0].text", "<blink> is no Pango element"),
            ("  - {id: logo, image: logo.png, markup: true}\n", "overlays[0].markup", "only for a text"),
            ("  - {id: np, text: \"\(String(repeating: "c", count: 5000))\"}\n", "overlays[0].text", "5000 characters: a text has at most 4096"),
        ]
        for (overlays, key, words) in cases {
            let problems = K.problems(preset(overlays), base: dir)
            XCTAssertEqual(problems.map(\.key), [key], overlays.prefix(80) + "")
            XCTAssertTrue(problems.first?.message.contains(words) == true, "\(problems)")
        }
        let fine = try K.load(preset("  - {id: np, text: \"<b>{player.music.title}</b> a < b\"}\n"
                                     + "  - {id: bold, text: \"<i>{block}</i>\", markup: true}\n"), base: dir)
        XCTAssertEqual(fine.overlays.map(\.markup), [false, true], "a text's words are letters unless it says markup: true")
    }

    /// Fields render what they are given; a missing one is empty, never `{…}`.
    func testTheTemplateRendersItsFieldsAndTheClock() throws {
        let t = try OverlayTemplate.parse("{player.music.title} — {player.music.artist} [{player.music.file}] {block}{{x}}",
                                          players: ["music"]).get()
        var values = OverlayTemplate.Values()
        XCTAssertEqual(t.render(values), " —  [] {x}")
        values.players["music"] = (NowPlaying(title: "Song", artist: nil, album: nil), "/srv/media/a b.mp3")
        values.block = "news"
        XCTAssertEqual(t.render(values), "Song —  [a b.mp3] news{x}")
        let clock = try OverlayTemplate.parse("{clock:%Y-%m-%d %H:%M:%S %a %z %%}", players: []).get()
        // 2026-03-29 01:30:05 UTC is 03:30:05 in Paris, summer time since 01:00 UTC.
        let paris = try ZoneRules.named("Europe/Paris", tzdir: ZoneRules.databaseFolder())
        values.clock = paris.local(Date(timeIntervalSince1970: 1_774_747_805))
        XCTAssertEqual(clock.render(values), "2026-03-29 03:30:05 Sun +0200 %")
        XCTAssertEqual(try OverlayTemplate.parse("{clock}", players: []).get().render(values), "03:30")
    }

    func testOverlayCommandWords() throws {
        XCTAssertEqual(try ControlCommand.parse(["overlay", "hide", "logo"], players: []), .overlay(OverlayRequest(id: "logo", action: .hide)))
        XCTAssertEqual(try ControlCommand.parse(["overlay", "set", "np", "text=a b", "opacity=50%"], players: []),
                       .overlay(OverlayRequest(id: "np", action: .set(text: "a b", image: nil, opacity: 50))))
        for bad in [["overlay"], ["overlay", "blink", "logo"], ["overlay", "set", "logo"], ["overlay", "set", "logo", "opacity=150%"],
                    ["overlay", "set", "logo", "size=3"], ["overlay", "hide", "logo", "now"]] {
            XCTAssertThrowsError(try ControlCommand.parse(bad, players: []), "\(bad)")
        }
        XCTAssertEqual(ControlLane.of(["overlay", "hide", "logo"]), .run)
    }
}

import Foundation
import XCTest
@testable import MediaPub

/// A logo's blend (docs/presets.md, overlays), on a real GStreamer pipeline: the picture a
/// frame tap still holds is never drawn on (the blend draws on its one copy), the logo is the
/// half-way blend at 50 %, and nothing outside its rectangle (its chroma's, on the half-size
/// planes) changes by a single byte.
final class LogoBlendTests: XCTestCase {
    func testALogoIsBlendedOnACopyOverItsOwnRectangleOnly() throws {
        GStreamer.initialize()
        let dir = try makeTempDir()
        let png = try TestMedia.makePNG(in: dir, name: "logo.png", color: "0xFF0000", size: "20x12")
        let (W, H) = (64, 48)
        let format = MediaFormat(sampleRate: 48000, channels: 2, video: (W, H, 25))
        let layout = I420Layout(width: W, height: H)
        // Decoded and scaled to 10x6, placed at odd 5,3 so its edges share chroma with the picture.
        let pixels = try LogoPixels.decode(ImageFile.load(png.path).get(), width: 10, height: 6).get()
        let blend = LogoBlend(width: W, height: H)
        blend.set(BlendPicture(pixels, x: 5, y: 3, opacity: 50))
        let pipeline = try Pipeline(description: "appsrc name=src format=time caps=\"\(format.videoCaps ?? ""),framerate=25/1\" "
            + "! identity name=logo ! appsink name=sink sync=false")
        defer { pipeline.stop() }
        let src = try XCTUnwrap(pipeline.appSrc(named: "src")), sink = try XCTUnwrap(pipeline.appSink(named: "sink"))
        blend.install(on: try XCTUnwrap(pipeline.element(named: "logo")?.staticPad("sink")))
        _ = try pipeline.setState(.playing)
        let held = Slate.color("#406080", format: format)
        let before = try held.map { [UInt8]($0) }
        XCTAssertTrue(src.push(held))
        let drawn = try XCTUnwrap(sink.tryPull(timeout: 10)?.buffer).map { [UInt8]($0) }
        XCTAssertEqual(try held.map { [UInt8]($0) }, before, "the picture another holds is not drawn on")

        func at(_ plane: Int, _ x: Int, _ y: Int) -> Int { layout.offsets[plane] + y * layout.strides[plane] + x }
        // BT.601 limited: the picture's and the logo's Y, U, V; the blend half of each.
        let under = [at(0, 0, 0), at(1, 0, 0), at(2, 0, 0)].map { Double(before[$0]) }
        let red = [0.257 * 255 + 16, -0.148 * 255 + 128, 0.439 * 255 + 128]
        let half = (0..<3).map { (under[$0] + red[$0]) / 2 }
        for y in 0..<H {
            for x in 0..<W {
                let inside = (5..<15).contains(x) && (3..<9).contains(y)
                if inside {
                    XCTAssertEqual(Double(drawn[at(0, x, y)]), half[0], accuracy: 1, "Y at \(x),\(y)")
                } else {
                    XCTAssertEqual(drawn[at(0, x, y)], before[at(0, x, y)], "Y at \(x),\(y) outside the logo")
                }
            }
        }
        // Chroma: samples 2...7 x 1...4 hold logo pixels; 3...6 x 2...3 only logo pixels.
        for plane in 1...2 {
            for y in 0..<(H / 2) {
                for x in 0..<(W / 2) {
                    let value = drawn[at(plane, x, y)]
                    if (3...6).contains(x) && (2...3).contains(y) {
                        XCTAssertEqual(Double(value), half[plane], accuracy: 1, "plane \(plane) at \(x),\(y)")
                    } else if !((2...7).contains(x) && (1...4).contains(y)) {
                        XCTAssertEqual(value, before[at(plane, x, y)], "plane \(plane) at \(x),\(y) outside the logo")
                    } else {
                        // An edge: between the picture and the blend.
                        let (lo, hi) = (min(under[plane], half[plane]) - 1, max(under[plane], half[plane]) + 1)
                        XCTAssertTrue((lo...hi).contains(Double(value)), "plane \(plane) at \(x),\(y): \(value) not in \(lo)...\(hi)")
                    }
                }
            }
        }
    }

    /// Only a text with a box is left to an element that draws on every frame (textoverlay,
    /// which unpacks and packs each row under it): a logo and a text without a box are an
    /// `identity` whose probe blends what was worked out when it last changed.
    func testOnlyATextWithABoxIsDrawnByAnElementOnEveryFrame() throws {
        let chain = try XCTUnwrap(OverlayChain([
            OverlayConfig(id: "logo", image: "/logo.png"),
            OverlayConfig(id: "clock", text: "{clock:%H:%M:%S}"),
            OverlayConfig(id: "boxed", text: "News", box: "#00000080"),
        ], width: 1280, height: 720, players: []))
        let elements = chain.description.components(separatedBy: " ! ").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        XCTAssertEqual(elements.map { String($0.prefix { $0 != " " }) }, ["identity", "identity", "textoverlay"], chain.description)
        XCTAssertTrue(elements[2].contains("name=video-overlay-boxed"), elements[2])
    }

    /// A title is drawn as its letters, whatever they are (textoverlay reads Pango markup):
    /// "Simon & Garfunkel" and "a < b" are drawn (before, nothing was), and a tag that is
    /// markup is drawn as its letters, one line of the font, not obeyed (a span of size
    /// 400000 covered a sixth of the picture). textoverlay renders them (TextPicture).
    func testATitleIsDrawnAsItsLettersAndNeverAsMarkup() throws {
        let (W, H) = (640, 360)
        let renderer = try TextPicture(properties: OverlayChain.textProperties(OverlayConfig(id: "np", text: "x"), width: W, height: H),
                                       width: W, height: H)
        let template = try OverlayTemplate.parse("{player.music.title}", players: ["music"]).get()
        var heights: [Int] = []
        for title in ["Simon & Garfunkel", "R&B", "a < b", "<span size=\"400000\">X</span>"] {
            var values = OverlayTemplate.Values()
            values.players["music"] = (NowPlaying(title: title, artist: nil, album: nil), "/m/a.mp3")
            let picture = renderer.render(template.render(values), color: 0xFFFF_FFFF, outline: 0, frame: 1)
            let drawn = try XCTUnwrap(picture, "\(title): drawn")
            XCTAssertGreaterThan(drawn.width, 10 * title.count, "\(title): each of its letters drawn (\(drawn.width) px wide)")
            heights.append(drawn.height)
        }
        XCTAssertLessThan(heights.max() ?? .max, 2 * (heights.min() ?? 0), "one line of Sans 24 each, none larger: \(heights)")
        XCTAssertLessThan(heights.max() ?? .max, H / 4, "\(heights)")
    }

    /// A text is rendered on the overlays' text queue, never by the tick (the output's
    /// timeline): with that queue held, the tick returns all the same, the frame it was
    /// for goes out without it (the text before it, here none), and once rendered it is
    /// drawn from the next frame on.
    func testATextIsRenderedOffTheTimelineAndDrawnOnceReady() throws {
        GStreamer.initialize()
        let (W, H) = (160, 90)
        let format = MediaFormat(sampleRate: 48000, channels: 2, video: (W, H, 25))
        let chain = try XCTUnwrap(OverlayChain([OverlayConfig(id: "np", text: "{player.music.title}", font: "Sans 20")],
                                               width: W, height: H, players: ["music"]))
        let pipeline = try Pipeline(description: "appsrc name=src format=time caps=\"\(format.videoCaps ?? ""),framerate=25/1\" ! "
            + chain.description + "appsink name=sink sync=false")
        defer { pipeline.stop() }
        try chain.bind(pipeline)
        let src = try XCTUnwrap(pipeline.appSrc(named: "src")), sink = try XCTUnwrap(pipeline.appSink(named: "sink"))
        _ = try pipeline.setState(.playing)
        var values = OverlayTemplate.Values()
        values.players["music"] = (NowPlaying(title: "Hello"), "/m/a.mp3")
        let plain = try Slate.color("#406080", format: format).map { [UInt8]($0) }
        func frame() throws -> [UInt8] {
            XCTAssertTrue(src.push(Slate.color("#406080", format: format)))
            return try XCTUnwrap(sink.tryPull(timeout: 10)?.buffer).map { [UInt8]($0) }
        }
        chain.textQueue.suspend()
        _ = chain.tick(0, pts: 0, standby: false, values: values)
        XCTAssertEqual(try frame(), plain, "its frame went out before it was rendered: without it")
        chain.textQueue.resume()
        chain.textQueue.sync {}
        let drawn = try frame()
        XCTAssertGreaterThan(zip(drawn, plain).filter { $0 != $1 }.count, 100, "rendered, it is drawn from the next frame")
    }
}

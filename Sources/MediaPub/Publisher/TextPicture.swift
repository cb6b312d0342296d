import CGStreamer
import CGStreamerShim
import Foundation

/// A text overlay's picture (docs/presets.md, overlays), rendered by GStreamer's own
/// `textoverlay` when the text or its colours change (a clock with seconds: once a second),
/// on a transparent canvas of the output's size in a small pipeline of its own, so that
/// it is laid out, wrapped and outlined exactly as textoverlay draws on the picture. Its
/// rectangle is then blended each frame like a logo (LogoBlend), instead of textoverlay
/// unpacking and packing every row of the picture under the text, each frame.
/// A text with a `box` stays on a `textoverlay` in the picture: its box shades the
/// picture's own luma, which a canvas cannot carry.
final class TextPicture: Sendable {
    let width: Int
    let height: Int
    private let pipeline: Pipeline
    private let element: Element
    private let src: AppSrc
    private let sink: AppSink

    /// `properties`: the textoverlay's placement and font (OverlayChain.textProperties).
    init(properties: String, width: Int, height: Int) throws {
        self.width = width
        self.height = height
        let caps = "video/x-raw,format=BGRA,width=\(width),height=\(height),framerate=0/1,pixel-aspect-ratio=1/1"
        pipeline = try Pipeline(description: "appsrc name=canvas format=time caps=\"\(caps)\" ! textoverlay name=text "
            + properties + "! appsink name=out sync=false max-buffers=1")
        guard let element = pipeline.element(named: "text"), let src = pipeline.appSrc(named: "canvas"),
              let sink = pipeline.appSink(named: "out") else {
            pipeline.stop()
            throw MediaPubError.pipeline("overlay: the text renderer has no elements")
        }
        (self.element, self.src, self.sink) = (element, src, sink)
        do { try pipeline.setState(.playing) } catch {
            pipeline.stop()
            throw error
        }
    }

    deinit { pipeline.stop() }

    /// `text` in ARGB `color` and `outline`, where it falls on the picture; nil when it draws
    /// nothing (empty) or could not be rendered. On the timeline thread, once per change.
    func render(_ text: String, color: UInt32, outline: UInt32, frame: UInt64) -> BlendPicture? {
        guard !text.isEmpty else { return nil }
        element.set("text", string: text)
        element.set("color", uint: color)
        element.set("outline-color", uint: outline)
        // A transparent canvas nobody else holds, so textoverlay draws on it without a copy.
        let pts = GstClockTime(truncatingIfNeeded: frame &* 1_000_000)
        guard cshim_app_src_push_zeroed(src.raw, gsize(width * height * 4), pts) != 0,
              let drawn = sink.tryPull(timeout: 5)?.buffer else { return nil }
        // Where textoverlay put the text's picture (its outline included), cut at the edges.
        let x0 = max(0, Int(cshim_object_get_int(element.raw, "text-x")))
        let y0 = max(0, Int(cshim_object_get_int(element.raw, "text-y")))
        let w = min(width - x0, Int(cshim_object_get_int(element.raw, "text-width")))
        let h = min(height - y0, Int(cshim_object_get_int(element.raw, "text-height")))
        guard w > 0, h > 0 else { return nil }
        let stride = width * 4
        guard let bgra = try? drawn.map({ bytes -> [UInt8]? in
            guard bytes.count >= stride * height else { return nil }
            var out = [UInt8](repeating: 0, count: w * h * 4)
            for row in 0..<h {
                let from = (y0 + row) * stride + x0 * 4
                out.replaceSubrange(row * w * 4..<(row + 1) * w * 4, with: bytes[from..<from + w * 4])
            }
            return out
        }) ?? nil else { return nil }
        return BlendPicture(rgba: bgra, width: w, height: h, x: x0, y: y0, opacity: 100, bgra: true)
    }
}

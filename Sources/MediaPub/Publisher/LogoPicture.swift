import CGStreamer
import CShim
import Foundation
import Synchronization

/// A logo as the overlays draw it (docs/presets.md, overlays). Its image is decoded and
/// scaled to its size on the picture once; its premultiplied Y, U, V and alpha (BT.601,
/// as the standby slate's colour) are worked out once for its opacity and place; each
/// picture then only blends the logo's own rectangle (overlay_blend.c). Nothing is scaled
/// or converted per picture, and no row of the picture outside the logo is touched.
struct LogoPixels: Sendable {
    let path: String
    let width: Int
    let height: Int
    /// RGBA, straight alpha, row after row.
    let rgba: [UInt8]

    /// The image at `path` decoded and scaled to `width`×`height`.
    static func decode(_ path: String, width: Int, height: Int) throws -> LogoPixels {
        let caps = "video/x-raw,format=RGBA,width=\(width),height=\(height),pixel-aspect-ratio=1/1"
        let pipeline = try Pipeline(description: "filesrc location=\(GStreamer.quote(path)) ! decodebin ! videoconvert ! "
            + "videoscale ! \(caps) ! appsink name=logo sync=false max-buffers=1")
        defer { pipeline.stop() }
        let bytes = width * height * 4
        guard let sink = pipeline.appSink(named: "logo"), (try? pipeline.setState(.playing)) != nil,
              let buffer = firstPicture(of: pipeline, from: sink),
              let rgba = try? buffer.map({ raw in raw.count >= bytes ? [UInt8](raw.prefix(bytes)) : nil }) else {
            throw MediaPubError.pipeline("overlay: cannot decode the logo \(path)")
        }
        return LogoPixels(path: path, width: width, height: height, rgba: rgba)
    }

    /// The decoded picture, or nil as soon as the decoding fails (an image that is damaged
    /// past its header ends in an error, never in a picture or an end), or after 5 s: the
    /// caller (a tick, for `ctl overlay set image=`) is held only as long as the decoding runs.
    private static func firstPicture(of pipeline: Pipeline, from sink: AppSink) -> Buffer? {
        for _ in 0..<100 {
            if let buffer = sink.tryPull(timeout: 0.05)?.buffer { return buffer }
            if sink.isEOS || pipeline.bus.popError() != nil { return nil }
        }
        return nil
    }
}

/// A logo's premultiplied planes at its place on a picture (CShimBlendPicture's arrays).
final class BlendPicture: Sendable {
    let x: Int, y: Int, width: Int, height: Int
    let alpha: [UInt8], luma: [UInt8]
    let cx: Int, cy: Int, cwidth: Int, cheight: Int
    let calpha: [UInt8], u: [UInt8], v: [UInt8]

    /// `pixels` with its top-left corner at `x`,`y` (≥ 0) of the picture, at `opacity` %.
    convenience init(_ pixels: LogoPixels, x: Int, y: Int, opacity: Int) {
        self.init(rgba: pixels.rgba, width: pixels.width, height: pixels.height, x: x, y: y, opacity: opacity)
    }

    /// `w`×`h` pixels of `rgba` (straight alpha, row after row; `bgra`: blue first) with its
    /// top-left corner at `x`,`y` (≥ 0) of the picture, at `opacity` %.
    init(rgba: [UInt8], width w: Int, height h: Int, x: Int, y: Int, opacity: Int, bgra: Bool = false) {
        let scale = Double(min(100, max(0, opacity))) / 100 / 255
        let (ri, bi) = bgra ? (2, 0) : (0, 2)
        var a = [UInt8](repeating: 0, count: w * h), yy = a
        var uf = [Double](repeating: 0, count: w * h), vf = uf, af = uf
        for i in 0..<(w * h) {
            let r = Double(rgba[4 * i + ri]), g = Double(rgba[4 * i + 1]), b = Double(rgba[4 * i + bi])
            let alpha = Double(rgba[4 * i + 3]) * scale   // 0...1
            af[i] = alpha
            a[i] = UInt8(clamping: Int((alpha * 255).rounded()))
            yy[i] = UInt8(clamping: Int(((0.257 * r + 0.504 * g + 0.098 * b + 16) * alpha).rounded()))
            uf[i] = (-0.148 * r - 0.291 * g + 0.439 * b + 128) * alpha
            vf[i] = (0.439 * r - 0.368 * g - 0.071 * b + 128) * alpha
        }
        // Each chroma sample covers 2×2 pixels of the picture: the mean of those the logo covers
        // (none counts as transparent), so the logo's edges share their chroma with the picture.
        let (cx0, cy0) = (x / 2, y / 2)
        let (cw, ch) = ((x + w - 1) / 2 - cx0 + 1, (y + h - 1) / 2 - cy0 + 1)
        var ca = [UInt8](repeating: 0, count: cw * ch), cu = ca, cv = ca
        for row in 0..<ch {
            for col in 0..<cw {
                var sa = 0.0, su = 0.0, sv = 0.0
                for dy in 0..<2 {
                    for dx in 0..<2 {
                        let px = 2 * (cx0 + col) + dx - x, py = 2 * (cy0 + row) + dy - y
                        guard px >= 0, px < w, py >= 0, py < h else { continue }
                        let i = py * w + px
                        sa += af[i]; su += uf[i]; sv += vf[i]
                    }
                }
                let j = row * cw + col
                ca[j] = UInt8(clamping: Int((sa / 4 * 255).rounded()))
                cu[j] = UInt8(clamping: Int((su / 4).rounded()))
                cv[j] = UInt8(clamping: Int((sv / 4).rounded()))
            }
        }
        self.x = x; self.y = y; width = w; height = h; alpha = a; luma = yy
        cx = cx0; cy = cy0; cwidth = cw; cheight = ch; calpha = ca; u = cu; v = cv
    }

    /// Blends it on the picture a buffer probe holds (`width`×`height` I420).
    fileprivate func draw(_ info: UnsafeMutablePointer<GstPadProbeInfo>, width W: Int, height H: Int) {
        alpha.withUnsafeBufferPointer { a in luma.withUnsafeBufferPointer { l in
            calpha.withUnsafeBufferPointer { ca in u.withUnsafeBufferPointer { u in v.withUnsafeBufferPointer { v in
                var p = CShimBlendPicture(x: Int32(x), y: Int32(y), width: Int32(width), height: Int32(height),
                                          alpha: a.baseAddress, luma: l.baseAddress,
                                          cx: Int32(cx), cy: Int32(cy), cwidth: Int32(cwidth), cheight: Int32(cheight),
                                          calpha: ca.baseAddress, u: u.baseAddress, v: v.baseAddress)
                _ = cshim_probe_blend_i420(info, Int32(W), Int32(H), &p)
            } } }
        } }
    }
}

/// One logo's or text's element in the encoder's pipeline (an `identity`, which passes
/// pictures on untouched) and the picture its probe blends on each frame that reaches it (nil: none).
final class LogoBlend: Sendable {
    let width: Int
    let height: Int
    private let picture = Mutex<BlendPicture?>(nil)

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// From the next frame that reaches the element (on the streaming thread, from the overlays' probe).
    func set(_ new: BlendPicture?) { picture.withLock { $0 = new } }

    /// Draws on each frame that comes in on `pad`, before the element takes it.
    func install(on pad: Pad) {
        let box = Unmanaged.passRetained(self).toOpaque()
        gst_pad_add_probe(pad.raw, GST_PAD_PROBE_TYPE_BUFFER, { _, info, data in
            guard let info, let data else { return GST_PAD_PROBE_OK }
            let blend = Unmanaged<LogoBlend>.fromOpaque(data).takeUnretainedValue()
            blend.picture.withLock { $0 }?.draw(info, width: blend.width, height: blend.height)
            return GST_PAD_PROBE_OK
        }, box) { data in
            if let data { Unmanaged<LogoBlend>.fromOpaque(data).release() }
        }
    }
}

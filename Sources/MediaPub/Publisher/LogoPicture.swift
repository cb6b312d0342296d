import CGStreamer
import CGdkPixbuf
import COverlayBlend
import Foundation
import Synchronization

/// A logo as the overlays draw it (docs/presets.md, overlays). Its image is decoded and
/// scaled to its size on the picture once; its premultiplied Y, U, V and alpha (BT.601,
/// as the standby slate's colour) are worked out once for its opacity and place; each
/// picture then only blends the logo's own rectangle (overlay_blend.c). Nothing is scaled
/// or converted per picture, and no row of the picture outside the logo is touched.
struct LogoPixels: Sendable {
    let path: String
    /// The image's own size (the file's header).
    let imageSize: ImageSize
    let width: Int
    let height: Int
    /// RGBA, straight alpha, row after row.
    let rgba: [UInt8]

    /// The logo `o` draws from the image at `path` on a `width`×`height` picture: the file
    /// read (ImageFile), placed, and decoded whole at the size it is drawn. What `validate`,
    /// the start and `ctl overlay set image=` check before the logo is taken; never called
    /// on the timeline thread or holding a lock (a damaged image is found here, not on air).
    static func load(_ o: OverlayConfig, path: String, width W: Int, height H: Int) -> Result<LogoPixels, OverlayPlacement.Refusal> {
        let file: ImageFile
        switch ImageFile.load(path) {
        case .success(let f): file = f
        case .failure(let why): return .failure(.init(key: "image", message: why.message))
        }
        var placed = o
        placed.image = path
        if let why = OverlayPlacement.refusal(placed, image: file.size, width: W, height: H) { return .failure(why) }
        let rect = OverlayPlacement.logo(placed, image: file.size, width: W, height: H)
        return decode(file, width: rect.width, height: rect.height).mapError { .init(key: "image", message: $0.message) }
    }

    /// `file` decoded at `width`×`height` (gdk-pixbuf's loader, told the size before it
    /// decodes: a JPEG is decoded at a fraction of its size where that is enough), or why not.
    static func decode(_ file: ImageFile, width: Int, height: Int) -> Result<LogoPixels, PresetTextRefusal> {
        func failed(_ error: UnsafeMutablePointer<GError>?) -> PresetTextRefusal {
            let why = error.map { String(cString: $0.pointee.message) } ?? "it cannot be decoded"
            if let error { g_error_free(error) }
            return .init("\(file.path) cannot be decoded as a PNG or JPEG picture (\(why.clipped()))")
        }
        TimelineThread.assertOff("decoding an image")
        var error: UnsafeMutablePointer<GError>?
        let type = file.bytes.first == 0x89 ? "png" : "jpeg"
        guard let loader = gdk_pixbuf_loader_new_with_type(type, &error) else { return .failure(failed(error)) }
        defer { g_object_unref(UnsafeMutableRawPointer(loader)) }
        gdk_pixbuf_loader_set_size(loader, Int32(width), Int32(height))
        let wrote = file.bytes.withUnsafeBufferPointer { gdk_pixbuf_loader_write(loader, $0.baseAddress, gsize($0.count), &error) }
        guard wrote != 0 else {
            gdk_pixbuf_loader_close(loader, nil)
            return .failure(failed(error))
        }
        guard gdk_pixbuf_loader_close(loader, &error) != 0 else { return .failure(failed(error)) }
        guard let decoded = gdk_pixbuf_loader_get_pixbuf(loader) else { return .failure(failed(nil)) }
        // Exactly the size asked, with an alpha channel, 8 bits each (a JPEG has none).
        guard let rgbaPixbuf = gdk_pixbuf_add_alpha(decoded, 0, 0, 0, 0) else { return .failure(failed(nil)) }
        defer { g_object_unref(UnsafeMutableRawPointer(rgbaPixbuf)) }
        var pixbuf = rgbaPixbuf
        var scaled: OpaquePointer?
        if gdk_pixbuf_get_width(pixbuf) != Int32(width) || gdk_pixbuf_get_height(pixbuf) != Int32(height) {
            guard let s = gdk_pixbuf_scale_simple(pixbuf, Int32(width), Int32(height), GDK_INTERP_BILINEAR) else {
                return .failure(failed(nil))
            }
            scaled = s
            pixbuf = s
        }
        defer { if let scaled { g_object_unref(UnsafeMutableRawPointer(scaled)) } }
        guard gdk_pixbuf_get_n_channels(pixbuf) == 4, gdk_pixbuf_get_bits_per_sample(pixbuf) == 8,
              let base = gdk_pixbuf_read_pixels(pixbuf) else { return .failure(failed(nil)) }
        let stride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        for row in 0..<height {
            for i in 0..<(width * 4) { rgba[row * width * 4 + i] = base[row * stride + i] }
        }
        return .success(LogoPixels(path: file.path, imageSize: file.size, width: width, height: height, rgba: rgba))
    }
}

/// A logo's premultiplied planes at its place on a picture (OverlayBlendPicture's arrays).
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
                var p = OverlayBlendPicture(x: Int32(x), y: Int32(y), width: Int32(width), height: Int32(height),
                                          alpha: a.baseAddress, luma: l.baseAddress,
                                          cx: Int32(cx), cy: Int32(cy), cwidth: Int32(cwidth), cheight: Int32(cheight),
                                          calpha: ca.baseAddress, u: u.baseAddress, v: v.baseAddress)
                _ = overlay_blend_probe_i420(info, Int32(W), Int32(H), &p)
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

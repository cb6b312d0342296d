import Foundation

/// Where an overlay falls on a picture of a given size (docs/presets.md, overlays): a
/// logo's rectangle in pixels, a text's alignment; and why one would fall off it.
enum OverlayPlacement {
    struct Refusal: Error, Equatable {
        /// The overlay's key at fault.
        let key: String
        let message: String
    }

    struct Rect: Equatable, Sendable {
        let x: Int, y: Int, width: Int, height: Int
    }

    /// A logo's rectangle on a `width`×`height` picture, for a picture of `image`'s size.
    static func logo(_ o: OverlayConfig, image: ImageSize, width W: Int, height H: Int) -> Rect {
        let w = o.width?.pixels(of: W) ?? image.width
        let h = o.width == nil ? image.height : Int((Double(w) * Double(image.height) / Double(image.width)).rounded())
        if let x = o.x, let y = o.y { return Rect(x: x.pixels(of: W), y: y.pixels(of: H), width: w, height: h) }
        func along(_ slot: Int, _ size: Int, _ whole: Int) -> Int {
            slot == 0 ? o.margin : slot == 1 ? (whole - size) / 2 : whole - size - o.margin
        }
        return Rect(x: along(o.position.column, w, W), y: along(o.position.row, h, H), width: w, height: h)
    }

    /// Why `o` cannot be drawn on a `width`×`height` picture; nil when it can. A logo's
    /// rectangle is checked when its `image`'s size is given.
    static func refusal(_ o: OverlayConfig, image: ImageSize? = nil, width W: Int, height H: Int) -> Refusal? {
        if (o.x == nil) != (o.y == nil) {
            return Refusal(key: o.x == nil ? "y" : "x", message: "give both x and y (or position)")
        }
        let size = "off the \(W)x\(H) picture"
        if let x = o.x, x.pixels(of: W) >= W { return Refusal(key: "x", message: "\(x.text) is \(size)") }
        if let y = o.y, y.pixels(of: H) >= H { return Refusal(key: "y", message: "\(y.text) is \(size)") }
        if o.x == nil, 2 * o.margin >= min(W, H) {
            return Refusal(key: "margin", message: "\(o.margin) leaves nothing of the \(W)x\(H) picture")
        }
        guard o.image != nil, let image else { return nil }
        let r = logo(o, image: image, width: W, height: H)
        if r.width < 1 || r.height < 1 { return Refusal(key: "width", message: "\(o.width?.text ?? "") leaves the logo no pixel") }
        if r.width > W || r.height > H {
            return Refusal(key: o.width == nil ? "image" : "width",
                           message: "the logo, \(r.width)x\(r.height), is larger than the \(W)x\(H) picture (give a smaller width)")
        }
        if r.x < 0 || r.y < 0 || r.x + r.width > W || r.y + r.height > H {
            let key = o.x != nil ? (r.x + r.width > W ? "x" : "y") : "margin"
            return Refusal(key: key, message: "the \(r.width)x\(r.height) logo at \(r.x),\(r.y) is \(size)")
        }
        return nil
    }
}

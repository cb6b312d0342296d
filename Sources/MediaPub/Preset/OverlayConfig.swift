import Foundation

/// A logo or a text drawn on the output picture (docs/presets.md, overlays): in the
/// encoding path, never on the frame taps. Made by the preset loader.
public struct OverlayConfig: Equatable, Sendable {
    /// Where on the picture: a corner, an edge's middle, the centre, or `x`/`y`.
    public enum Anchor: String, Equatable, Sendable, CaseIterable {
        case topLeft = "top-left", top = "top", topRight = "top-right"
        case left = "left", center = "center", right = "right"
        case bottomLeft = "bottom-left", bottom = "bottom", bottomRight = "bottom-right"

        /// 0 left (top), 1 middle, 2 right (bottom).
        var column: Int { [0, 1, 2, 0, 1, 2, 0, 1, 2][Self.allCases.firstIndex(of: self) ?? 0] }
        var row: Int { [0, 0, 0, 1, 1, 1, 2, 2, 2][Self.allCases.firstIndex(of: self) ?? 0] }
    }

    /// A length in pixels or in % of the picture's width (height for `y`).
    public enum Length: Equatable, Sendable {
        case pixels(Int)
        case percent(Double)

        func pixels(of whole: Int) -> Int {
            switch self {
            case .pixels(let p): p
            case .percent(let f): Int((f / 100 * Double(whole)).rounded())
            }
        }

        var text: String {
            switch self {
            case .pixels(let p): "\(p)"
            case .percent(let f): (f == f.rounded() ? "\(Int(f))" : "\(f)") + "%"
            }
        }

        /// `20`, `20px`, `10%`, `12.5%`; nil for anything else.
        static func parse(_ text: String) -> Length? {
            let t = text.trimmingCharacters(in: .whitespaces)
            if t.hasSuffix("%") {
                guard let f = Double(t.dropLast().trimmingCharacters(in: .whitespaces)), f.isFinite, f >= 0, f <= 100 else { return nil }
                return .percent(f)
            }
            let digits = t.hasSuffix("px") ? String(t.dropLast(2)) : t
            guard let p = Int(digits), p >= 0, p <= 100_000 else { return nil }
            return .pixels(p)
        }
    }

    public var id: String
    /// A logo: a local PNG or JPEG picture's absolute path.
    public var image: String?
    /// A text: its template (docs/presets.md, overlays: `{player.ID.title}`, `{block}`, `{clock:%H:%M}`).
    public var text: String?
    /// A text's literal words are Pango markup (its fields' values are escaped all the same).
    public var markup: Bool
    public var position: Anchor
    /// Instead of `position`: the overlay's top-left corner.
    public var x: Length?
    public var y: Length?
    /// Pixels between the overlay and the picture's edges it is placed against.
    public var margin: Int
    /// A logo's width (its height keeps the picture's aspect); nil: its own.
    public var width: Length?
    /// 0...100.
    public var opacity: Int
    /// A Pango font description: "Sans Bold 24".
    public var font: String
    /// `#RRGGBB` or `#RRGGBBAA`.
    public var color: String
    public var outline: String?
    public var box: String?
    /// Drawn over the standby slate too.
    public var onStandby: Bool

    public init(id: String = "", image: String? = nil, text: String? = nil, markup: Bool = false, position: Anchor = .topLeft,
                x: Length? = nil, y: Length? = nil, margin: Int = 20, width: Length? = nil, opacity: Int = 100,
                font: String = "Sans 24", color: String = "#FFFFFF", outline: String? = nil, box: String? = nil,
                onStandby: Bool = true) {
        self.id = id
        self.image = image
        self.text = text
        self.markup = markup
        self.position = position
        self.x = x
        self.y = y
        self.margin = margin
        self.width = width
        self.opacity = opacity
        self.font = font
        self.color = color
        self.outline = outline
        self.box = box
        self.onStandby = onStandby
    }

    /// `#RRGGBB` or `#RRGGBBAA` as GStreamer's big-endian ARGB; nil when it is neither.
    static func argb(_ text: String) -> UInt32? {
        let t = text.trimmingCharacters(in: .whitespaces)
        guard t.hasPrefix("#"), t.count == 7 || t.count == 9, let v = UInt32(t.dropFirst(), radix: 16) else { return nil }
        return t.count == 7 ? 0xFF00_0000 | v : (v >> 8) | ((v & 0xFF) << 24)
    }
}

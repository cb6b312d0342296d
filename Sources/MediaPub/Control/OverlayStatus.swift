import Foundation

/// One overlay in `status` (docs/status.md, `overlays[]`).
public struct OverlayStatus: Codable, Sendable, Equatable {
    public var id: String
    /// Shown (`ctl overlay show`) or hidden (`ctl overlay hide`).
    public var visible: Bool
    /// A text's template (nil for a logo).
    public var text: String?
    /// A logo's file (nil for a text).
    public var image: String?
    /// 0...100.
    public var opacity: Int
    public var onStandby: Bool
    /// The output time its settings are drawn from (0: as the preset gives them, from the start).
    public var sinceMs: Int

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, visible, text, image, opacity
        case onStandby = "on_standby"
        case sinceMs = "since_ms"
    }

    public func encode(to encoder: Swift.Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(visible, forKey: .visible)
        try c.encode(text, forKey: .text)
        try c.encode(image, forKey: .image)
        try c.encode(opacity, forKey: .opacity)
        try c.encode(onStandby, forKey: .onStandby)
        try c.encode(sinceMs, forKey: .sinceMs)
    }
}

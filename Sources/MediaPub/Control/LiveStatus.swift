import Foundation

/// The live feed in `status` (docs/status.md, `live`), when the preset has one.
public struct LiveStatus: Codable, Sendable, Equatable {
    public var state: LiveState
    /// The feed's URL, its secrets masked.
    public var source: String
    /// `ctl live on|off|auto`.
    public var mode: String
    /// How long the feed has been on air in its current spell (the last one, once released).
    public var onAirMs: Int

    enum CodingKeys: String, CodingKey, CaseIterable {
        case state, source, mode
        case onAirMs = "on_air_ms"
    }
}

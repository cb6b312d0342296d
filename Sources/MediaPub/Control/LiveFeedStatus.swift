import Foundation

/// The live feed in `status` (docs/status.md, `live`), when the preset has one.
public struct LiveFeedStatus: Codable, Sendable, Equatable {
    public var state: LiveFeedState
    /// The feed's URL, its secrets masked.
    public var source: String
    /// `ctl live on|off|auto`.
    public var mode: String
    /// How long the feed has been on air in its current spell (the last one, once released).
    public var onAirMs: Int
    /// The feed's delay through its jitter buffer (averaged on air).
    public var delayMs: Int = 0
    /// The feed's pictures dropped (never shown) and repeated (shown again) on air, to follow its sound.
    public var framesDropped: UInt64 = 0
    public var framesRepeated: UInt64 = 0
    /// What the feed's source gave over the last second.
    public var bitrateKbps: Int = 0

    enum CodingKeys: String, CodingKey, CaseIterable {
        case state, source, mode
        case onAirMs = "on_air_ms"
        case delayMs = "delay_ms"
        case framesDropped = "frames_dropped"
        case framesRepeated = "frames_repeated"
        case bitrateKbps = "bitrate_kbps"
    }
}

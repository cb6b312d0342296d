import Foundation

/// A live feed's state (docs/events.md, `live.state`; docs/status.md, `live`).
public enum LiveFeedState: String, Codable, Sendable, CaseIterable {
    /// Nothing from the feed: waiting for a sender (or for the feed to be opened again).
    case waiting
    /// The feed delivers, not on air yet (or held off by `ctl live off`).
    case connected
    case onAir = "on_air"
    /// The programme is back on air.
    case released
}

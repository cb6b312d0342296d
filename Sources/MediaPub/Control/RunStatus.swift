import Foundation

/// The `status` of docs/status.md: what `ctl status` answers, and what `/metrics` shows.
public struct RunStatus: Codable, Sendable {
    public var name: String
    public var state: RunState
    public var uptimeMs: Int
    public var publishing: Bool
    public var outputTimeMs: Int
    public var players: [PlayerStatus]
    public var outputs: [OutputStatus]
    /// The programme, when the preset has one (left out otherwise).
    public var schedule: ScheduleStatus?
    /// The live feed, when the preset has one (left out otherwise).
    public var live: LiveFeedStatus?
    /// The alerts of `monitor:`'s checks, when the preset has one (left out otherwise).
    public var alerts: AlertStatus? = nil

    /// The overlays, when the preset has some (left out otherwise).
    public var overlays: [OverlayStatus]? = nil

    /// The output's loudness, with `audio.loudness` (left out otherwise).
    public var loudness: LoudnessStatus? = nil

    /// The output timeline, in a realtime run once it runs (left out as fast as possible).
    public var timeline: TimelineStatus? = nil

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, state, publishing, players, outputs, schedule, live, alerts, overlays, loudness, timeline
        case uptimeMs = "uptime_ms"
        case outputTimeMs = "output_time_ms"
    }
}

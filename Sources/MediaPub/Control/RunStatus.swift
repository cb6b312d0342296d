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

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, state, publishing, players, outputs
        case uptimeMs = "uptime_ms"
        case outputTimeMs = "output_time_ms"
    }
}

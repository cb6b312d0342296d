import Foundation

/// The answer to one control request: `{"ok":true,...}` or `{"ok":false,"error":"..."}`.
public enum ControlReply: Encodable, Sendable {
    case ok
    case failure(String)
    /// `status`: `{"ok":true,"status":{...}}`.
    case status(RunStatus)
    /// `seek`: where it landed, `{"ok":true,"position_ms":N}`.
    case position(ms: Int)
    /// `load` still on its way (a slow server): `{"ok":true,"state":"loading"}`; events follow.
    case loading
    /// `load` answered: the player's state and the item's length (null while unknown).
    case loaded(PlayerState, durationMs: Int?)
    /// `schedule`: `{"ok":true,"schedule":{...}}`.
    case schedule(ScheduleStatus)

    enum Key: String, CodingKey, CaseIterable {
        case ok, error, status, state, schedule
        case positionMs = "position_ms"
        case durationMs = "duration_ms"
        case requestID = "request_id"
    }

    public func encode(to encoder: Swift.Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        if case .failure(let message) = self {
            try c.encode(false, forKey: .ok)
            try c.encode(message, forKey: .error)
            return
        }
        try c.encode(true, forKey: .ok)
        switch self {
        case .ok, .failure: break
        case .status(let status): try c.encode(status, forKey: .status)
        case .schedule(let schedule): try c.encode(schedule, forKey: .schedule)
        case .position(let ms): try c.encode(ms, forKey: .positionMs)
        case .loading: try c.encode(PlayerState.loading, forKey: .state)
        case .loaded(let state, let duration):
            try c.encode(state, forKey: .state)
            try c.encode(duration, forKey: .durationMs)
        }
    }
}

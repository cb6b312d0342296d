import Foundation

/// One event of the stream (docs/events.md): what `--events` writes a line of, and
/// what the webhook is sent. Each is a JSON object with `event` (its name),
/// `ts` (stamped by `Events`) and the fields of its case.
public enum Event: Sendable, Equatable {
    /// The run is starting, running or stopping.
    case runState(RunState, name: String)
    /// A player's state changed; `error` says why when it is `error`.
    case playerState(player: String, state: PlayerState, error: String?)
    /// Every `progress_interval` while a player plays.
    case playerProgress(player: String, positionMs: Int, durationMs: Int?)
    /// A player began an item (its source masked); with `audio.loudness`, its loudness and gain.
    case playerTrack(player: String, index: Int, source: String, durationMs: Int?, tags: NowPlaying, loudness: TrackLoudness? = nil)
    /// The publishing flag was set.
    case publishing(Bool)
    /// An output's state changed (its URL masked); `error` when it is failing.
    case outputState(output: String, url: String, state: OutputState, error: String?)
    case warning(String)
    case error(String)
    /// The run is over: why, and the process's exit code.
    case runStopped(reason: String, exitCode: Int32)
    /// A programme's block started or ended (docs/presets.md, Schedule): the wall time it
    /// was scheduled for, how late it went on air (ms of output), and for a block
    /// joined in progress at the run's start, how far into it.
    case scheduleBlock(block: String, state: ScheduleBlockState, scheduledAt: String, lateMs: Int, joinedAtMs: Int?)
    /// The live feed's state changed (docs/presets.md, live): its source masked, and why when there is a reason.
    case liveState(state: LiveFeedState, source: String, reason: String?)
    /// A check of `monitor:` found dead air, a black or a frozen picture (docs/presets.md, monitor).
    case alert(ContentAlert)
    /// What an `alert` was about is over: sound or motion returned.
    case cleared(ContentAlert)

    /// A `ctl overlay` change (shown, hidden, set) drawn from this output time on (docs/presets.md, overlays).
    case overlay(name: String, state: String, outputMs: Int)

    /// A realtime timeline more than 2 ticks behind for over a second (docs/status.md, timeline): how far, and
    /// the output time it is at.
    case timelineLate(lagMs: Int, outputMs: Int)
    /// A late timeline back on time: how long it was late, and how far behind at worst.
    case timelineCaughtUp(lateForMs: Int, worstLagMs: Int, outputMs: Int)

    /// Every event name, as the `event` field has it.
    public static let names = ["run.state", "player.state", "player.progress", "player.track", "publishing",
                               "output.state", "warning", "error", "run.stopped", "schedule.block", "live.state",
                               "alert", "cleared", "overlay", "timeline.late", "timeline.caught_up"]

    /// The `event` field.
    public var name: String {
        switch self {
        case .runState: return "run.state"
        case .playerState: return "player.state"
        case .playerProgress: return "player.progress"
        case .playerTrack: return "player.track"
        case .publishing: return "publishing"
        case .outputState: return "output.state"
        case .warning: return "warning"
        case .error: return "error"
        case .runStopped: return "run.stopped"
        case .scheduleBlock: return "schedule.block"
        case .liveState: return "live.state"
        case .alert: return "alert"
        case .cleared: return "cleared"
        case .overlay: return "overlay"
        case .timelineLate: return "timeline.late"
        case .timelineCaughtUp: return "timeline.caught_up"
        }
    }

    /// Every field an event line can have.
    enum Field: String, CodingKey, CaseIterable {
        case event, ts, state, name, player, error, index, source, tags, publishing, output, url, message, reason
        case positionMs = "position_ms"
        case durationMs = "duration_ms"
        case exitCode = "exit_code"
        case block
        case scheduledAt = "scheduled_at"
        case lateMs = "late_ms"
        case joinedAtMs = "joined_at_ms"
        case outputMs = "output_ms"
        case loudnessLUFS = "loudness_lufs"
        case gainDB = "gain_db"
        case lagMs = "lag_ms"
        case lateForMs = "late_for_ms"
        case worstLagMs = "worst_lag_ms"
    }
}

extension Event: Codable {
    /// Writes `event` and the case's fields (absent optional errors left out;
    /// an unknown duration is null).
    public func encode(to encoder: Swift.Encoder) throws {
        var c = encoder.container(keyedBy: Field.self)
        try c.encode(name, forKey: .event)
        switch self {
        case .runState(let state, let name):
            try c.encode(state, forKey: .state)
            try c.encode(name, forKey: .name)
        case .playerState(let player, let state, let error):
            try c.encode(player, forKey: .player)
            try c.encode(state, forKey: .state)
            try c.encodeIfPresent(error, forKey: .error)
        case .playerProgress(let player, let position, let duration):
            try c.encode(player, forKey: .player)
            try c.encode(position, forKey: .positionMs)
            try c.encode(duration, forKey: .durationMs)
        case .playerTrack(let player, let index, let source, let duration, let tags, let loudness):
            try c.encode(player, forKey: .player)
            try c.encode(index, forKey: .index)
            try c.encode(source, forKey: .source)
            try c.encode(duration, forKey: .durationMs)
            try c.encode(tags, forKey: .tags)
            if let loudness {
                try c.encode(loudness.lufs, forKey: .loudnessLUFS)   // null while not measured
                try c.encode(loudness.gainDB, forKey: .gainDB)
            }
        case .publishing(let on):
            try c.encode(on, forKey: .publishing)
        case .outputState(let output, let url, let state, let error):
            try c.encode(output, forKey: .output)
            try c.encode(url, forKey: .url)
            try c.encode(state, forKey: .state)
            try c.encodeIfPresent(error, forKey: .error)
        case .warning(let message), .error(let message):
            try c.encode(message, forKey: .message)
        case .runStopped(let reason, let code):
            try c.encode(reason, forKey: .reason)
            try c.encode(code, forKey: .exitCode)
        case .scheduleBlock(let block, let state, let scheduledAt, let late, let joined):
            try c.encode(block, forKey: .block)
            try c.encode(state, forKey: .state)
            try c.encode(scheduledAt, forKey: .scheduledAt)
            try c.encode(late, forKey: .lateMs)
            try c.encodeIfPresent(joined, forKey: .joinedAtMs)
        case .liveState(let state, let source, let reason):
            try c.encode(state, forKey: .state)
            try c.encode(source, forKey: .source)
            try c.encodeIfPresent(reason, forKey: .reason)
        case .alert(let alert), .cleared(let alert):
            try alert.encode(to: encoder)
        case .overlay(let name, let state, let ms):
            try c.encode(name, forKey: .name)
            try c.encode(state, forKey: .state)
            try c.encode(ms, forKey: .outputMs)
        case .timelineLate(let lag, let ms):
            try c.encode(lag, forKey: .lagMs)
            try c.encode(ms, forKey: .outputMs)
        case .timelineCaughtUp(let lateFor, let worst, let ms):
            try c.encode(lateFor, forKey: .lateForMs)
            try c.encode(worst, forKey: .worstLagMs)
            try c.encode(ms, forKey: .outputMs)
        }
    }

    public init(from decoder: Swift.Decoder) throws {
        let c = try decoder.container(keyedBy: Field.self)
        func string(_ f: Field) throws -> String { try c.decode(String.self, forKey: f) }
        func int(_ f: Field) throws -> Int { try c.decode(Int.self, forKey: f) }
        let name = try string(.event)
        switch name {
        case "run.state": self = .runState(try c.decode(RunState.self, forKey: .state), name: try string(.name))
        case "player.state":
            self = .playerState(player: try string(.player), state: try c.decode(PlayerState.self, forKey: .state),
                                error: try c.decodeIfPresent(String.self, forKey: .error))
        case "player.progress":
            self = .playerProgress(player: try string(.player), positionMs: try int(.positionMs),
                                   durationMs: try c.decodeIfPresent(Int.self, forKey: .durationMs))
        case "player.track":
            self = .playerTrack(player: try string(.player), index: try int(.index), source: try string(.source),
                                durationMs: try c.decodeIfPresent(Int.self, forKey: .durationMs),
                                tags: try c.decode(NowPlaying.self, forKey: .tags),
                                loudness: try c.decodeIfPresent(Double.self, forKey: .gainDB).map { gain in
                                    TrackLoudness((try c.decodeIfPresent(Double.self, forKey: .loudnessLUFS), gain)) })
        case "publishing": self = .publishing(try c.decode(Bool.self, forKey: .publishing))
        case "output.state":
            self = .outputState(output: try string(.output), url: try string(.url),
                                state: try c.decode(OutputState.self, forKey: .state),
                                error: try c.decodeIfPresent(String.self, forKey: .error))
        case "warning": self = .warning(try string(.message))
        case "error": self = .error(try string(.message))
        case "run.stopped": self = .runStopped(reason: try string(.reason), exitCode: try c.decode(Int32.self, forKey: .exitCode))
        case "schedule.block":
            self = .scheduleBlock(block: try string(.block), state: try c.decode(ScheduleBlockState.self, forKey: .state),
                                  scheduledAt: try string(.scheduledAt), lateMs: try int(.lateMs),
                                  joinedAtMs: try c.decodeIfPresent(Int.self, forKey: .joinedAtMs))
        case "live.state":
            self = .liveState(state: try c.decode(LiveFeedState.self, forKey: .state), source: try string(.source),
                              reason: try c.decodeIfPresent(String.self, forKey: .reason))
        case "alert": self = .alert(try ContentAlert(from: decoder))
        case "cleared": self = .cleared(try ContentAlert(from: decoder))
        case "overlay": self = .overlay(name: try string(.name), state: try string(.state), outputMs: try int(.outputMs))
        case "timeline.late": self = .timelineLate(lagMs: try int(.lagMs), outputMs: try int(.outputMs))
        case "timeline.caught_up":
            self = .timelineCaughtUp(lateForMs: try int(.lateForMs), worstLagMs: try int(.worstLagMs), outputMs: try int(.outputMs))
        default:
            throw DecodingError.dataCorruptedError(forKey: .event, in: c, debugDescription: "unknown event \(name)")
        }
    }
}

/// An event as written: the event's fields and the time it was stamped with.
struct StampedEvent: Encodable {
    let ts: String
    let event: Event

    func encode(to encoder: Swift.Encoder) throws {
        try event.encode(to: encoder)
        var c = encoder.container(keyedBy: Event.Field.self)
        try c.encode(ts, forKey: .ts)
    }
}

/// A programme block's `schedule.block` event: it went on air, or came off it.
public enum ScheduleBlockState: String, Codable, Sendable {
    case started, ended
}

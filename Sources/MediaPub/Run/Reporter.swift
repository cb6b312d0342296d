import Foundation
import Synchronization

/// A log line that goes with an event.
struct LogLine: Sendable, Equatable {
    let level: LogLevel
    let text: String
    static func error(_ text: String) -> LogLine { LogLine(level: .error, text: text) }
    static func warn(_ text: String) -> LogLine { LogLine(level: .warn, text: text) }
    static func info(_ text: String) -> LogLine { LogLine(level: .info, text: text) }
    static func debug(_ text: String) -> LogLine { LogLine(level: .debug, text: text) }
}

extension Event {
    /// The log line an event has when its reporter says nothing else: warnings
    /// and errors as they are, a player's state change (debug; error when it
    /// failed); nil for the events the log does not repeat.
    var logLine: LogLine? {
        switch self {
        case .warning(let text): return .warn(text)
        case .error(let text): return .error(text)
        case .playerState(let player, let state, let error):
            return error.map { .error("player \(player): \($0)") } ?? .debug("player \(player): \(state.rawValue)")
        case .scheduleBlock(let block, let state, let at, let late, let joined):
            guard state == .started else { return .debug("schedule: \(block) ended") }
            let how = joined.map { "joined \(MediaTime.formatDuration(Double($0) / 1000)) in" }
                ?? (late > 0 ? "\(late) ms late" : "on time")
            return .info("schedule: \(block) (\(at)) on air, \(how)")
        case .liveState(let state, let source, let reason):
            return .info("live \(source): \(state.rawValue)" + (reason.map { " (\($0))" } ?? ""))
        case .alert(let a):
            return .warn("alert: \(a.kind.rawValue) since \(MediaTime.formatDuration(Double(a.beganMs) / 1000)) of output, player \(a.player) (\(a.source)); action \(a.action.rawValue)")
        case .cleared(let a):
            return .info("cleared: \(a.kind.rawValue) from \(MediaTime.formatDuration(Double(a.beganMs) / 1000)) to \(MediaTime.formatDuration(Double(a.outputMs) / 1000)) of output, player \(a.player)")
        case .overlay(let name, let state, let ms): return .info("overlay \(name): \(state) from \(ms) ms of output")
        case .timelineLate(let lag, let ms):
            return .warn("timeline: \(lag) ms behind realtime at \(ms) ms of output, more than 2 frames for over a second;"
                         + " catching up without sleeping (no output is dropped)")
        case .timelineCaughtUp(let lateFor, let worst, let ms):
            return .info("timeline: caught up at \(ms) ms of output after \(lateFor) ms late (\(worst) ms behind at worst)")
        case .runState, .playerProgress, .playerTrack, .publishing, .outputState, .runStopped:
            return nil
        }
    }
}

/// Says each happening of a run once, to the log and to the event stream
/// alike, in that order.
final class Reporter: Sendable {
    let log: Logger
    let events: Events
    /// Each player's last item (index, source), to log a repeat once, not every loop.
    private let lastTrack = Mutex<[String: (index: Int, source: String)]>([:])

    init(log: Logger, events: Events) {
        self.log = log
        self.events = events
    }

    /// `event` with `line` in the log (none when nil).
    func report(_ event: Event, _ line: LogLine?) {
        if let line { log.log(line.level, line.text) }
        events.emit(event)
    }

    /// `event` with its own log line (`Event.logLine`).
    func report(_ event: Event) { report(event, event.logLine) }

    /// What a player says.
    func player(_ event: PlayerEvent, of player: MediaPlayer) {
        switch event {
        case .state(let state, let error):
            report(.playerState(player: player.id, state: state, error: error))
        case .track(let index, let source, let durationMs, let tags):
            // Said once per item change; a repeating item going round again is a debug line
            // (a 10 s loop would otherwise log 8,640 lines a day).
            let again = lastTrack.withLock { last in
                defer { last[player.id] = (index, source) }
                return last[player.id].map { $0.index == index && $0.source == source } ?? false
            }
            let masked = SecretMask.mask(url: source)
            let text = "player \(player.id): playing \(masked)"
            report(.playerTrack(player: player.id, index: index, source: masked, durationMs: durationMs, tags: tags,
                                loudness: player.trackLoudness(source: source)),
                   again ? .debug(text + " again") : .info(text))
        case .progress(let position, let duration):
            report(.playerProgress(player: player.id, positionMs: position, durationMs: duration))
        case .warning(let text):
            report(.warning(text))
        }
    }

    /// A segmented recording's new file: an `output.state` event (publishing, the URL
    /// the new file's; for the first file the output's own event says it), the log
    /// saying `recording: new file …` once; or a file its
    /// retention could not remove, a warning.
    func recording(_ output: Output, _ notice: RecordingNotice) {
        switch notice {
        case .newFile(let path, let first):
            let line = "recording: new file \(path) (output \(output.id))"
            // The first file is the output's own: its `publishing` event names it already.
            if first { log.log(.info, line); return }
            report(.outputState(output: output.id, url: "file://" + path, state: .publishing, error: nil), .info(line))
        case .notRemoved(let path, let why):
            report(.warning("recording: could not remove the old file \(path): \(why)"))
        }
    }

    /// An output's state change. In logs an output is its URL; its id too where
    /// the URL alone would not tell it apart from the run's other outputs.
    func output(_ output: Output, _ state: OutputState, _ error: String?) {
        let shown = output.shownURL
        let label = output.hasExplicitID || output.sharesURL
            ? "\(output.id) (\(shown))" : shown
        report(.outputState(output: output.id, url: shown, state: state, error: error),
               error.map { .warn("output \(label): \(state.rawValue): \($0)") } ?? .info("output \(label): \(state.rawValue)"))
    }
}

import Foundation
import Synchronization

public enum LogLevel: Int, Comparable, Sendable, CaseIterable {
    case error, warn, info, debug
    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
    public init?(name: String) {
        switch name {
        case "error": self = .error
        case "warn", "warning": self = .warn
        case "info": self = .info
        case "debug": self = .debug
        default: return nil
        }
    }
    var name: String { ["error", "warn", "info", "debug"][rawValue] }
}

/// Human logs: text or JSON lines, to stderr unless a handler is given
/// (tests pass an in-memory one). Lines for stderr go through a bounded queue
/// of their own (`ConsumerQueue`): a stderr nobody reads (a full pipe) loses
/// its oldest lines, never holds up the one who logs.
public final class Logger: Sendable {
    public enum Format: String, Sendable { case text, json }
    public let level: LogLevel
    public let format: Format
    /// Where lines go instead of stderr (called holding no lock; from any thread).
    private let handler: (@Sendable (String) -> Void)?
    /// stderr's queue and writer (nil with a handler).
    private let stderrQueue: ConsumerQueue<Data>?
    /// The last lines written, for `GET /api/log` (docs/http.md).
    let recent = LogRing()

    private struct State {
        /// The status line now drawn on the terminal (ffmpeg-style, redrawn in place).
        var status: String?
        /// Told once per episode when stderr falls behind and loses lines.
        var behindHandler: (@Sendable (String) -> Void)?
    }
    private let state = Mutex(State())

    /// Whether a status line is drawn in place: text logs to stderr, and stderr is a terminal.
    public let drawsStatusInPlace: Bool

    public init(level: LogLevel = .info, format: Format = .text, write: (@Sendable (String) -> Void)? = nil) {
        self.level = level
        self.format = format
        handler = write
        drawsStatusInPlace = write == nil && format == .text && isatty(STDERR_FILENO) != 0
        // A write that fails (a closed pipe, a full disk) leaves stderr silent from then
        // on, as there is nowhere left to say so, and the broadcast goes on.
        stderrQueue = write != nil ? nil : ConsumerQueue<Data>(name: "log", capacity: 4096, deliver: { chunks in
            FDWrite.lines(STDERR_FILENO, chunks) == 0
        })
    }

    deinit { stderrQueue?.close() }

    /// Told (once per episode, not per line) when stderr falls behind and its oldest
    /// lines are dropped: the run says so on its other consumers.
    public var onFallingBehind: (@Sendable (String) -> Void)? {
        get { state.withLock { $0.behindHandler } }
        set { state.withLock { $0.behindHandler = newValue } }
    }

    /// What stderr lost by falling behind (nil with a handler).
    var drops: ConsumerDrops? {
        stderrQueue.map { ConsumerDrops(consumer: $0.name, dropped: $0.dropped) }
    }

    /// Writes what is queued for stderr, waiting up to `deadline` at most.
    public func flush(until deadline: Date) {
        stderrQueue?.flush(until: deadline)
    }

    /// Draws `text` as the status line in place of the last one (nil: clears it).
    /// Only on a terminal; log lines are written above it.
    public func setStatus(_ text: String?) {
        guard drawsStatusInPlace else { return }
        state.withLock { s in
            s.status = text
            // \r and erase-line: the line is redrawn where it stands, never scrolled.
            stderrQueue?.push(Data(("\r\u{1B}[K" + (text ?? "")).utf8))
        }
    }

    /// Writes one log line, clearing the status line first and drawing it again after.
    private func emit(_ line: String) {
        recent.append(line)
        // A handler draws no status line: it needs nothing of the lock.
        if let handler { return handler(line) }
        let behind = state.withLock { s -> (@Sendable (String) -> Void)? in
            var chunk = s.status != nil ? "\r\u{1B}[K" : ""
            chunk += line + "\n"
            if let status = s.status { chunk += status }
            return stderrQueue?.push(Data(chunk.utf8)) == .droppedOldest(firstOfEpisode: true) ? s.behindHandler : nil
        }
        behind?("log: stderr is behind; its oldest lines are dropped until it catches up")
    }

    /// One line of `--log-format json`.
    private struct JSONLogLine: Encodable {
        let ts: String
        let level: String
        let msg: String
        /// The library that printed it (`gstreamer`, `glib`); left out for mediapub's own lines.
        let source: String?
    }

    private func line(_ level: LogLevel, _ text: String, source: String?) -> String {
        switch format {
        case .text:
            return source != nil ? text : "mediapub: \(level == .info ? "" : level.name + ": ")\(text)"
        case .json:
            return JSONLine.text(JSONLogLine(ts: Events.timestamp(), level: level.name, msg: text, source: source)) ?? text
        }
    }

    public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard level <= self.level else { return }
        emit(line(level, message(), source: nil))
    }

    /// A line a library printed of its own (GStreamer, GLib), already masked: shown
    /// whatever the level (its library's own setting chose it), in this logger's format.
    func library(_ level: LogLevel, _ text: String, source: String) {
        emit(line(level, text, source: source))
    }

    public func error(_ m: @autoclosure () -> String) { log(.error, m()) }
    public func warn(_ m: @autoclosure () -> String) { log(.warn, m()) }
    public func info(_ m: @autoclosure () -> String) { log(.info, m()) }
    public func debug(_ m: @autoclosure () -> String) { log(.debug, m()) }
}

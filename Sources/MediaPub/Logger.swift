import Foundation

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
/// (tests pass an in-memory one).
public final class Logger: @unchecked Sendable {
    public enum Format: String, Sendable { case text, json }
    public let level: LogLevel
    public let format: Format
    private let write: (String) -> Void
    private let lock = NSLock()

    /// The status line now drawn on the terminal (ffmpeg-style, redrawn in place).
    private var status: String?
    /// Whether a status line is drawn in place: text logs to stderr, and stderr is a terminal.
    public let drawsStatusInPlace: Bool

    public init(level: LogLevel = .info, format: Format = .text, write: ((String) -> Void)? = nil) {
        self.level = level
        self.format = format
        self.write = write ?? Logger.standardError()
        drawsStatusInPlace = write == nil && format == .text && isatty(STDERR_FILENO) != 0
    }

    /// Draws `text` as the status line in place of the last one (nil: clears it).
    /// Only on a terminal; log lines are written above it.
    public func setStatus(_ text: String?) {
        guard drawsStatusInPlace else { return }
        lock.lock(); defer { lock.unlock() }
        status = text
        // \r and erase-line: the line is redrawn where it stands, never scrolled.
        FDWrite.all(STDERR_FILENO, Data(("\r\u{1B}[K" + (text ?? "")).utf8))
    }

    /// Writes one log line, clearing the status line first and drawing it again after.
    private func emit(_ line: String) {
        lock.lock(); defer { lock.unlock() }
        if status != nil { FDWrite.all(STDERR_FILENO, Data("\r\u{1B}[K".utf8)) }
        write(line)
        if let status { FDWrite.all(STDERR_FILENO, Data(status.utf8)) }
    }

    /// Lines to stderr (called under the logger's lock). When a write fails
    /// (stderr is a closed pipe or on a full disk) stderr stays silent from
    /// then on: there is nowhere left to say so, and the broadcast goes on.
    private static func standardError() -> (String) -> Void {
        var failed = false
        return { line in
            guard !failed else { return }
            failed = FDWrite.all(STDERR_FILENO, Data((line + "\n").utf8)) != 0
        }
    }

    public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard level <= self.level else { return }
        let text = message()
        let line: String
        switch format {
        case .text:
            line = "mediapub: \(level == .info ? "" : level.name + ": ")\(text)"
        case .json:
            let object: [String: Any] = ["ts": Events.timestamp(), "level": level.name, "msg": text]
            line = (try? String(data: JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]), encoding: .utf8)) ?? text
        }
        emit(line)
    }

    /// A line a library printed of its own (GStreamer, GLib), already masked: shown
    /// whatever the level (its library's own setting chose it), in this logger's format.
    func library(_ level: LogLevel, _ text: String, source: String) {
        let line: String
        switch format {
        case .text:
            line = text
        case .json:
            let object: [String: Any] = ["ts": Events.timestamp(), "level": level.name, "msg": text, "source": source]
            line = (try? String(data: JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]), encoding: .utf8)) ?? text
        }
        emit(line)
    }

    public func error(_ m: @autoclosure () -> String) { log(.error, m()) }
    public func warn(_ m: @autoclosure () -> String) { log(.warn, m()) }
    public func info(_ m: @autoclosure () -> String) { log(.info, m()) }
    public func debug(_ m: @autoclosure () -> String) { log(.debug, m()) }
}

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// JSON-lines events (SPEC §7), each with `ts` and `event`, written to the
/// destinations given (a file, or stdout for `-`). A destination whose write
/// fails (a closed pipe, a full disk, `/dev/full`) is dropped with one warning;
/// the others, the listeners and the broadcast go on.
public final class Events: @unchecked Sendable {
    private struct Destination {
        let fd: Int32
        let name: String
        /// Opened here, closed here (stdout is not).
        let owned: Bool
    }
    private let lock = NSLock()
    private var destinations: [Destination] = []
    private var listeners: [(Data) -> Void] = []
    private var failureHandler: ((String) -> Void)?
    /// The last `ts` given: events are stamped, written and heard in one order, and
    /// their times never go back (not across threads, nor when the wall clock is set back).
    private var lastStamp = Date.distantPast

    public init() {}

    deinit {
        for d in destinations where d.owned { close(d.fd) }
    }

    /// Called once for each destination dropped because a write to it failed,
    /// with a one-line message (a `warning` event with it goes to the others).
    public var onDestinationFailure: ((String) -> Void)? {
        get { lock.lock(); defer { lock.unlock() }; return failureHandler }
        set { lock.lock(); failureHandler = newValue; lock.unlock() }
    }

    /// Adds a JSON-lines destination: a path, or `-` for stdout.
    public func addDestination(path: String) throws {
        if path == "-" {
            lock.lock(); destinations.append(Destination(fd: STDOUT_FILENO, name: "stdout", owned: false)); lock.unlock()
            return
        }
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw MediaPubError.usage("--events \(path): cannot create the file")
            }
        }
        let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else {
            throw MediaPubError.usage("--events \(path): cannot open for writing")
        }
        lock.lock(); destinations.append(Destination(fd: fd, name: path, owned: true)); lock.unlock()
    }

    /// `listener` gets each event as the JSON object the destinations get (no newline).
    public func addListener(_ listener: @escaping (Data) -> Void) {
        lock.lock(); listeners.append(listener); lock.unlock()
    }

    /// Stamps, writes and hands out one event. Listeners are called in event order,
    /// under the events' lock: they must only queue the event (never emit one).
    public func emit(_ event: String, _ fields: [String: Any] = [:]) {
        var object = fields
        object["event"] = event
        var failures: [String] = []
        lock.lock()
        let now = max(Date(), lastStamp)
        lastStamp = now
        object["ts"] = Events.timestamp(now)
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            lock.unlock()
            return
        }
        let line = data + Data("\n".utf8)
        destinations.removeAll { d in
            let code = FDWrite.all(d.fd, line)
            guard code != 0 else { return false }
            failures.append("events to \(d.name): \(FDWrite.reason(code)); no more events are written there")
            if d.owned { close(d.fd) }
            return true
        }
        for listener in listeners { listener(data) }
        let onFailure = failureHandler
        lock.unlock()
        for why in failures {
            onFailure?(why)
            emit("warning", ["message": why])
        }
    }

    /// ISO 8601 in UTC with milliseconds; one format for every event and JSON log line.
    private static let timestampStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    static func timestamp(_ date: Date = Date()) -> String {
        timestampStyle.format(date)
    }
}

import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// JSON-lines events (SPEC §7), each with `ts` and `event`, written to the
/// destinations given (a file, or stdout for `-`). A destination whose write
/// fails (a closed pipe, a full disk, `/dev/full`) is dropped with one warning;
/// the others, the listeners and the broadcast go on.
public final class Events: Sendable {
    private struct Destination {
        let fd: Int32
        let name: String
        /// Opened here, closed here (stdout is not).
        let owned: Bool
    }

    private struct State {
        var destinations: [Destination] = []
        var listeners: [@Sendable (Data) -> Void] = []
        var failureHandler: (@Sendable (String) -> Void)?
        /// The last `ts` given: events are stamped, written and heard in one order, and
        /// their times never go back (not across threads, nor when the wall clock is set back).
        var lastStamp = Date.distantPast
    }

    private let state = Mutex(State())

    public init() {}

    deinit {
        state.withLock { s in
            for d in s.destinations where d.owned { close(d.fd) }
        }
    }

    /// Called once for each destination dropped because a write to it failed,
    /// with a one-line message (a `warning` event with it goes to the others).
    public var onDestinationFailure: (@Sendable (String) -> Void)? {
        get { state.withLock { $0.failureHandler } }
        set { state.withLock { $0.failureHandler = newValue } }
    }

    /// Adds a JSON-lines destination: a path, or `-` for stdout.
    public func addDestination(path: String) throws {
        if path == "-" {
            state.withLock { $0.destinations.append(Destination(fd: STDOUT_FILENO, name: "stdout", owned: false)) }
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
        state.withLock { $0.destinations.append(Destination(fd: fd, name: path, owned: true)) }
    }

    /// `listener` gets each event as the JSON object the destinations get (no newline).
    public func addListener(_ listener: @escaping @Sendable (Data) -> Void) {
        state.withLock { $0.listeners.append(listener) }
    }

    /// Stamps, writes and hands out one event. Listeners are called in event order,
    /// under the events' lock: they must only queue the event (never emit one).
    public func emit(_ event: Event) {
        let (failures, onFailure) = state.withLock { s -> ([String], (@Sendable (String) -> Void)?) in
            let now = max(Date(), s.lastStamp)
            s.lastStamp = now
            guard let data = JSONLine.encode(StampedEvent(ts: Events.timestamp(now), event: event)) else { return ([], nil) }
            let line = data + Data("\n".utf8)
            var failures: [String] = []
            s.destinations.removeAll { d in
                let code = FDWrite.all(d.fd, line)
                guard code != 0 else { return false }
                failures.append("events to \(d.name): \(FDWrite.reason(code)); no more events are written there")
                if d.owned { close(d.fd) }
                return true
            }
            for listener in s.listeners { listener(data) }
            return (failures, s.failureHandler)
        }
        for why in failures {
            onFailure?(why)
            emit(.warning(why))
        }
    }

    /// ISO 8601 in UTC with milliseconds; one format for every event and JSON log line.
    static func timestamp(_ date: Date = Date()) -> String {
        UTCTimestamp.string(date)
    }
}

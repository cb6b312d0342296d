import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// JSON-lines events (docs/events.md), each with `ts` and `event`, written to the
/// destinations given (a file, or stdout for `-`). Each destination has its own
/// bounded queue and writer (`ConsumerQueue`): one that is slow or stuck (a pipe
/// nobody reads) loses its oldest lines, said once per episode, and holds up
/// nobody. One whose write fails (a closed pipe, a full disk, `/dev/full`) is
/// dropped with one warning; the others, the listeners and the broadcast go on.
public final class Events: Sendable {
    private struct Destination {
        let name: String
        let queue: ConsumerQueue<Data>
    }

    private struct State {
        var destinations: [Destination] = []
        var listeners: [@Sendable (Data) -> Void] = []
        var noticeHandler: (@Sendable (LogLevel, String) -> Void)?
        /// The last `ts` given: events are stamped, written and heard in one order, and
        /// their times never go back (not across threads, nor when the wall clock is set back).
        var lastStamp = Date.distantPast
        /// Events stamped but not yet handed to the listeners, in order.
        var unheard: [Data] = []
        /// A thread is handing `unheard` to the listeners (outside the lock): the others leave it theirs.
        var handing = false
    }

    private let state = Mutex(State())
    /// The lines a destination may have waiting before its oldest are dropped.
    static let capacity = 4096

    public init() {}

    deinit {
        state.withLock { s in
            for d in s.destinations { d.queue.close() }
        }
    }

    /// Told what befalls a destination, as a log line: dropped because a write to it
    /// failed, or falling behind (warnings, each also sent as a `warning` event to
    /// all), or caught up again (info).
    public var onNotice: (@Sendable (LogLevel, String) -> Void)? {
        get { state.withLock { $0.noticeHandler } }
        set { state.withLock { $0.noticeHandler = newValue } }
    }

    /// Adds a JSON-lines destination: a path, or `-` for stdout.
    public func addDestination(path: String) throws {
        if path == "-" {
            addDestination(fd: STDOUT_FILENO, name: "stdout", owned: false)
            return
        }
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw MediaPubError.usage("--events \(path): cannot create the file")
            }
        }
        // Non-blocking, so that a FIFO nobody reads is refused (ENXIO) instead of waiting
        // for a reader for ever; then blocking again for its writer (its own thread).
        let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            throw MediaPubError.usage("--events \(path): " + (errno == ENXIO
                ? "a FIFO that nothing reads (start its reader first)" : "cannot open for writing"))
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        addDestination(fd: fd, name: path, owned: true)
    }

    /// A destination writing to `fd` (closed by its writer at the end when `owned`).
    func addDestination(fd: Int32, name: String, owned: Bool, capacity: Int = Events.capacity) {
        let queue = ConsumerQueue<Data>(name: name, capacity: capacity, deliver: { [weak self] lines in
            let code = FDWrite.lines(fd, lines)
            guard code != 0 else { return true }
            self?.warn("events to \(name): \(FDWrite.reason(code)); no more events are written there")
            return false
        }, caughtUp: { [weak self] lost in
            self?.notice(.info, "events to \(name): caught up; \(lost) lines were dropped while it was behind")
        }, finished: {
            if owned { close(fd) }
        })
        state.withLock { $0.destinations.append(Destination(name: name, queue: queue)) }
    }

    /// `listener` gets each event as the JSON object the destinations get (no newline).
    public func addListener(_ listener: @escaping @Sendable (Data) -> Void) {
        state.withLock { $0.listeners.append(listener) }
    }

    /// What each destination lost by falling behind.
    var drops: [ConsumerDrops] {
        state.withLock { s in s.destinations.map { ConsumerDrops(consumer: $0.name, dropped: $0.queue.dropped) } }
    }

    /// Stamps, queues and hands out one event; never waits for a destination. Listeners
    /// hear events in their order, never called holding the events' lock: the thread
    /// that finds nobody handing them out hands out every event stamped meanwhile (an
    /// event a listener emits included), the others return at once.
    public func emit(_ event: Event) {
        let (behind, hands) = state.withLock { s -> ([String], Bool) in
            let now = max(Date(), s.lastStamp)
            s.lastStamp = now
            guard let data = JSONLine.encode(StampedEvent(ts: Events.timestamp(now), event: event)) else { return ([], false) }
            let line = data + Data("\n".utf8)
            var behind: [String] = []
            for d in s.destinations where d.queue.push(line) == .droppedOldest(firstOfEpisode: true) {
                behind.append(d.name)
            }
            guard !s.listeners.isEmpty else { return (behind, false) }
            s.unheard.append(data)
            defer { s.handing = true }
            return (behind, !s.handing)
        }
        if hands { handToListeners() }
        for name in behind {
            warn("events to \(name): the reader is behind; its oldest lines are dropped until it catches up")
        }
    }

    /// Hands the events not heard yet to the listeners, outside the lock, until none is left.
    private func handToListeners() {
        while let (events, listeners) = state.withLock({ s -> ([Data], [@Sendable (Data) -> Void])? in
            guard !s.unheard.isEmpty else {
                s.handing = false
                return nil
            }
            defer { s.unheard.removeAll() }
            return (s.unheard, s.listeners)
        }) {
            for data in events {
                for listener in listeners { listener(data) }
            }
        }
    }

    /// Writes what every destination has queued, waiting for them up to `deadline` at most.
    public func flush(until deadline: MonotonicInstant) {
        for d in state.withLock({ $0.destinations }) { d.queue.flush(until: deadline) }
    }

    /// A warning about a destination: the log, and a `warning` event to all.
    private func warn(_ why: String) {
        notice(.warn, why)
        emit(.warning(why))
    }

    private func notice(_ level: LogLevel, _ text: String) {
        state.withLock { $0.noticeHandler }?(level, text)
    }

    /// ISO 8601 in UTC with milliseconds; one format for every event and JSON log line.
    static func timestamp(_ date: Date = Date()) -> String {
        UTCTimestamp.string(date)
    }
}

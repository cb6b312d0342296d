import Foundation
import Synchronization

/// The run's events for `GET /api/events` (docs/http.md): a listener of `Events` that
/// numbers each event, keeps the last 1,000 (`EventRing`) and queues it for every
/// client, each in its own bounded queue (`StreamQueue`). It only queues (a leaf lock,
/// no call out while held) and asks the server's thread, once per batch, to send what
/// is queued: a client that reads slowly, or not at all, never slows whoever emits.
final class EventStream: Sendable {
    static let ringSize = 1000
    static let queueSize = 1000

    private struct State {
        var ring = EventRing(capacity: EventStream.ringSize)
        var clients: [Int: StreamQueue<EventRing.Entry>] = [:]
        var nextClient = 1
        /// The server's thread has been asked to send and has not yet looked.
        var wakeAsked = false
        var wake: (@Sendable () -> Void)?
    }
    private let state = Mutex(State())

    init() {}

    /// Listens to `events` from now on.
    func listen(to events: Events) {
        events.addListener { [weak self] line in self?.publish(line) }
    }

    /// Called (from any thread, holding no lock) to have the server's thread send what is queued.
    func onQueued(_ wake: @escaping @Sendable () -> Void) {
        state.withLock { $0.wake = wake }
    }

    /// Numbers and keeps `line`, queues it for every client; never waits.
    func publish(_ line: Data) {
        let wake = state.withLock { s -> (@Sendable () -> Void)? in
            let entry = s.ring.append(line)
            guard !s.clients.isEmpty else { return nil }
            for i in s.clients.values.indices { s.clients.values[i].push(entry) }
            guard !s.wakeAsked else { return nil }
            s.wakeAsked = true
            return s.wake
        }
        wake?()
    }

    /// A new client: what it missed since `lastEventID` (those still kept, and a count of
    /// the others) is queued first. Returns its number.
    func open(lastEventID: UInt64?) -> Int {
        state.withLock { s in
            var queue = StreamQueue<EventRing.Entry>(capacity: EventStream.queueSize)
            if let lastEventID {
                let (missed, entries) = s.ring.since(lastEventID)
                queue.drop(missed)
                for entry in entries { queue.push(entry) }
            }
            let id = s.nextClient
            s.nextClient += 1
            s.clients[id] = queue
            return id
        }
    }

    /// The server's thread looks at the queues: a later event asks it again.
    func woken() {
        state.withLock { $0.wakeAsked = false }
    }

    /// What to send `client` now (nil: it is gone).
    func take(_ client: Int) -> (dropped: Int?, entries: [EventRing.Entry])? {
        state.withLock { s -> (dropped: Int?, entries: [EventRing.Entry])? in
            guard s.clients[client] != nil else { return nil }
            let (dropped, messages) = s.clients[client]!.take()
            return (dropped, messages)
        }
    }

    func close(_ client: Int) {
        state.withLock { $0.clients[client] = nil }
    }

    var clients: Int { state.withLock { $0.clients.count } }

    /// The text of one batch: the drop notice first, then each event (docs/http.md).
    static func text(dropped: Int?, entries: [EventRing.Entry]) -> [UInt8] {
        var out: [UInt8] = []
        if let dropped { out += Array("event: dropped\ndata: {\"dropped\":\(dropped)}\n\n".utf8) }
        for entry in entries {
            out += Array("id: \(entry.id)\ndata: ".utf8)
            out += entry.line
            out += Array("\n\n".utf8)
        }
        return out
    }
}

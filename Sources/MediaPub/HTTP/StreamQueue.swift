/// One event-stream client's own bounded queue (docs/http.md, `GET /api/events`): a
/// client that reads too slowly loses its oldest messages, never anyone else's time,
/// and is told how many before the next message it gets. A pure value, kept by
/// `EventStream` under its lock.
struct StreamQueue<Message: Sendable>: Sendable {
    private var ring: Ring<Message>
    /// Lost since the client was last told.
    private(set) var untold = 0
    /// Lost since the stream began.
    private(set) var lost = 0

    init(capacity: Int) { ring = Ring(capacity: capacity) }

    var count: Int { ring.count }
    var isEmpty: Bool { ring.isEmpty && untold == 0 }

    /// Queues `message`, dropping the oldest one when full; never waits.
    mutating func push(_ message: Message) {
        if ring.append(message) != nil { drop(1) }
    }

    /// Counts `n` messages the client will never get (lost before it was queued: a resume
    /// past what the event ring keeps).
    mutating func drop(_ n: Int) {
        untold += n
        lost += n
    }

    /// What to send next: how many were lost since last told (nil: none), then every
    /// message queued, oldest first; the queue is then empty.
    mutating func take() -> (dropped: Int?, messages: [Message]) {
        defer {
            untold = 0
            ring.removeAll()
        }
        return (untold > 0 ? untold : nil, ring.elements)
    }
}

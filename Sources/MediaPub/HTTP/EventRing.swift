import Foundation

/// The last events of the run, each with its number (1, 2, … in the order `Events`
/// handed them out), for a client that resumes with `Last-Event-ID`
/// (docs/http.md, `GET /api/events`). A pure value.
struct EventRing: Sendable {
    struct Entry: Sendable, Equatable {
        let id: UInt64
        let line: Data
    }

    private var ring: Ring<Entry>
    /// The number the next event gets.
    private(set) var nextID: UInt64 = 1

    init(capacity: Int) { ring = Ring(capacity: capacity) }

    /// Keeps `line` as the next event; returns it with its number.
    mutating func append(_ line: Data) -> Entry {
        let entry = Entry(id: nextID, line: line)
        nextID += 1
        ring.append(entry)
        return entry
    }

    /// What a client that last saw event `lastID` missed: the events after it still kept,
    /// oldest first, and how many after it are no longer kept. An id from the future
    /// (another run's) is taken as the latest: nothing is missed.
    func since(_ lastID: UInt64) -> (missed: Int, entries: [Entry]) {
        guard lastID < nextID, nextID - lastID > 1 else { return (0, []) }  // never lastID + 1: a client's id may be UInt64.max
        let oldest = ring.first?.id ?? nextID
        let missed = oldest > lastID + 1 ? Int(oldest - lastID - 1) : 0
        return (missed, ring.elements.filter { $0.id > lastID })
    }
}

import Foundation

/// The JPEGs made last, one per width asked, each answered again while it is under
/// `maxAge` old: so any number of viewers cost one picture a second (docs/http.md).
/// At most `capacity` widths are kept (the oldest made goes first). A pure value.
struct ThumbnailCache: Sendable {
    static let maxAge: TimeInterval = 1
    static let capacity = 4

    private var entries: [(width: Int, jpeg: Data, madeAt: TimeInterval)] = []

    /// The JPEG of `width` made less than `maxAge` before `now` (a monotonic time in seconds).
    func fresh(width: Int, now: TimeInterval) -> Data? {
        guard let e = entries.first(where: { $0.width == width }), now - e.madeAt < Self.maxAge, now >= e.madeAt else { return nil }
        return e.jpeg
    }

    mutating func store(_ jpeg: Data, width: Int, now: TimeInterval) {
        entries.removeAll { $0.width == width }
        entries.append((width, jpeg, now))
        if entries.count > Self.capacity { entries.removeFirst(entries.count - Self.capacity) }
    }

    var widths: [Int] { entries.map(\.width) }
}

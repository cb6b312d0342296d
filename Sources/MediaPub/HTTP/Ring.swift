/// A bounded ring of the last `capacity` values, oldest first: appending to a full ring
/// drops its oldest value. A pure value (the log's lines, the event stream's last
/// events, an output's bitrate samples; docs/http.md).
struct Ring<Element>: Sendable where Element: Sendable {
    let capacity: Int
    private var storage: [Element] = []
    /// Where the oldest value is, once the ring is full.
    private var start = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        storage.reserveCapacity(min(self.capacity, 4096))
    }

    var count: Int { storage.count }
    var isEmpty: Bool { storage.isEmpty }

    /// Appends `value`; returns the value it dropped to make room, if any.
    @discardableResult
    mutating func append(_ value: Element) -> Element? {
        guard storage.count == capacity else {
            storage.append(value)
            return nil
        }
        let dropped = storage[start]
        storage[start] = value
        start = (start + 1) % capacity
        return dropped
    }

    /// The oldest value kept.
    var first: Element? { storage.isEmpty ? nil : storage[start] }
    /// The newest value.
    var last: Element? { storage.isEmpty ? nil : storage[(start + storage.count - 1) % storage.count] }

    /// Every value, oldest first.
    var elements: [Element] { Array(storage[start...] + storage[..<start]) }

    /// The newest `n` values (all of them when there are fewer), oldest first.
    func suffix(_ n: Int) -> [Element] {
        let all = elements
        return Array(all.suffix(max(0, n)))
    }

    mutating func removeAll() {
        storage.removeAll(keepingCapacity: true)
        start = 0
    }
}

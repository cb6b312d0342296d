import Foundation
import Synchronization

/// One consumer's own bounded queue and the thread that hands it over (an events
/// file, stdout, the webhook, the log on stderr): whoever queues never waits for
/// the consumer, and a consumer that falls behind loses its oldest items, never
/// anyone else's time (docs/events.md, "Slow readers"). The thread delivers
/// outside the lock; a delivery that says the consumer is gone closes the queue.
final class ConsumerQueue<Item: Sendable>: Sendable {
    /// What became of one item queued.
    enum Pushed: Equatable {
        case queued
        /// Queued, and the oldest item dropped to make room: the first drop since the
        /// consumer last caught up (say so once), or one more of the same episode.
        case droppedOldest(firstOfEpisode: Bool)
        /// The queue is closed (the consumer failed or is being let go): nothing queued.
        case closed
    }

    /// The consumer's name in warnings and `/metrics` (`stdout`, an events file's path, `webhook`, `log`).
    let name: String
    let capacity: Int
    /// The most items handed over in one batch (those are out of the queue: not dropped).
    let batch: Int

    private struct State: HasWaiters {
        var items: [Item] = []
        /// Items before this index are taken (a ring would be no faster at these sizes).
        var head = 0
        var dropped = 0
        /// Dropping since the consumer last caught up: the drops of this episode.
        var episode: Int?
        /// Items the consumer has taken since it last emptied the queue in an episode: the
        /// episode is over once it has taken `settle` more without a drop (one that keeps
        /// up only just is not warned about over and over).
        var takenSinceEmpty: Int?
        /// The thread is delivering a batch.
        var busy = false
        /// The thread sleeps on `wake` until something is queued.
        var sleeping = false
        var closed = false
        var waiters = Waiters()
        var count: Int { items.count - head }

        /// Forgets the items before `head` once there are `limit` of them (amortised: each
        /// item is moved at most once per `limit` taken), or at once when none is left.
        mutating func compact(_ limit: Int) {
            if head == items.count { items = []; head = 0 }
            else if head >= limit { items.removeFirst(head); head = 0 }
        }
    }
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)

    /// Starts the queue's thread. `deliver` hands a batch (oldest first) to the consumer
    /// and returns false when the consumer is gone for good: the queue then closes and
    /// drops what it holds. `caughtUp` is told, on the queue's thread, how many items an
    /// episode of drops cost once the consumer has taken everything again. `finished`
    /// runs on the queue's thread as it ends (after a failure, or once closed).
    init(name: String, capacity: Int, batch: Int = .max, deliver: @escaping @Sendable ([Item]) -> Bool,
         caughtUp: @escaping @Sendable (Int) -> Void = { _ in }, finished: @escaping @Sendable () -> Void = {}) {
        self.name = name
        self.capacity = max(1, capacity)
        self.batch = max(1, batch)
        let thread = Thread { [self] in
            run(deliver: deliver, caughtUp: caughtUp)
            finished()
        }
        thread.name = "consumer"
        thread.start()
    }

    /// Queues `item`, dropping the oldest when full. Never waits for the consumer.
    @discardableResult
    func push(_ item: Item) -> Pushed {
        let capacity = self.capacity
        return state.withLock { s in
            guard !s.closed else { return .closed }
            var pushed = Pushed.queued
            if s.count >= capacity {
                s.head += 1
                s.dropped += 1
                pushed = .droppedOldest(firstOfEpisode: s.episode == nil)
                s.episode = (s.episode ?? 0) + 1
                s.takenSinceEmpty = nil
                s.compact(capacity)
            }
            s.items.append(item)
            if s.sleeping {
                s.sleeping = false
                wake.signal()
            }
            return pushed
        }
    }

    /// Items dropped since the queue began.
    var dropped: Int { state.withLock { $0.dropped } }

    /// Waits (up to `deadline`) until the consumer has taken everything queued, or the queue closed.
    func flush(until deadline: MonotonicInstant) {
        state.wait(until: deadline) { s in !s.closed && (s.count > 0 || s.busy) }
    }

    /// Lets the consumer go: nothing more is queued; the thread ends after the batch it is
    /// delivering (what is still queued is dropped: `flush` first to keep it).
    func close() {
        state.withLock { s in
            s.closed = true
            s.waiters.wakeAll()
            if s.sleeping {
                s.sleeping = false
                wake.signal()
            }
        }
    }

    private func run(deliver: @Sendable ([Item]) -> Bool, caughtUp: @Sendable (Int) -> Void) {
        let (settle, most, capacity) = (min(capacity, 64), batch, capacity)
        while true {
            // The next batch; empty: sleep until something comes; nil: the queue is closed.
            let next = state.withLock { s -> (batch: [Item], caughtUp: Int?)? in
                guard !s.closed else {
                    s.items = []
                    s.head = 0
                    return nil
                }
                // In an episode: caught up once the queue emptied and `settle` more went since.
                var caughtUp: Int? = nil
                if let lost = s.episode, let taken = s.takenSinceEmpty, taken >= settle {
                    caughtUp = lost
                    s.episode = nil
                    s.takenSinceEmpty = nil
                }
                guard s.count > 0 else {
                    s.busy = false
                    s.sleeping = true
                    s.waiters.wakeAll()
                    if s.episode != nil, s.takenSinceEmpty == nil { s.takenSinceEmpty = 0 }
                    return ([], caughtUp)
                }
                s.busy = true
                let end = s.head + min(s.count, most)
                let batch = Array(s.items[s.head..<end])
                s.head = end
                s.compact(capacity)
                if let taken = s.takenSinceEmpty { s.takenSinceEmpty = taken + batch.count }
                return (batch, caughtUp)
            }
            guard let next else { return }
            if let lost = next.caughtUp { caughtUp(lost) }
            if next.batch.isEmpty {
                wake.wait()
                continue
            }
            if !deliver(next.batch) {
                state.withLock { s in
                    s.closed = true
                    s.busy = false
                    s.items = []
                    s.head = 0
                    s.waiters.wakeAll()
                }
                return
            }
        }
    }
}

/// What a consumer lost by falling behind, for `/metrics` (docs/metrics.md).
struct ConsumerDrops: Sendable, Equatable {
    let consumer: String
    let dropped: Int
}

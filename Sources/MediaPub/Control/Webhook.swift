import Foundation
import Synchronization

/// `events.webhook`: every event POSTed as JSON with libcurl, from a bounded
/// queue of its own (`ConsumerQueue`), retried with backoff; past a backlog of
/// `capacity` the oldest events are dropped (said once per episode). The stream
/// never waits for the webhook, and neither does the run's exit: once draining,
/// each event left gets one short try.
final class Webhook: Sendable {
    static let capacity = 1000
    private let poster: Poster
    private let queue: ConsumerQueue<Data>

    init(url: String, log: Logger, onWarning: @escaping @Sendable (String) -> Void) {
        let poster = Poster(url: url, log: log, onWarning: onWarning)
        self.poster = poster
        // One event at a time: what waits for a webhook that does not answer stays droppable.
        queue = ConsumerQueue<Data>(name: "webhook", capacity: Self.capacity, batch: 1, deliver: { bodies in
            for body in bodies { poster.deliver(body) }
            return true
        }, caughtUp: { lost in
            log.info("webhook \(poster.shown): caught up; \(lost) events were dropped while it was behind")
        })
    }

    deinit { queue.close() }

    /// Queues one event, as `Events` serialised it (never blocks).
    func send(_ body: Data) {
        if queue.push(body) == .droppedOldest(firstOfEpisode: true) {
            poster.onWarning("webhook \(poster.shown): too far behind; its oldest events are dropped until it catches up")
        }
    }

    /// Events dropped because the webhook fell behind.
    var drops: ConsumerDrops { ConsumerDrops(consumer: queue.name, dropped: queue.dropped) }

    /// At exit: what is queued gets one short try each, until `deadline` at most.
    func drain(until deadline: MonotonicInstant) {
        poster.startDraining()
        queue.flush(until: deadline)
    }

    /// POSTs one event at a time, on the queue's thread.
    private final class Poster: Sendable {
        let url: String
        let log: Logger
        /// Said once per outage or episode of drops (a `warning` event and a log line), not once per event.
        let onWarning: @Sendable (String) -> Void
        /// What logs show of the webhook: `SecretMask.mask(webhook:)`, scheme and host only.
        let shown: String
        /// Signalled once when draining starts: a backoff under way is cut short.
        private let drainStarted = DispatchSemaphore(value: 0)

        private struct State {
            var failing = false
            var draining = false
        }
        private let state = Mutex(State())

        init(url: String, log: Logger, onWarning: @escaping @Sendable (String) -> Void) {
            self.url = url
            self.log = log
            self.onWarning = onWarning
            shown = SecretMask.mask(webhook: url)
        }

        private var isDraining: Bool { state.withLock { $0.draining } }

        func startDraining() {
            let first = state.withLock { s in defer { s.draining = true }; return !s.draining }
            if first { drainStarted.signal() }
        }

        func deliver(_ body: Data) {
            var delay = 0.5
            for attempt in 1...4 {
                let last = attempt == 4 || isDraining
                do {
                    try RemoteFetch().postJSON(url, body: body, timeout: isDraining ? 1 : 5)
                    let recovered = state.withLock { s in defer { s.failing = false }; return s.failing }
                    if recovered { log.info("webhook \(shown): delivering again") }
                    return
                } catch {
                    let first = state.withLock { s in defer { s.failing = true }; return !s.failing }
                    if first { onWarning("webhook \(shown): \(MediaPubError.reason(of: error)); events are retried, then dropped") }
                    if last { log.debug("webhook \(shown): gave up on one event"); return }
                    // Backoff, cut short when the run drains (the next try is then the last).
                    if !isDraining { _ = drainStarted.wait(timeout: .now() + delay) }
                    delay *= 2
                }
            }
        }
    }
}

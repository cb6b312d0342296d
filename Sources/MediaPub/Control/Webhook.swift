import Foundation
import Synchronization

/// `events.webhook`: every event POSTed as JSON with libcurl, on a queue of its
/// own, retried with backoff, and dropped (with one warning) past a backlog —
/// the stream never waits for the webhook, and neither does the run's exit:
/// once draining, each event left gets one short try.
final class Webhook: Sendable {
    private let url: String
    private let log: Logger
    /// Said once per outage (a `warning` event and a log line), not once per event.
    private let onWarning: @Sendable (String) -> Void
    private let queue = DispatchQueue(label: "webhook")
    /// Signalled once when draining starts: a backoff under way is cut short.
    private let drainStarted = DispatchSemaphore(value: 0)
    private let maxBacklog = 1000

    private struct State {
        var backlog = 0
        var warnedFull = false
        var failing = false
        var draining = false
    }
    private let state = Mutex(State())

    /// What logs show of the webhook: `SecretMask.mask(webhook:)`, scheme and host only.
    private let shown: String

    init(url: String, log: Logger, onWarning: @escaping @Sendable (String) -> Void) {
        self.url = url
        self.log = log
        self.onWarning = onWarning
        shown = SecretMask.mask(webhook: url)
    }

    /// Queues one event, as `Events` serialised it (never blocks).
    func send(_ body: Data) {
        let maxBacklog = self.maxBacklog
        let (queued, warn) = state.withLock { s -> (Bool, Bool) in
            guard s.backlog < maxBacklog else {
                defer { s.warnedFull = true }
                return (false, !s.warnedFull)
            }
            s.backlog += 1
            return (true, false)
        }
        guard queued else {
            if warn { log.warn("webhook \(shown): too far behind; dropping events") }
            return
        }
        queue.async { [self] in
            defer { state.withLock { $0.backlog -= 1 } }
            deliver(body)
        }
    }

    private var isDraining: Bool { state.withLock { $0.draining } }

    private func deliver(_ body: Data) {
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

    /// At exit: what is queued gets one short try each, within `timeout` in all.
    func drain(timeout: TimeInterval) {
        let first = state.withLock { s in defer { s.draining = true }; return !s.draining }
        if first { drainStarted.signal() }
        let done = DispatchSemaphore(value: 0)
        queue.async { done.signal() }
        _ = done.wait(timeout: .now() + timeout)
    }
}

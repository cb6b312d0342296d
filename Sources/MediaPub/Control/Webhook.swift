import Foundation

/// `events.webhook`: every event POSTed as JSON with libcurl, on a queue of its
/// own, retried with backoff, and dropped (with one warning) past a backlog —
/// the stream never waits for the webhook, and neither does the run's exit:
/// once draining, each event left gets one short try.
final class Webhook: @unchecked Sendable {
    private let url: String
    private let log: Logger
    /// Said once per outage (a `warning` event and a log line), not once per event.
    private let onWarning: (String) -> Void
    private let queue = DispatchQueue(label: "webhook")
    private let state = NSCondition()
    private var backlog = 0
    private var warnedFull = false
    private var failing = false
    private var draining = false
    private let maxBacklog = 1000

    /// What logs show of the webhook: `SecretMask.mask(webhook:)`, scheme and host only.
    private let shown: String

    init(url: String, log: Logger, onWarning: @escaping (String) -> Void) {
        self.url = url
        self.log = log
        self.onWarning = onWarning
        shown = SecretMask.mask(webhook: url)
    }

    /// Queues one event, as `Events` serialised it (never blocks).
    func send(_ body: Data) {
        state.lock()
        guard backlog < maxBacklog else {
            let warn = !warnedFull
            warnedFull = true
            state.unlock()
            if warn { log.warn("webhook \(shown): too far behind; dropping events") }
            return
        }
        backlog += 1
        state.unlock()
        queue.async { [self] in
            defer { state.lock(); backlog -= 1; state.unlock() }
            deliver(body)
        }
    }

    private var isDraining: Bool { state.lock(); defer { state.unlock() }; return draining }

    private func deliver(_ body: Data) {
        var delay = 0.5
        for attempt in 1...4 {
            let last = attempt == 4 || isDraining
            do {
                try RemoteFetch().postJSON(url, body: body, timeout: isDraining ? 1 : 5)
                state.lock(); let recovered = failing; failing = false; state.unlock()
                if recovered { log.info("webhook \(shown): delivering again") }
                return
            } catch {
                state.lock(); let first = !failing; failing = true; state.unlock()
                if first { onWarning("webhook \(shown): \(MediaPubError.reason(of: error)); events are retried, then dropped") }
                if last { log.debug("webhook \(shown): gave up on one event"); return }
                // Backoff, cut short when the run drains.
                state.lock()
                let until = Date().addingTimeInterval(delay)
                while !draining, state.wait(until: until) {}
                state.unlock()
                delay *= 2
            }
        }
    }

    /// At exit: what is queued gets one short try each, within `timeout` in all.
    func drain(timeout: TimeInterval) {
        state.lock(); draining = true; state.broadcast(); state.unlock()
        let done = DispatchSemaphore(value: 0)
        queue.async { done.signal() }
        _ = done.wait(timeout: .now() + timeout)
    }
}

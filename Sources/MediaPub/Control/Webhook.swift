import Foundation

/// `events.webhook`: every event POSTed as JSON with libcurl, on a queue of its
/// own, retried with backoff, and dropped (with one warning) past a backlog —
/// the stream never waits for the webhook.
final class Webhook: @unchecked Sendable {
    private let url: String
    private let log: Logger
    private let queue = DispatchQueue(label: "webhook")
    private let lock = NSLock()
    private var backlog = 0
    private var warnedFull = false
    private let maxBacklog = 1000

    /// What logs show of the webhook: `SecretMask.mask(webhook:)`, scheme and host only.
    private let shown: String

    init(url: String, log: Logger) {
        self.url = url
        self.log = log
        shown = SecretMask.mask(webhook: url)
    }

    /// Queues one event, as `Events` serialised it.
    func send(_ body: Data) {
        lock.lock()
        guard backlog < maxBacklog else {
            let warn = !warnedFull
            warnedFull = true
            lock.unlock()
            if warn { log.warn("webhook \(shown): too far behind; dropping events") }
            return
        }
        backlog += 1
        lock.unlock()
        queue.async { [self] in
            defer { lock.lock(); backlog -= 1; lock.unlock() }
            var delay = 0.5
            for attempt in 1...4 {
                do {
                    try RemoteFetch().postJSON(url, body: body)
                    return
                } catch {
                    if attempt == 4 { log.warn("webhook \(shown): \(error) (gave up on one event)"); return }
                    Thread.sleep(forTimeInterval: delay)
                    delay *= 2
                }
            }
        }
    }

    /// Waits (bounded) for queued events to go out, e.g. `run.stopped` at exit.
    func drain(timeout: TimeInterval) {
        let done = DispatchSemaphore(value: 0)
        queue.async { done.signal() }
        _ = done.wait(timeout: .now() + timeout)
    }
}

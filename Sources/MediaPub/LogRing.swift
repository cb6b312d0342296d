import Synchronization

/// The last 2,000 lines of the run's log as it wrote them (masked, in its format), for
/// `GET /api/log` (docs/http.md). A leaf lock: appended to by whoever logs, read by the
/// HTTP server; a line over 4 KiB is kept cut to that.
public final class LogRing: Sendable {
    static let capacity = 2000
    static let maxLine = 4096
    private let ring = Mutex(Ring<String>(capacity: LogRing.capacity))

    init() {}

    func append(_ line: String) {
        let kept = line.utf8.count > LogRing.maxLine ? String(decoding: line.utf8.prefix(LogRing.maxLine), as: UTF8.self) : line
        ring.withLock { $0.append(kept) }
    }

    /// The last `n` lines, oldest first.
    func last(_ n: Int) -> [String] {
        ring.withLock { $0.suffix(n) }
    }
}

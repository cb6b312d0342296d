import CSRT
import Synchronization

/// A hold on libsrt's process-wide state (its garbage-collector thread, its
/// multiplexers), which libsrt counts: every srtsink takes one while it exists.
/// An SRT output holds it from its creation to the end of its `finish`, so that the
/// count does not fall to zero at each reconnect (libsrt tearing its state down while
/// a new srtsink or `SRTRejection`'s handshake starts it again), and gives it back so
/// that libsrt is down before the process exits (its static destructors racing its
/// still-running GC thread crashed the process at exit).
final class SRTLibraryHold: Sendable {
    private let held = Mutex(false)

    init() {
        held.withLock { $0 = srt_startup() >= 0 }
    }

    /// Gives the hold back (once; later calls do nothing).
    func release() {
        let wasHeld = held.withLock { held in
            defer { held = false }
            return held
        }
        if wasHeld { srt_cleanup() }
    }

    deinit { release() }
}

import CGStreamer
import CGStreamerShim
import Foundation
import Synchronization

/// The output's picture as it reaches the H.264 encoder (after every overlay), taken only
/// when someone asks for it: the page's thumbnail (docs/http.md). A probe on the encoder's
/// sink pad looks at one flag per frame; only while a grab is wanted does it keep a reference
/// to the frame (no copy) and its caps. It never waits and never calls out: a waiter is woken
/// under the lock, and the JPEG is made by whoever asked, off the encoder's thread.
final class FrameGrab: Sendable {
    /// Set by `next`, cleared by the frame that answers it: one atomic load per frame otherwise.
    private let wanted = Atomic<Bool>(false)

    private struct State: HasWaiters {
        var latest: Sample?
        /// Counts the frames taken, so a waiter knows a new one came.
        var taken: UInt64 = 0
        var waiters = Waiters()
    }
    private let state = Mutex(State())

    /// Watches the frames that come in on `pad` (the encoder's sink pad).
    func install(on pad: Pad) {
        let box = Unmanaged.passRetained(self).toOpaque()
        gst_pad_add_probe(pad.raw, GST_PAD_PROBE_TYPE_BUFFER, { pad, info, data in
            guard let pad, let info, let data else { return GST_PAD_PROBE_OK }
            let grab = Unmanaged<FrameGrab>.fromOpaque(data).takeUnretainedValue()
            guard grab.wanted.load(ordering: .relaxed), let buffer = gst_pad_probe_info_get_buffer(info),
                  let caps = gst_pad_get_current_caps(pad) else { return GST_PAD_PROBE_OK }
            grab.wanted.store(false, ordering: .relaxed)
            let sample = Sample(owning: gst_sample_new(buffer, caps, nil, nil))
            cshim_caps_unref(caps)
            grab.state.withLock { s in
                s.latest = sample
                s.taken &+= 1
                s.waiters.wakeAll()
            }
            return GST_PAD_PROBE_OK
        }, box) { data in
            if let data { Unmanaged<FrameGrab>.fromOpaque(data).release() }
        }
    }

    /// The next frame that reaches the encoder, waiting for it up to `timeout` seconds
    /// (a frame comes every tick); nil when none came by then (the run is not encoding).
    func next(timeout: TimeInterval) -> Sample? {
        let before = state.withLock { $0.taken }
        wanted.store(true, ordering: .relaxed)
        state.wait(until: MonotonicInstant.now.addingTimeInterval(timeout)) { $0.taken == before }
        return state.withLock { s in
            defer { s.latest = nil }  // nothing kept once handed over
            return s.taken == before ? nil : s.latest
        }
    }

    /// How many frames were taken since it was made.
    var taken: UInt64 { state.withLock { $0.taken } }

    /// Whether a frame is asked for and not taken yet (for tests and the bench: nothing asked, nothing kept).
    var isWanted: Bool { wanted.load(ordering: .relaxed) }
}

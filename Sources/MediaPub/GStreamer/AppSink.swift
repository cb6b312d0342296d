import CGStreamer
import CGStreamerShim
import Foundation

/// An appsink: samples are pulled by the caller, or pushed to a handler on the
/// streaming thread. The handler reaches Swift through an Unmanaged box that the
/// appsink releases with its destroy notify.
/// @unchecked Sendable: wraps a GstAppSink (thread-safe in C); no Swift state.
final class AppSink: Element, @unchecked Sendable {
    private var sink: UnsafeMutablePointer<GstAppSink> { cshim_as_appsink(raw) }

    /// The next sample, waiting up to `timeout` seconds; nil on timeout or EOS.
    func tryPull(timeout: Double) -> Sample? {
        guard let s = gst_app_sink_try_pull_sample(sink, ClockTime(seconds: timeout).raw) else { return nil }
        return Sample(owning: s)
    }

    var isEOS: Bool { gst_app_sink_is_eos(sink) != 0 }

    private final class Handlers {
        let sample: @Sendable (Sample) -> Void
        let eos: @Sendable () -> Void
        init(sample: @escaping @Sendable (Sample) -> Void, eos: @escaping @Sendable () -> Void) { self.sample = sample; self.eos = eos }
    }

    /// Calls `sample` for every new sample and `eos` at the end, on the streaming thread.
    func setHandlers(sample: @escaping @Sendable (Sample) -> Void, eos: @escaping @Sendable () -> Void) {
        var callbacks = GstAppSinkCallbacks()
        callbacks.new_sample = { sink, data in
            guard let sink, let data else { return GST_FLOW_ERROR }
            let handlers = Unmanaged<Handlers>.fromOpaque(data).takeUnretainedValue()
            if let s = gst_app_sink_pull_sample(sink) { handlers.sample(Sample(owning: s)) }
            return GST_FLOW_OK
        }
        callbacks.eos = { _, data in
            guard let data else { return }
            Unmanaged<Handlers>.fromOpaque(data).takeUnretainedValue().eos()
        }
        let box = Unmanaged.passRetained(Handlers(sample: sample, eos: eos)).toOpaque()
        gst_app_sink_set_callbacks(sink, &callbacks, box) { data in
            if let data { Unmanaged<Handlers>.fromOpaque(data).release() }
        }
    }
}

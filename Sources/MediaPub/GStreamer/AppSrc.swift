import CGStreamer
import CGStreamerShim
import Foundation

/// An appsrc the caller pushes buffers into.
/// @unchecked Sendable: wraps a GstAppSrc (thread-safe in C); no Swift state.
final class AppSrc: Element, @unchecked Sendable {
    private var src: UnsafeMutablePointer<GstAppSrc> { cshim_as_appsrc(raw) }

    @discardableResult
    func push(_ buffer: Buffer) -> Bool {
        // push_buffer takes a reference of its own.
        gst_app_src_push_buffer(src, cshim_buffer_ref(buffer.raw)) == GST_FLOW_OK
    }

    @discardableResult
    func push(sample: Sample) -> Bool {
        gst_app_src_push_sample(src, sample.raw) == GST_FLOW_OK
    }

    func endOfStream() { _ = gst_app_src_end_of_stream(src) }

    /// The bytes pushed and not yet taken downstream.
    var queuedBytes: UInt64 { UInt64(gst_app_src_get_current_level_bytes(src)) }

    /// Asks the encoder downstream for a keyframe at the first picture whose running
    /// time is `at` or later (a serialized force-key-unit event, sent before that picture).
    func requestKeyframe(at time: ClockTime) {
        let t = GstClockTime(time.nanoseconds)
        guard let event = gst_video_event_new_downstream_force_key_unit(t, t, t, 1, 0) else { return }
        _ = gst_element_send_event(raw, event)
    }

    private final class Feed {
        let data: Data
        var offset = 0
        init(_ data: Data) { self.data = data }
    }

    /// Serves `data` as a random-access byte stream (a file in memory): the
    /// appsrc asks for bytes and seeks through callbacks on its streaming thread.
    func serve(_ data: Data) {
        gst_app_src_set_stream_type(src, GST_APP_STREAM_TYPE_RANDOM_ACCESS)
        gst_app_src_set_size(src, gint64(data.count))
        var callbacks = GstAppSrcCallbacks()
        callbacks.need_data = { src, length, context in
            guard let src, let context else { return }
            let feed = Unmanaged<Feed>.fromOpaque(context).takeUnretainedValue()
            guard feed.offset < feed.data.count else { _ = gst_app_src_end_of_stream(src); return }
            let n = min(Int(length == 0 ? 65536 : length), feed.data.count - feed.offset)
            let buffer = feed.data.withUnsafeBytes { bytes in
                Buffer(copying: UnsafeRawBufferPointer(rebasing: bytes[feed.offset..<(feed.offset + n)]))
            }
            cshim_buffer_set_offset(buffer.raw, guint64(feed.offset))
            feed.offset += n
            _ = gst_app_src_push_buffer(src, cshim_buffer_ref(buffer.raw))
        }
        callbacks.seek_data = { _, offset, context in
            guard let context else { return 0 }
            let feed = Unmanaged<Feed>.fromOpaque(context).takeUnretainedValue()
            guard offset <= UInt64(feed.data.count) else { return 0 }
            feed.offset = Int(offset)
            return 1
        }
        let box = Unmanaged.passRetained(Feed(data)).toOpaque()
        gst_app_src_set_callbacks(src, &callbacks, box) { context in
            if let context { Unmanaged<Feed>.fromOpaque(context).release() }
        }
    }
}

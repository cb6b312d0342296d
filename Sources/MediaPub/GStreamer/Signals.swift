import CGStreamer
import CGStreamerShim
import Foundation
import Synchronization

/// The handlers `Signals` connected on one object: `disconnect()` removes them (their
/// boxes are released then). Holds a reference to the object until it is dropped, so
/// that a disconnect never reaches a finalized object; dropped without a disconnect,
/// the handlers stay as long as the object.
final class SignalHandler: @unchecked Sendable {
    private let instance: UnsafeMutableRawPointer
    private let ids: [gulong]
    private let disconnected = Atomic<Bool>(false)

    init(_ instance: UnsafeMutableRawPointer, ids: [gulong]) {
        _ = g_object_ref(instance)
        self.instance = instance
        self.ids = ids.filter { $0 != 0 }
    }

    deinit { g_object_unref(instance) }

    /// Removes the handlers, once (again: nothing).
    func disconnect() {
        guard !disconnected.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for id in ids { g_signal_handler_disconnect(instance, id) }
    }

    /// Whether GLib still has any of them connected.
    var isConnected: Bool { ids.contains { g_signal_handler_is_connected(instance, $0) != 0 } }
}

/// The one place where GObject signals reach Swift: each handler is boxed,
/// passed to C as an Unmanaged pointer, and released by the closure's destroy notify.
/// Each connection returns its `SignalHandler`, which can disconnect it.
enum Signals {
    private final class PadHandler {
        let body: @Sendable (Pad) -> Void
        init(_ body: @escaping @Sendable (Pad) -> Void) { self.body = body }
    }

    private static let padAdded: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GstPad>?, UnsafeMutableRawPointer?) -> Void = { _, pad, data in
        guard let pad, let data else { return }
        Unmanaged<PadHandler>.fromOpaque(data).takeUnretainedValue().body(Pad(borrowing: pad))
    }

    private static let release: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GClosure>?) -> Void = { data, _ in
        guard let data else { return }
        Unmanaged<PadHandler>.fromOpaque(data).release()
    }

    private final class ElementHandler {
        let body: @Sendable (Element) -> Void
        init(_ body: @escaping @Sendable (Element) -> Void) { self.body = body }
    }

    private static let deepElementAdded: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutablePointer<GstElement>?, UnsafeMutableRawPointer?) -> Void = { _, _, element, data in
        guard let element, let data else { return }
        Unmanaged<ElementHandler>.fromOpaque(data).takeUnretainedValue().body(Element(borrowing: element))
    }

    private static let releaseElementHandler: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GClosure>?) -> Void = { data, _ in
        guard let data else { return }
        Unmanaged<ElementHandler>.fromOpaque(data).release()
    }

    /// Calls `body` for every element added anywhere inside the bin (decodebin's
    /// decoders among them), on the thread that adds it, before it starts.
    @discardableResult
    static func onDeepElementAdded(_ bin: Element, _ body: @escaping @Sendable (Element) -> Void) -> SignalHandler {
        connect(UnsafeMutableRawPointer(bin.raw), "deep-element-added", unsafeBitCast(deepElementAdded, to: GCallback.self),
                Unmanaged.passRetained(ElementHandler(body)).toOpaque(), releaseElementHandler)
    }

    /// g_signal_connect, and the handler's id wrapped to disconnect it.
    private static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, _ handler: GCallback,
                                _ box: UnsafeMutableRawPointer, _ release: GClosureNotify) -> SignalHandler {
        SignalHandler(instance, ids: [cshim_signal_connect(instance, signal, handler, box, release)])
    }

    private static let sourceSetup: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GstElement>?, UnsafeMutableRawPointer?) -> Void = { _, element, data in
        guard let element, let data else { return }
        Unmanaged<ElementHandler>.fromOpaque(data).takeUnretainedValue().body(Element(borrowing: element))
    }

    /// Calls `body` with the source element uridecodebin made (souphttpsrc, filesrc…),
    /// before it starts, so its properties can be set.
    @discardableResult
    static func onSourceSetup(_ bin: Element, _ body: @escaping @Sendable (Element) -> Void) -> SignalHandler {
        onSourceSetup(object: UnsafeMutableRawPointer(bin.raw), body)
    }

    /// The same for any object with a `source-setup` signal (GstDiscoverer's).
    @discardableResult
    static func onSourceSetup(object: UnsafeMutableRawPointer, _ body: @escaping @Sendable (Element) -> Void) -> SignalHandler {
        connect(object, "source-setup", unsafeBitCast(sourceSetup, to: GCallback.self),
                Unmanaged.passRetained(ElementHandler(body)).toOpaque(), releaseElementHandler)
    }

    private final class LocationHandler {
        let body: @Sendable (Int, ClockTime?) -> String
        init(_ body: @escaping @Sendable (Int, ClockTime?) -> String) { self.body = body }
    }

    private static let formatLocation: @convention(c) (UnsafeMutableRawPointer?, guint, OpaquePointer?, UnsafeMutableRawPointer?) -> UnsafeMutablePointer<gchar>? = { _, fragment, sample, data in
        guard let data else { return nil }
        let pts = sample.flatMap { gst_sample_get_buffer($0) }.flatMap { Buffer(borrowing: $0).pts }
        let path = Unmanaged<LocationHandler>.fromOpaque(data).takeUnretainedValue().body(Int(fragment), pts)
        return g_strdup(path)   // splitmuxsink frees it
    }

    private static let releaseLocationHandler: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GClosure>?) -> Void = { data, _ in
        guard let data else { return }
        Unmanaged<LocationHandler>.fromOpaque(data).release()
    }

    /// splitmuxsink's `format-location-full`: `body` gives the path of file `fragment`
    /// (0, 1, …), told the timestamp of its first buffer; called on a streaming thread.
    @discardableResult
    static func onFormatLocation(_ splitmux: Element, _ body: @escaping @Sendable (Int, ClockTime?) -> String) -> SignalHandler {
        connect(UnsafeMutableRawPointer(splitmux.raw), "format-location-full", unsafeBitCast(formatLocation, to: GCallback.self),
                Unmanaged.passRetained(LocationHandler(body)).toOpaque(), releaseLocationHandler)
    }

    private final class CallerHandler {
        let body: @Sendable (Bool) -> Void
        init(_ body: @escaping @Sendable (Bool) -> Void) { self.body = body }
    }

    private typealias CallerCallback = @convention(c) (UnsafeMutableRawPointer?, gint, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void

    private static let callerAdded: CallerCallback = { _, _, _, data in
        guard let data else { return }
        Unmanaged<CallerHandler>.fromOpaque(data).takeUnretainedValue().body(true)
    }

    private static let callerRemoved: CallerCallback = { _, _, _, data in
        guard let data else { return }
        Unmanaged<CallerHandler>.fromOpaque(data).takeUnretainedValue().body(false)
    }

    private static let releaseCallerHandler: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GClosure>?) -> Void = { data, _ in
        guard let data else { return }
        Unmanaged<CallerHandler>.fromOpaque(data).release()
    }

    /// An srtsink listening for callers: `body(true)` when one connects (its handshake
    /// done), `body(false)` when one goes (closed, or lost), on srtsink's own thread.
    @discardableResult
    static func onSRTCaller(_ srtsink: Element, _ body: @escaping @Sendable (Bool) -> Void) -> SignalHandler {
        let instance = UnsafeMutableRawPointer(srtsink.raw)
        let signals: [(String, CallerCallback)] = [("caller-added", callerAdded), ("caller-removed", callerRemoved)]
        let ids = signals.map { signal, handler in
            cshim_signal_connect(instance, signal, unsafeBitCast(handler, to: GCallback.self),
                                 Unmanaged.passRetained(CallerHandler(body)).toOpaque(), releaseCallerHandler)
        }
        return SignalHandler(instance, ids: ids)
    }

    /// Calls `body` on the streaming thread for each pad the element adds.
    @discardableResult
    static func onPadAdded(_ element: Element, _ body: @escaping @Sendable (Pad) -> Void) -> SignalHandler {
        connect(UnsafeMutableRawPointer(element.raw), "pad-added", unsafeBitCast(padAdded, to: GCallback.self),
                Unmanaged.passRetained(PadHandler(body)).toOpaque(), release)
    }
}

/// A probe `Probes` added to a pad: `remove()` takes it off (its box is released then).
/// Holds the pad until it is dropped; dropped without a removal, the probe stays as long
/// as the pad.
final class PadProbe: @unchecked Sendable {
    let pad: Pad
    private let id: gulong
    private let removed = Atomic<Bool>(false)

    init(_ pad: Pad, id: gulong) {
        self.pad = pad
        self.id = id
    }

    /// Takes the probe off, once (again: nothing).
    func remove() {
        guard id != 0, !removed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        gst_pad_remove_probe(pad.raw, id)
    }
}

/// Pad probes, with the same boxing as signals. Each returns its `PadProbe`, which can remove it.
enum Probes {
    private final class Handler {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Calls `body` on the streaming thread for each buffer (or buffer list) that
    /// passes `pad`. The probe stays until removed; it only watches.
    @discardableResult
    static func onData(_ pad: Pad, _ body: @escaping @Sendable () -> Void) -> PadProbe {
        let box = Unmanaged.passRetained(Handler(body)).toOpaque()
        let mask = GstPadProbeType(GST_PAD_PROBE_TYPE_BUFFER.rawValue | GST_PAD_PROBE_TYPE_BUFFER_LIST.rawValue)
        return PadProbe(pad, id: gst_pad_add_probe(pad.raw, mask, { _, _, data in
            if let data { Unmanaged<Handler>.fromOpaque(data).takeUnretainedValue().body() }
            return GST_PAD_PROBE_OK
        }, box) { data in
            if let data { Unmanaged<Handler>.fromOpaque(data).release() }
        })
    }

    /// Calls `body` with each buffer's PTS (ns; nil: none) on the streaming thread, before
    /// the element behind `pad` takes the buffer. The probe stays until removed; it only watches.
    @discardableResult
    static func onBuffer(_ pad: Pad, _ body: @escaping @Sendable (UInt64?) -> Void) -> PadProbe {
        let box = Unmanaged.passRetained(BufferHandler(body)).toOpaque()
        return PadProbe(pad, id: gst_pad_add_probe(pad.raw, GST_PAD_PROBE_TYPE_BUFFER, { _, info, data in
            if let info, let data {
                let pts = UInt64(cshim_probe_buffer_pts(info))
                Unmanaged<BufferHandler>.fromOpaque(data).takeUnretainedValue().body(pts == UInt64.max ? nil : pts)
            }
            return GST_PAD_PROBE_OK
        }, box) { data in
            if let data { Unmanaged<BufferHandler>.fromOpaque(data).release() }
        })
    }

    private final class BufferHandler {
        let body: @Sendable (UInt64?) -> Void
        init(_ body: @escaping @Sendable (UInt64?) -> Void) { self.body = body }
    }

    /// As `onData`, with the bytes of what passes (a buffer, or a buffer list's total).
    @discardableResult
    static func onBytes(_ pad: Pad, _ body: @escaping @Sendable (Int) -> Void) -> PadProbe {
        let box = Unmanaged.passRetained(ByteHandler(body)).toOpaque()
        let mask = GstPadProbeType(GST_PAD_PROBE_TYPE_BUFFER.rawValue | GST_PAD_PROBE_TYPE_BUFFER_LIST.rawValue)
        return PadProbe(pad, id: gst_pad_add_probe(pad.raw, mask, { _, info, data in
            guard let info, let data else { return GST_PAD_PROBE_OK }
            var bytes = 0
            if let buffer = gst_pad_probe_info_get_buffer(info) {
                bytes = Int(gst_buffer_get_size(buffer))
            } else if let list = gst_pad_probe_info_get_buffer_list(info) {
                bytes = Int(gst_buffer_list_calculate_size(list))
            }
            Unmanaged<ByteHandler>.fromOpaque(data).takeUnretainedValue().body(bytes)
            return GST_PAD_PROBE_OK
        }, box) { data in
            if let data { Unmanaged<ByteHandler>.fromOpaque(data).release() }
        })
    }

    private final class ByteHandler {
        let body: @Sendable (Int) -> Void
        init(_ body: @escaping @Sendable (Int) -> Void) { self.body = body }
    }

    /// Calls `body` on the streaming thread when EOS reaches `pad` (before the
    /// element behind it handles it). The probe stays until removed; it only passes events through.
    @discardableResult
    static func onEndOfStream(_ pad: Pad, _ body: @escaping @Sendable () -> Void) -> PadProbe {
        let box = Unmanaged.passRetained(Handler(body)).toOpaque()
        return PadProbe(pad, id: gst_pad_add_probe(pad.raw, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, { _, info, data in
            if let info, let data, cshim_probe_event_type(info) == GST_EVENT_EOS {
                Unmanaged<Handler>.fromOpaque(data).takeUnretainedValue().body()
            }
            return GST_PAD_PROBE_OK
        }, box) { data in
            if let data { Unmanaged<Handler>.fromOpaque(data).release() }
        })
    }
}

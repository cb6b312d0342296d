import CGStreamer
import CGStreamerShim
import Foundation

/// Owns exactly one reference to a GstElement and drops it in deinit.
/// @unchecked Sendable: wraps a GstElement, which is thread-safe in C; no Swift state.
public class Element: @unchecked Sendable {
    let raw: UnsafeMutablePointer<GstElement>

    /// Takes over a reference the caller owns (a full, or sunk floating, reference).
    init(owning raw: UnsafeMutablePointer<GstElement>) {
        self.raw = raw
    }

    /// Takes a reference of its own to an element someone else holds (a signal's argument).
    convenience init(borrowing raw: UnsafeMutablePointer<GstElement>) {
        gst_object_ref(UnsafeMutableRawPointer(raw))
        self.init(owning: raw)
    }

    /// A new element from an installed factory, or nil when there is none.
    convenience init?(factory: String) {
        GStreamer.initialize()
        guard let made = gst_element_factory_make(factory, nil) else { return nil }
        gst_object_ref_sink(UnsafeMutableRawPointer(made))
        self.init(owning: made)
    }

    deinit {
        gst_object_unref(UnsafeMutableRawPointer(raw))
    }

    /// The names (nicks) an enum property accepts, in the order of their numbers.
    func enumNicks(_ property: String) -> [String] {
        var nicks: [String] = []
        while let nick = cshim_enum_property_nick(raw, property, UInt32(nicks.count)) {
            nicks.append(String(cString: nick))
        }
        return nicks
    }

    func set(_ property: String, double value: Double) { cshim_object_set_double(raw, property, value) }

    func set(_ property: String, string value: String) {
        var gvalue = GValue()
        g_value_init(&gvalue, GType(16 << 2))  // G_TYPE_STRING
        g_value_set_string(&gvalue, value)
        g_object_set_property(UnsafeMutablePointer<GObject>(OpaquePointer(raw)), property, &gvalue)
        g_value_unset(&gvalue)
    }

    func set(_ property: String, uint value: UInt32) {
        var gvalue = GValue()
        g_value_init(&gvalue, GType(7 << 2))  // G_TYPE_UINT
        g_value_set_uint(&gvalue, value)
        g_object_set_property(UnsafeMutablePointer<GObject>(OpaquePointer(raw)), property, &gvalue)
        g_value_unset(&gvalue)
    }

    func set(_ property: String, bool value: Bool) {
        var gvalue = GValue()
        g_value_init(&gvalue, GType(5 << 2))  // G_TYPE_BOOLEAN
        g_value_set_boolean(&gvalue, value ? 1 : 0)
        g_object_set_property(UnsafeMutablePointer<GObject>(OpaquePointer(raw)), property, &gvalue)
        g_value_unset(&gvalue)
    }

    /// Asks for `state`; throws when GStreamer refuses (the reason is on the bus).
    @discardableResult
    func setState(_ state: State) throws -> StateChange {
        guard let change = StateChange(gst_element_set_state(raw, state.raw)) else { throw StateChangeError(target: state) }
        return change
    }

    /// Waits up to `timeout` for a pending state change to finish; throws when it failed.
    func waitForState(timeout: ClockTime) throws -> StateChange {
        var current = GST_STATE_NULL, pending = GST_STATE_NULL
        let result = gst_element_get_state(raw, &current, &pending, timeout.raw)
        guard let change = StateChange(result) else { throw StateChangeError(target: State(pending) ?? .paused) }
        return change
    }

    /// Sets an object property (souphttpsrc's "tls-database"); false when there is no
    /// such object-typed property or `value` is not of its type.
    @discardableResult
    func set(_ property: String, object value: UnsafeMutableRawPointer) -> Bool {
        cshim_object_set_object(raw, property, value) != 0
    }

    /// True when the element has an object-typed property `property` (souphttpsrc's "tls-database").
    func hasObjectProperty(_ property: String) -> Bool { cshim_object_has_object_property(raw, property) != 0 }

    /// On an MP3 decoder: cuts the encoder delay and padding its LAME tag gives
    /// (see cshim_mp3_gapless); false when the probes could not be installed.
    @discardableResult
    func trimMP3Padding() -> Bool { cshim_mp3_gapless(raw) != 0 }

    /// The name of the factory that made this element (avdec_h264, souphttpsrc, …).
    var factoryName: String? { cshim_element_factory_name(raw).map { String(cString: $0) } }

    /// Sets an int (or enum, by number) property; false when there is no such property.
    @discardableResult
    func set(_ property: String, int value: Int32) -> Bool { cshim_object_set_int(raw, property, value) != 0 }

    func staticPad(_ name: String) -> Pad? {
        guard let pad = gst_element_get_static_pad(raw, name) else { return nil }
        return Pad(owning: pad)
    }
}

/// Owns one reference to a GstPad.
/// @unchecked Sendable: wraps a GstPad (thread-safe in C); no Swift state.
final class Pad: @unchecked Sendable {
    let raw: UnsafeMutablePointer<GstPad>
    init(owning raw: UnsafeMutablePointer<GstPad>) { self.raw = raw }
    init(borrowing raw: UnsafeMutablePointer<GstPad>) {
        gst_object_ref(UnsafeMutableRawPointer(raw))
        self.raw = raw
    }
    deinit { gst_object_unref(UnsafeMutableRawPointer(raw)) }

    func link(to sink: Pad) -> Bool { gst_pad_link(raw, sink.raw) == GST_PAD_LINK_OK }

    /// The media type of the pad's current (or queried) caps: "audio/x-raw", "video/x-raw", …
    var mediaType: String? {
        let caps = gst_pad_get_current_caps(raw) ?? gst_pad_query_caps(raw, nil)
        guard let caps else { return nil }
        defer { cshim_caps_unref(caps) }
        guard gst_caps_get_size(caps) > 0, let s = gst_caps_get_structure(caps, 0) else { return nil }
        return String(cString: gst_structure_get_name(s))
    }
}

import CGStreamer
import CGStreamerShim

/// Owns one reference to a GstCaps.
/// @unchecked Sendable: wraps a GstCaps (immutable once shared); no Swift state.
final class Caps: @unchecked Sendable {
    let raw: UnsafeMutablePointer<GstCaps>

    init(borrowing raw: UnsafeMutablePointer<GstCaps>) { self.raw = cshim_caps_ref(raw) }
    deinit { cshim_caps_unref(raw) }
}

extension Caps {
    /// A copy of the first structure (`video/x-h264, profile=…`); nil for empty caps.
    var firstStructure: Structure? {
        guard gst_caps_get_size(raw) > 0, let s = gst_caps_get_structure(raw, 0), let copy = gst_structure_copy(s) else { return nil }
        return Structure(owning: copy)
    }
}

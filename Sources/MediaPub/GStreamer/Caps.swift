import CGStreamer
import CShim

/// Owns one reference to a GstCaps.
/// @unchecked Sendable: wraps a GstCaps (immutable once shared); no Swift state.
final class Caps: @unchecked Sendable {
    let raw: UnsafeMutablePointer<GstCaps>

    init(borrowing raw: UnsafeMutablePointer<GstCaps>) { self.raw = cshim_caps_ref(raw) }
    deinit { cshim_caps_unref(raw) }
}

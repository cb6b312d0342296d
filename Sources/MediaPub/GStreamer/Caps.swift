import CGStreamer
import CShim

/// Owns one reference to a GstCaps.
final class Caps: @unchecked Sendable {
    let raw: UnsafeMutablePointer<GstCaps>

    init(borrowing raw: UnsafeMutablePointer<GstCaps>) { self.raw = cshim_caps_ref(raw) }
    deinit { cshim_caps_unref(raw) }
}

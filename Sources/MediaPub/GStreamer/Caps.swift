import CGStreamer
import CShim

/// Owns one reference to a GstCaps.
final class Caps: @unchecked Sendable {
    let raw: UnsafeMutablePointer<GstCaps>

    init?(_ description: String) {
        guard let caps = gst_caps_from_string(description) else { return nil }
        raw = caps
    }

    init(owning raw: UnsafeMutablePointer<GstCaps>) { self.raw = raw }
    init(borrowing raw: UnsafeMutablePointer<GstCaps>) { self.raw = cshim_caps_ref(raw) }
    deinit { cshim_caps_unref(raw) }

    var description: String {
        guard let text = gst_caps_to_string(raw) else { return "" }
        defer { g_free(text) }
        return String(cString: text)
    }

    private var structure: UnsafeMutablePointer<GstStructure>? {
        gst_caps_get_size(raw) > 0 ? gst_caps_get_structure(raw, 0) : nil
    }

    var mediaType: String {
        guard let s = structure else { return "" }
        return String(cString: gst_structure_get_name(s))
    }

    func int(_ field: String) -> Int? {
        guard let s = structure else { return nil }
        var value: gint = 0
        return gst_structure_get_int(s, field, &value) != 0 ? Int(value) : nil
    }
}

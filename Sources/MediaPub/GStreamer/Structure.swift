import CGStreamer
import CGStreamerShim

/// Owns one GstStructure (a copy GStreamer handed over) and frees it in deinit:
/// typed reads by field name, nil when the field is missing or of another type.
final class Structure {
    private let raw: UnsafeMutablePointer<GstStructure>

    init(owning raw: UnsafeMutablePointer<GstStructure>) { self.raw = raw }

    deinit { gst_structure_free(raw) }

    /// A gint64 or gint field.
    func int(_ field: String) -> Int? {
        var i64: gint64 = 0
        if gst_structure_get_int64(raw, field, &i64) != 0 { return Int(i64) }
        var i32: gint = 0
        if gst_structure_get_int(raw, field, &i32) != 0 { return Int(i32) }
        return nil
    }

    /// A guint64 field.
    func uint64(_ field: String) -> UInt64? {
        var value: guint64 = 0
        return gst_structure_get_uint64(raw, field, &value) != 0 ? UInt64(value) : nil
    }

    /// A gdouble field.
    func double(_ field: String) -> Double? {
        var value: gdouble = 0
        return gst_structure_get_double(raw, field, &value) != 0 ? Double(value) : nil
    }

    /// A string field.
    func string(_ field: String) -> String? {
        gst_structure_get_string(raw, field).map { String(cString: $0) }
    }
}

extension Element {
    /// The GstStructure property `property` (srtsink's and rtmp2sink's `stats`), or nil
    /// when the element has no such property or it is unset.
    func structure(_ property: String) -> Structure? {
        cshim_object_get_structure(UnsafeMutableRawPointer(raw), property).map(Structure.init(owning:))
    }
}

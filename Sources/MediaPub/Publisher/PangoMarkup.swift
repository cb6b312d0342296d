import CGStreamer
import Foundation

/// Whether a text is Pango markup that textoverlay can draw (docs/presets.md, overlays,
/// `markup: true`): well-formed (GLib's markup parser, which Pango's is built on) and only
/// Pango's own elements. textoverlay draws nothing at all for a text that is not.
enum PangoMarkup {
    static let elements: Set<String> = ["markup", "b", "big", "i", "s", "sub", "sup", "small", "tt", "u", "span"]

    /// Why `text` is not drawable markup (GLib's words); nil when it is.
    static func refusal(_ text: String) -> String? {
        var parser = GMarkupParser()
        parser.start_element = { _, name, _, _, _, error in
            guard let name, !PangoMarkup.elements.contains(String(cString: name)) else { return }
            g_set_error_literal(error, g_markup_error_quark(), Int32(G_MARKUP_ERROR_UNKNOWN_ELEMENT.rawValue),
                                "<\(String(cString: name))> is no Pango element (b, big, i, s, sub, sup, small, tt, u, span)")
        }
        guard let context = g_markup_parse_context_new(&parser, GMarkupParseFlags(rawValue: 0), nil, nil) else { return "cannot be read" }
        defer { g_markup_parse_context_free(context) }
        var error: UnsafeMutablePointer<GError>?
        let whole = "<markup>" + text + "</markup>"
        let ok = g_markup_parse_context_parse(context, whole, -1, &error) != 0 && g_markup_parse_context_end_parse(context, &error) != 0
        guard !ok else { return nil }
        let why = error.map { String(cString: $0.pointee.message) } ?? "not well-formed"
        if let error { g_error_free(error) }
        return why
    }
}

import CGStreamer
import CGStreamerShim

/// A message from a pipeline's bus, in Swift terms.
enum BusMessage: Sendable {
    case endOfStream
    case error(ErrorMessage)
    case warning(ErrorMessage)
    /// A queue's fill level while it buffers (0...100).
    case buffering(percent: Int)
    case tags(title: String?, artist: String?, album: String?)
    /// splitmuxsink finished one of its files (closed it); nil when it names none
    /// (hlssink2's, which has written the playlist by then).
    case fragmentClosed(location: String?)

    /// Reads `message` (borrowed); nil for a type that is not watched.
    init?(_ message: UnsafeMutablePointer<GstMessage>) {
        switch cshim_message_type(message) {
        case GST_MESSAGE_EOS:
            self = .endOfStream
        case GST_MESSAGE_ERROR:
            self = .error(BusMessage.errorMessage(message, warning: false))
        case GST_MESSAGE_WARNING:
            self = .warning(BusMessage.errorMessage(message, warning: true))
        case GST_MESSAGE_BUFFERING:
            var percent: gint = 0
            gst_message_parse_buffering(message, &percent)
            self = .buffering(percent: Int(percent))
        case GST_MESSAGE_TAG:
            var tags: UnsafeMutablePointer<GstTagList>? = nil
            gst_message_parse_tag(message, &tags)
            defer { if let tags { gst_tag_list_unref(tags) } }
            func tag(_ name: String) -> String? {
                guard let value = cshim_tag_list_get_string(tags, name) else { return nil }
                defer { g_free(value) }
                return String(cString: value)
            }
            self = .tags(title: tag("title"), artist: tag("artist"), album: tag("album"))
        case GST_MESSAGE_ELEMENT:
            guard let structure = gst_message_get_structure(message),
                  gst_structure_has_name(structure, "splitmuxsink-fragment-closed") != 0 else { return nil }
            self = .fragmentClosed(location: gst_structure_get_string(structure, "location").map { String(cString: $0) })
        default:
            return nil
        }
    }

    private static func errorMessage(_ message: UnsafeMutablePointer<GstMessage>, warning: Bool) -> ErrorMessage {
        var error: UnsafeMutablePointer<GError>? = nil
        var debug: UnsafeMutablePointer<gchar>? = nil
        var details: UnsafePointer<GstStructure>? = nil
        if warning {
            gst_message_parse_warning(message, &error, &debug)
            gst_message_parse_warning_details(message, &details)
        } else {
            gst_message_parse_error(message, &error, &debug)
            gst_message_parse_error_details(message, &details)
        }
        let code = error.map { ErrorCode(domain: $0.pointee.domain, code: $0.pointee.code) } ?? .core(1)
        let text = GStreamerError.consume(error)
        let debugText = debug.map { String(cString: $0) }
        g_free(debug)
        var status: guint = 0
        let httpStatus = details.flatMap { gst_structure_get_uint($0, "http-status-code", &status) != 0 ? Int(status) : nil }
        return ErrorMessage(source: sourceName(message), message: text, code: code, debug: debugText, httpStatus: httpStatus)
    }

    /// The name of the element that posted `message`.
    private static func sourceName(_ message: UnsafeMutablePointer<GstMessage>) -> String {
        guard let src = cshim_message_src(message), let name = gst_object_get_name(src) else { return "?" }
        defer { g_free(name) }
        return String(cString: name)
    }
}

import CGStreamer
import CGStreamerShim

/// A GError's domain and code as GStreamer's error domains name them
/// (GST_RESOURCE_ERROR_NOT_FOUND is `.resource(.notFound)`).
enum ErrorCode: Equatable, Sendable {
    case core(Int)
    case library(Int)
    case resource(ResourceError)
    case stream(StreamError)
    /// A domain of some other library (GIO, a plugin's own), by name.
    case other(domain: String, code: Int)

    /// A GST_RESOURCE_ERROR_* of any kind.
    var isResource: Bool {
        if case .resource = self { return true }
        return false
    }

    /// GST_RESOURCE_ERROR_*: opening, reading and writing what an element reads or writes.
    enum ResourceError: Equatable, Sendable {
        case failed, tooLazy, notFound, busy, openRead, openWrite, openReadWrite, close, read, write, seek, sync,
             settings, noSpaceLeft, notAuthorized, unknown(Int)
    }

    /// GST_STREAM_ERROR_*: what the data itself is.
    enum StreamError: Equatable, Sendable {
        case failed, tooLazy, notImplemented, typeNotFound, wrongType, codecNotFound, decode, encode, demux, mux,
             format, decrypt, decryptNoKey, unknown(Int)
    }

    init(domain: GQuark, code: Int32) {
        if domain == gst_resource_error_quark() {
            self = .resource(ErrorCode.resource(code))
        } else if domain == gst_stream_error_quark() {
            self = .stream(ErrorCode.stream(code))
        } else if domain == gst_core_error_quark() {
            self = .core(Int(code))
        } else if domain == gst_library_error_quark() {
            self = .library(Int(code))
        } else {
            self = .other(domain: g_quark_to_string(domain).map { String(cString: $0) } ?? "?", code: Int(code))
        }
    }

    private static func resource(_ code: Int32) -> ResourceError {
        let table: [(GstResourceError, ResourceError)] = [
            (GST_RESOURCE_ERROR_FAILED, .failed), (GST_RESOURCE_ERROR_TOO_LAZY, .tooLazy),
            (GST_RESOURCE_ERROR_NOT_FOUND, .notFound), (GST_RESOURCE_ERROR_BUSY, .busy),
            (GST_RESOURCE_ERROR_OPEN_READ, .openRead), (GST_RESOURCE_ERROR_OPEN_WRITE, .openWrite),
            (GST_RESOURCE_ERROR_OPEN_READ_WRITE, .openReadWrite), (GST_RESOURCE_ERROR_CLOSE, .close),
            (GST_RESOURCE_ERROR_READ, .read), (GST_RESOURCE_ERROR_WRITE, .write), (GST_RESOURCE_ERROR_SEEK, .seek),
            (GST_RESOURCE_ERROR_SYNC, .sync), (GST_RESOURCE_ERROR_SETTINGS, .settings),
            (GST_RESOURCE_ERROR_NO_SPACE_LEFT, .noSpaceLeft), (GST_RESOURCE_ERROR_NOT_AUTHORIZED, .notAuthorized),
        ]
        return table.first { Int32($0.0.rawValue) == code }?.1 ?? .unknown(Int(code))
    }

    private static func stream(_ code: Int32) -> StreamError {
        let table: [(GstStreamError, StreamError)] = [
            (GST_STREAM_ERROR_FAILED, .failed), (GST_STREAM_ERROR_TOO_LAZY, .tooLazy),
            (GST_STREAM_ERROR_NOT_IMPLEMENTED, .notImplemented), (GST_STREAM_ERROR_TYPE_NOT_FOUND, .typeNotFound),
            (GST_STREAM_ERROR_WRONG_TYPE, .wrongType), (GST_STREAM_ERROR_CODEC_NOT_FOUND, .codecNotFound),
            (GST_STREAM_ERROR_DECODE, .decode), (GST_STREAM_ERROR_ENCODE, .encode), (GST_STREAM_ERROR_DEMUX, .demux),
            (GST_STREAM_ERROR_MUX, .mux), (GST_STREAM_ERROR_FORMAT, .format), (GST_STREAM_ERROR_DECRYPT, .decrypt),
            (GST_STREAM_ERROR_DECRYPT_NOKEY, .decryptNoKey),
        ]
        return table.first { Int32($0.0.rawValue) == code }?.1 ?? .unknown(Int(code))
    }
}

/// An ERROR or WARNING message of a bus: who posted it, GStreamer's words, and
/// what broke as domain and code (plus the HTTP status an HTTP source gives).
struct ErrorMessage: Sendable, Equatable {
    /// The name of the element that posted it.
    var source: String
    /// The GError's message (translated text: for people, never for deciding).
    var message: String
    var code: ErrorCode
    /// The element's debug details, if any.
    var debug: String?
    /// The HTTP status the element gave in the message's details (souphttpsrc's "http-status-code").
    var httpStatus: Int?

    /// `message` with the errno text the element gave in its debug details, if any
    /// ("Could not open file … for writing: No such file or directory").
    var messageWithSystemError: String {
        guard let details = debug, let range = details.range(of: "system error: "),
              let reason = details[range.upperBound...].split(separator: "\n").first else { return message }
        return (message.hasSuffix(".") ? String(message.dropLast()) : message) + ": " + reason
    }
}

import CSoup

/// One answer of the HTTP server (docs/http.md): its status, type and body, and the
/// headers every response carries.
struct HTTPReply {
    var status: UInt32
    var type: String
    var body: [UInt8]
    var headers: [(name: String, value: String)] = []

    init(_ status: UInt32, type: String, body: String, headers: [(name: String, value: String)] = []) {
        self.status = status
        self.type = type
        self.body = Array(body.utf8)
        self.headers = headers
    }

    init(_ status: UInt32, type: String, bytes: [UInt8]) {
        self.status = status
        self.type = type
        self.body = bytes
    }

    /// `value` as JSON (the one shape mediapub writes: `JSONLine`), with a newline.
    static func json<T: Encodable>(_ status: UInt32, _ value: T) -> HTTPReply {
        HTTPReply(status, type: "application/json", body: (JSONLine.text(value) ?? "{\"ok\":false}") + "\n")
    }

    /// `{"ok":false,"error":"…"}`, as `ctl` shows an error.
    static func error(_ status: UInt32, _ message: String, headers: [(name: String, value: String)] = []) -> HTTPReply {
        var reply = json(status, ControlReply.failure(message))
        reply.headers = headers
        return reply
    }

    /// Sets the answer on `msg`. One request a connection: soup would otherwise keep a
    /// connection the client has closed (CLOSE-WAIT) open for good, one descriptor each.
    func send(_ msg: OpaquePointer) {
        soup_server_message_set_status(msg, status, nil)
        if let out = soup_server_message_get_response_headers(msg) {
            soup_message_headers_replace(out, "Connection", "close")
            soup_message_headers_replace(out, "Cache-Control", "no-store")
            for header in headers { soup_message_headers_replace(out, header.name, header.value) }
        }
        var bytes = body
        bytes.withUnsafeMutableBufferPointer { buffer in
            soup_server_message_set_response(msg, type, SOUP_MEMORY_COPY, buffer.baseAddress, gsize(buffer.count))
        }
    }

    /// The headers of every response, set as its request starts (docs/http.md).
    static func secure(_ msg: OpaquePointer) {
        guard let out = soup_server_message_get_response_headers(msg) else { return }
        soup_message_headers_replace(out, "Content-Security-Policy", "default-src 'self'")
        soup_message_headers_replace(out, "X-Content-Type-Options", "nosniff")
    }
}

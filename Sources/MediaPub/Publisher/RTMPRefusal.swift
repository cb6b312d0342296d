/// An RTMP server that refused the stream: rtmp2sink got through TCP and the
/// handshake, then the server answered the `connect` command (the application, or
/// its authentication) or the `publish` command (the stream key) with an error, or
/// closed the connection in answer to it, as nginx-rtmp does when `on_publish`
/// refuses a key. rtmp2 tells which command failed only in its (untranslated) text,
/// "Failed to connect: 'publish' cmd failed: NetStream.Publish.BadName: …", and marks
/// an authentication failure GST_RESOURCE_ERROR_NOT_AUTHORIZED.
enum RTMPRefusal {
    /// Why the server refused us, in our words with the server's own, or nil when the
    /// failure is not a refusal (no server, a dropped connection, a timeout).
    static func reason(of error: ErrorMessage) -> String? {
        let text = error.message
        if let range = text.range(of: "'publish' cmd failed: ") {
            return "the server refused the stream key (publish: \(said(text[range.upperBound...])))"
        }
        if let range = text.range(of: "'connect' cmd failed: ") {
            return "the server refused the application (connect: \(said(text[range.upperBound...])))"
        }
        if error.code == .resource(.notAuthorized) {
            return "the server refused the credentials (\(text))"
        }
        return nil
    }

    /// What an ERROR of rtmp2sink's pipeline comes to: a refusal, rtmp2sink's own connect
    /// deadline passed while `connecting` (`ConnectDeadline.sinkTimedOut`), else GStreamer's words.
    static func failure(of error: ErrorMessage, connecting: Bool) -> OutputFailure {
        if let why = reason(of: error) { return OutputFailure("rejected: \(why)", .refused) }
        if connecting, let why = ConnectDeadline.sinkTimedOut(error.message) { return OutputFailure(why, .connectTimeout) }
        return OutputTarget.libraryFailure(error)
    }

    /// The server's words: its status code and description, or what it did.
    private static func said(_ detail: Substring) -> String {
        detail == "connection closed remotely" ? "it closed the connection" : String(detail)
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whether an Icecast server takes a source at the mount at all, asked before each login
/// (docs/presets.md, Icecast). A server that refuses a mount before any login (Icecast
/// closes the connection without a word for a path it will not serve, another answers
/// 403 or 404) left shout2send's libshout trying again at once, some 40 times a
/// second until its own 10 s timeout, and then said only "Socket error". Asked here
/// first, without the password (as libshout's own first request is), the refusal
/// is the output's failure, in the server's words, and each retry waits the backoff.
enum IcecastMountCheck {
    enum Outcome: Equatable {
        /// Go on with the login: the server wants the password (401), took the request,
        /// or could not be asked (shout2send says why it cannot connect).
        case goOn
        /// The server refused the mount before the login: why.
        case refused(String)
    }

    /// What the server's answer to an unauthenticated `SOURCE /mount` means (`answer`:
    /// all it sent before it `closed` the connection, or before the deadline).
    static func outcome(of answer: [UInt8], closed: Bool) -> Outcome {
        guard !answer.isEmpty else {
            return closed ? .refused("the server closed the connection without answering the mount's request") : .goOn
        }
        guard let (code, words) = status(of: answer) else { return .goOn }   // not HTTP: libshout decides
        if code == 401 || (200..<300).contains(code) { return .goOn }
        return .refused("the server refused the mount before the login: " + words)
    }

    /// An HTTP answer's status code and its words: `403 Forbidden: Mountpoint in use` (the
    /// reason, and the body's first line, the server's own words); nil for no HTTP answer.
    static func status(of answer: [UInt8]) -> (code: Int, words: String)? {
        let text = String(decoding: answer, as: UTF8.self)
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        let status = lines.first.map { $0.split(separator: " ", maxSplits: 2) } ?? []
        guard status.count >= 2, status[0].hasPrefix("HTTP/"), let code = Int(status[1]) else { return nil }
        let reason = status.count > 2 ? " " + status[2].trimmingCharacters(in: .whitespaces) : ""
        // The body, after the blank line that ends the head (Icecast: "Mountpoint in use").
        let body = lines.drop { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .map { withoutTags($0).trimmingCharacters(in: .whitespaces) }
            .first { !$0.isEmpty }
        return (code, "\(code)\(reason)" + (body.map { ": " + $0.clipped(120) } ?? ""))
    }

    /// A line of an HTML body as text: what is between tags.
    private static func withoutTags(_ line: Substring) -> String {
        var text = "", inTag = false
        for c in line {
            if c == "<" { inTag = true } else if c == ">" { inTag = false } else if !inTag { text.append(c) }
        }
        return text
    }

    /// Asks `endpoint`'s server, within `deadline` (connect, request and answer together).
    static func ask(_ endpoint: IcecastEndpoint, deadline: TimeInterval) -> Outcome {
        let until = MonotonicInstant.now.addingTimeInterval(deadline)
        guard let fd = IcecastRequest.connect(endpoint, until: until) else { return .goOn }
        defer { close(fd) }
        let request = "SOURCE \(IcecastRequest.path(endpoint.mount)) HTTP/1.0\r\nHost: \(endpoint.host):\(endpoint.port)\r\n"
            + "User-Agent: mediapub\r\nContent-Type: \(endpoint.contentType)\r\nContent-Length: 0\r\n\r\n"
        guard let (answer, closed) = IcecastRequest.exchange(fd, request, until: until, headOnly: false) else { return .goOn }
        return outcome(of: answer, closed: closed)
    }
}

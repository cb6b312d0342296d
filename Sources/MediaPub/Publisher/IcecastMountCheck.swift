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
        let text = String(decoding: answer, as: UTF8.self)
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        let status = lines.first.map { $0.split(separator: " ", maxSplits: 2) } ?? []
        guard status.count >= 2, status[0].hasPrefix("HTTP/"), let code = Int(status[1]) else { return .goOn }   // not HTTP: libshout decides
        if code == 401 || (200..<300).contains(code) { return .goOn }
        let reason = status.count > 2 ? " " + status[2].trimmingCharacters(in: .whitespaces) : ""
        // The body, after the blank line that ends the head: the server's own words (Icecast: "Mountpoint in use").
        let body = lines.drop { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .map { withoutTags($0).trimmingCharacters(in: .whitespaces) }
            .first { !$0.isEmpty }
        return .refused("the server refused the mount before the login: \(code)\(reason)" + (body.map { ": " + $0.clipped(120) } ?? ""))
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
        let until = Date().addingTimeInterval(deadline)
        guard let fd = connect(endpoint, until: until) else { return .goOn }
        defer { close(fd) }
        let mount = endpoint.mount.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? endpoint.mount
        let request = "SOURCE \(mount) HTTP/1.0\r\nHost: \(endpoint.host):\(endpoint.port)\r\nUser-Agent: mediapub\r\n"
            + "Content-Type: \(endpoint.codec == .opus ? "application/ogg" : "audio/mpeg")\r\nContent-Length: 0\r\n\r\n"
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else { return .goOn }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while answer.count < 16_384 {
            let left = Int32(max(0, until.timeIntervalSinceNow * 1000))
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard left > 0, poll(&p, 1, left) == 1 else { return outcome(of: answer, closed: false) }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { return outcome(of: answer, closed: n == 0 || errno == ECONNRESET) }
            answer += buffer[0..<n]
        }
        return outcome(of: answer, closed: false)
    }

    /// A TCP connection to the server (its first address that takes one by `until`), nil when none does.
    private static func connect(_ endpoint: IcecastEndpoint, until: Date) -> Int32? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(endpoint.host, String(endpoint.port), &hints, &found) == 0 else { return nil }
        defer { freeaddrinfo(found) }
        var next = found
        while let info = next {
            next = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            guard fd >= 0 else { continue }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            let started = Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 || errno == EINPROGRESS
            if started, poll(&p, 1, Int32(max(0, until.timeIntervalSinceNow * 1000))) == 1,
               getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0, error == 0 {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
                return fd
            }
            close(fd)
        }
        return nil
    }
}

/// An Icecast server refused the mount before the login (`IcecastMountCheck`): why, in its words.
struct MountRefused: Error {
    let why: String
}

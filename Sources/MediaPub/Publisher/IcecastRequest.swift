import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One HTTP exchange of ours with an Icecast server, on a socket of our own, within a
/// deadline (connect, request and answer together): asking whether it takes a mount
/// (`IcecastMountCheck`), an AAC mount's login (`IcecastLogin`) and its titles.
enum IcecastRequest {
    /// A TCP connection to the server (its first address that takes one by `until`), nil when none does.
    static func connect(_ endpoint: IcecastEndpoint, until: MonotonicInstant) -> Int32? {
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
            if started, poll(&p, 1, milliseconds(until)) == 1,
               getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0, error == 0 {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
                return fd
            }
            close(fd)
        }
        return nil
    }

    /// Sends `request` on `fd` and reads the answer by `until`: up to its blank line
    /// (`headOnly`: the connection goes on) or until the server closes it (16 KB at most).
    /// `closed`: the server closed the connection (or reset it); nil when it could not be sent.
    static func exchange(_ fd: Int32, _ request: String, until: MonotonicInstant, headOnly: Bool) -> (answer: [UInt8], closed: Bool)? {
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else { return nil }
        var answer: [UInt8] = []
        var byte: UInt8 = 0
        while answer.count < 16_384 {
            if headOnly, answer.suffix(4).elementsEqual("\r\n\r\n".utf8) { return (answer, false) }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, milliseconds(until)) == 1 else { return (answer, false) }
            // A byte at a time for a head, so that nothing of what follows it is taken.
            let n = headOnly ? recv(fd, &byte, 1, 0) : withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4096) { buffer in
                let n = recv(fd, buffer.baseAddress, buffer.count, 0)
                if n > 0 { answer += buffer[0..<n] }
                return n
            }
            if n <= 0 { return (answer, n == 0 || errno == ECONNRESET) }
            if headOnly { answer.append(byte) }
        }
        return (answer, false)
    }

    /// An `Authorization` header's value for `user` and `password`.
    static func basic(_ user: String, _ password: String) -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// The mount as a request line takes it.
    static func path(_ mount: String) -> String {
        mount.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? mount
    }

    private static func milliseconds(_ until: MonotonicInstant) -> Int32 {
        Int32(max(0, min(until.timeIntervalSinceNow * 1000, Double(Int32.max))))
    }
}

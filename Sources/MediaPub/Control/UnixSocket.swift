import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A failed system call: the call's name and errno's text. Callers name the
/// path or address the call was about (once).
struct SystemError: Error, CustomStringConvertible {
    let call: String
    let code: Int32
    var description: String { "\(call): \(String(cString: strerror(code)))" }
}

/// Every system call of the control socket goes through here: -1 becomes a thrown error.
@discardableResult
func syscall(_ name: String, _ body: () -> Int32) throws -> Int32 {
    while true {
        let result = body()
        if result >= 0 { return result }
        if errno == EINTR { continue }
        throw SystemError(call: name, code: errno)
    }
}

/// A connected or listening Unix stream socket; owns its descriptor.
final class UnixSocket: Sendable {
    let fd: Int32

    private init(fd: Int32) { self.fd = fd }
    deinit { close(fd) }

    private static func address(_ path: String) throws -> sockaddr_un {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let room = MemoryLayout.size(ofValue: addr.sun_path)
        guard bytes.count < room else {
            throw MediaPubError.usage("too long for a Unix socket path (\(bytes.count) bytes; at most \(room - 1))")
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return addr
    }

    /// What is at a path: its device and inode, and whether it is a socket.
    struct Identity: Equatable, Sendable {
        let device: UInt64
        let inode: UInt64
        let isSocket: Bool
        let kind: String

        /// lstat(2) of `path` (a symlink is itself, never followed); nil when nothing is there.
        static func of(_ path: String) -> Identity? {
            var st = stat()
            guard lstat(path, &st) == 0 else { return nil }
            let kind: String
            switch st.st_mode & S_IFMT {
            case S_IFSOCK: kind = "a socket"
            case S_IFREG: kind = "a regular file"
            case S_IFDIR: kind = "a directory"
            case S_IFLNK: kind = "a symbolic link"
            default: kind = "not a socket"
            }
            return Identity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino), isSocket: st.st_mode & S_IFMT == S_IFSOCK, kind: kind)
        }
    }

    /// Listens at `path` (mode 0600, non-blocking), replacing a stale socket
    /// nobody answers on; anything else at `path` is left untouched (an error).
    /// Returns the socket and what it bound at `path`, so that only that is removed later.
    static func listen(at path: String) throws -> (socket: UnixSocket, bound: Identity?) {
        let fd = try syscall("socket") { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        let sock = UnixSocket(fd: fd)
        var addr = try address(path)
        if let existing = Identity.of(path) {
            // mediapub removes only what it created: a file, a directory, a link stays.
            guard existing.isSocket else { throw MediaPubError.usage("\(existing.kind), not a socket: left untouched (give --control another path)") }
            // A socket someone still answers on belongs to a running instance: never steal it.
            if (try? connect(to: path)) != nil {
                throw ControlPathInUse(path: path)
            }
            // A stale socket of an earlier run: only if it is still that socket.
            if Identity.of(path) == existing { unlink(path) }
        }
        let oldMask = umask(0o177)
        defer { umask(oldMask) }
        _ = try withUnsafePointer(to: &addr) { p in
            try p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                try syscall("bind") { bind(fd, sa, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
        }
        let bound = Identity.of(path)
        chmod(path, 0o600)
        try syscall("listen") { Glibc.listen(fd, SOMAXCONN) }
        try sock.setNonBlocking()
        return (sock, bound)
    }

    func setNonBlocking() throws {
        let flags = try syscall("fcntl") { fcntl(fd, F_GETFL) }
        try syscall("fcntl") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }

    /// A pending connection of a non-blocking listener (itself non-blocking), nil when none is waiting.
    func acceptNonBlocking() throws -> UnixSocket? {
        while true {
            let client = Glibc.accept(fd, nil, nil)
            if client >= 0 {
                let socket = UnixSocket(fd: client)
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                try socket.setNonBlocking()
                return socket
            }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return nil
            // The peer gave up before we took it: go on with the next.
            case ECONNABORTED, EPROTO: continue
            default: throw SystemError(call: "accept", code: errno)
            }
        }
    }

    static func connect(to path: String) throws -> UnixSocket {
        let fd = try syscall("socket") { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0) }
        let sock = UnixSocket(fd: fd)
        var addr = try address(path)
        _ = try withUnsafePointer(to: &addr) { p in
            try p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                try syscall("connect") { Glibc.connect(fd, sa, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
        }
        return sock
    }

    /// Waits up to `timeout` seconds for something to read (or a connection).
    func readable(timeout: Double) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, Int32(timeout * 1000)) > 0
    }

    func write(_ text: String) throws {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = try bytes.withUnsafeBytes { raw in
                try syscall("write") { Int32(send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))) }
            }
            bytes = bytes.dropFirst(Int(n))
        }
    }

    /// Reads lines until the peer closes; calls `body` for each.
    func readLines(_ body: (String) throws -> Void) throws {
        var pending = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = try chunk.withUnsafeMutableBytes { raw in
                try syscall("read") { Int32(recv(fd, raw.baseAddress, raw.count, 0)) }
            }
            if n == 0 { return }
            pending += chunk[0..<Int(n)]
            while let newline = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                try body(line)
            }
            if pending.count > 1 << 20 { throw MediaPubError.usage("control: line too long") }
        }
    }
}

import Foundation
import Synchronization
import CSocketShim
#if canImport(Glibc)
import Glibc
#endif

/// What a server's TCP stack has acknowledged of an RTMP connection: the bytes
/// rtmp2sink wrote (its `out-bytes-total`) less those its socket still holds
/// unacknowledged (SIOCOUTQ). nginx-rtmp sends RTMP acknowledgements only every
/// 5 MB; TCP's are there at once, and a server that stops reading shows up as a
/// send queue that no longer drains.
///
/// Which socket is the output's: an established TCP connection of this process (a
/// descriptor in /proc/self/fd) to one of the server's addresses and its port, IPv4
/// or IPv6, that no other output has claimed (`TCPSocketClaims`).
struct TCPAcknowledged: Sendable {
    /// The server's addresses: 4 bytes for IPv4, 16 for IPv6.
    let addresses: Set<[UInt8]>
    let port: Int

    /// For an RTMP server: every address its host is or resolves to (nil when none).
    init?(_ server: NetworkEndpoint) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(server.host, String(server.port), &hints, &found) == 0 else { return nil }
        defer { freeaddrinfo(found) }
        var addresses = Set<[UInt8]>()
        var next = found
        while let info = next {
            if let sa = info.pointee.ai_addr, let bytes = Self.addressBytes(sa, family: info.pointee.ai_family) {
                addresses.insert(bytes)
            }
            next = info.pointee.ai_next
        }
        guard !addresses.isEmpty else { return nil }
        self.init(addresses: addresses, port: server.port)
    }

    init(addresses: Set<[UInt8]>, port: Int) {
        self.addresses = addresses
        self.port = port
    }

    private static func addressBytes(_ sa: UnsafeMutablePointer<sockaddr>, family: Int32) -> [UInt8]? {
        switch family {
        case AF_INET:
            return sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                withUnsafeBytes(of: sin.pointee.sin_addr) { Array($0) }
            }
        case AF_INET6:
            return sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 in
                withUnsafeBytes(of: sin6.pointee.sin6_addr) { Array($0) }
            }
        default:
            return nil
        }
    }

    /// One established connection to the server.
    struct Connection: Equatable {
        let inode: UInt64
        let sendQueue: Int
        /// Its descriptor when it was listed.
        var fd: Int32 = -1
    }

    /// Whether a peer (`address`: 4 or 16 bytes, an IPv4-mapped IPv6 one as its IPv4
    /// bytes) at `port` is this server.
    func isServer(address: [UInt8], port: Int) -> Bool {
        port == self.port && (addresses.contains(address) || addresses.contains(Self.unmapped(address)))
    }

    /// An IPv4-mapped IPv6 address (::ffff:a.b.c.d) as its IPv4 bytes; anything else as it is.
    static func unmapped(_ address: [UInt8]) -> [UInt8] {
        guard address.count == 16, address[0..<10].allSatisfy({ $0 == 0 }), address[10] == 0xFF, address[11] == 0xFF else { return address }
        return Array(address[12..<16])
    }

    /// This process's sockets (from /proc/self/fd): descriptor and inode.
    static func ownedSockets() -> [(fd: Int32, inode: UInt64)] {
        guard let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return [] }
        return fds.compactMap { name in
            guard let fd = Int32(name), let inode = socketInode(of: fd) else { return nil }
            return (fd, inode)
        }
    }

    /// The inode of the socket behind `fd` (its /proc/self/fd link reads `socket:[12345]`), nil for anything else.
    static func socketInode(of fd: Int32) -> UInt64? {
        var buffer = [CChar](repeating: 0, count: 64)
        let n = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        let link = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard link.hasPrefix("socket:["), link.hasSuffix("]"), let inode = UInt64(link.dropFirst(8).dropLast()) else { return nil }
        return inode
    }

    /// This process's established connections to the server now, each with what it sent
    /// that the server's TCP stack has not acknowledged. Asked of each socket itself
    /// (getpeername, TCP_INFO, SIOCOUTQ): reading /proc/net/tcp instead walked the
    /// host's whole connection table, 15 ms a read, 7 % of a core at four reads a second.
    func connections() -> [Connection] {
        Self.ownedSockets().compactMap { socket in
            var family: Int32 = 0, port: Int32 = 0, unacked: Int32 = 0
            var address = [UInt8](repeating: 0, count: 16)
            guard csocket_tcp_peer(socket.fd, &family, &address, &port, &unacked) == 1 else { return nil }
            let peer = family == AF_INET ? Array(address[0..<4]) : address
            // Still the socket listed: a descriptor closed and reused meanwhile is another socket.
            guard isServer(address: peer, port: Int(port)), Self.socketInode(of: socket.fd) == socket.inode else { return nil }
            return Connection(inode: socket.inode, sendQueue: Int(unacked), fd: socket.fd)
        }
    }
}

extension TCPAcknowledged {
    /// Whether this process still has `connection`'s socket open (at the descriptor it was listed at).
    static func isOpen(_ connection: Connection) -> Bool {
        connection.fd >= 0 && socketInode(of: connection.fd) == connection.inode
    }

    /// Shuts `connection` down both ways (while its descriptor is still that socket):
    /// the server sees it close, and whoever holds it reads its end at once.
    static func shutDown(_ connection: Connection) {
        if isOpen(connection) { _ = shutdown(connection.fd, Int32(SHUT_RDWR)) }
    }

    /// The bytes rtmp2sink has written to its socket (its stats' `out-bytes-total`):
    /// 0 until the server has answered the handshake; then the `connect`, `createStream`
    /// and `publish` commands, then the stream.
    static func written(by sink: Element) -> Int? {
        sink.structure("stats")?.uint64("out-bytes-total").map { Int(clamping: $0) }
    }

    /// The receive window the server advertises on `connection` (TCP_INFO), nil when the
    /// kernel does not tell it or its descriptor is another socket by now.
    static func window(of connection: Connection) -> Int? {
        let window = csocket_tcp_send_window(connection.fd)
        return window >= 0 && isOpen(connection) ? Int(window) : nil
    }

    /// Whether our side of `connection` is recovering lost data (TCP_INFO: segments the
    /// server SACKed, lost or retransmitted); false when the kernel does not tell.
    static func recovering(_ connection: Connection) -> Bool {
        csocket_tcp_recovering(connection.fd) == 1 && isOpen(connection)
    }
}

/// Which output's connection each socket is: an output claims the socket it watches,
/// so that two outputs to one server never read the same socket.
final class TCPSocketClaims: Sendable {
    static let shared = TCPSocketClaims()
    private let claims = Mutex<[UInt64: ObjectIdentifier]>([:])

    /// The connection `owner` watches among `connections`: the one it claimed before if
    /// it is still there, else the first that nobody has claimed (claimed from now on).
    func connection(for owner: ObjectIdentifier, among connections: [TCPAcknowledged.Connection]) -> TCPAcknowledged.Connection? {
        claims.withLock { claims in
            if let mine = connections.first(where: { claims[$0.inode] == owner }) { return mine }
            claims = claims.filter { $0.value != owner }   // a socket of ours that is gone
            guard let free = connections.filter({ claims[$0.inode] == nil }).min(by: { $0.inode < $1.inode }) else { return nil }
            claims[free.inode] = owner
            return free
        }
    }

    /// What may be `owner`'s connection among `connections`: the one it claimed, and any
    /// that nobody claimed and that was not there before its connection began (`before`):
    /// a connect stopped before the watch saw its socket.
    func candidates(for owner: ObjectIdentifier, among connections: [TCPAcknowledged.Connection],
                    before: Set<UInt64>) -> [TCPAcknowledged.Connection] {
        claims.withLock { claims in
            connections.filter { claims[$0.inode] == owner || (claims[$0.inode] == nil && !before.contains($0.inode)) }
        }
    }

    /// `owner`'s connection is over (torn down, or the output finished).
    func release(_ owner: ObjectIdentifier) {
        claims.withLock { claims in claims = claims.filter { $0.value != owner } }
    }
}

import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What a server's TCP stack has acknowledged of an RTMP connection: the bytes
/// rtmp2sink wrote (its `out-bytes-total`) less those still waiting in the
/// socket's send queue (`tx_queue` in /proc/self/net/tcp and tcp6). nginx-rtmp
/// sends RTMP acknowledgements only every 5 MB; TCP's are there at once, and a
/// server that stops reading shows up as a send queue that no longer drains.
///
/// Which socket is the output's: an established connection to one of the server's
/// addresses and port that this process owns (its inode is among /proc/self/fd's)
/// and that no other output has claimed (`TCPSocketClaims`).
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
    }

    /// The established connections to the server in `tables` (the text of /proc/net/tcp
    /// and tcp6) whose socket inode is in `owned`.
    func connections(in tables: [String], owned: Set<UInt64>) -> [Connection] {
        var found: [Connection] = []
        for table in tables {
            for line in table.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                // sl local rem st tx:rx tr:when retrnsmt uid timeout inode
                guard fields.count > 9, fields[3] == "01", let inode = UInt64(fields[9]), owned.contains(inode),
                      let (address, port) = Self.parseAddress(fields[2]), port == self.port,
                      addresses.contains(address) || addresses.contains(Self.unmapped(address)) else { continue }
                guard let queue = fields[4].split(separator: ":").first.flatMap({ Int($0, radix: 16) }) else { continue }
                found.append(Connection(inode: inode, sendQueue: queue))
            }
        }
        return found
    }

    /// `0100007F:0797` (IPv4) or 32 hex digits and a port (IPv6): the address in
    /// memory order (the kernel prints each 32-bit word in host order) and the port.
    static func parseAddress(_ text: Substring) -> ([UInt8], Int)? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let port = Int(parts[1], radix: 16), parts[0].count == 8 || parts[0].count == 32 else { return nil }
        var bytes: [UInt8] = []
        var rest = parts[0][...]
        while !rest.isEmpty {
            guard let word = UInt32(rest.prefix(8), radix: 16) else { return nil }
            withUnsafeBytes(of: word) { bytes.append(contentsOf: $0) }   // host order, as the kernel wrote it
            rest = rest.dropFirst(8)
        }
        return (bytes, port)
    }

    /// An IPv4-mapped IPv6 address (::ffff:a.b.c.d) as its IPv4 bytes; anything else as it is.
    static func unmapped(_ address: [UInt8]) -> [UInt8] {
        guard address.count == 16, address[0..<10].allSatisfy({ $0 == 0 }), address[10] == 0xFF, address[11] == 0xFF else { return address }
        return Array(address[12..<16])
    }

    /// The inodes of this process's sockets (from /proc/self/fd).
    static func ownedSocketInodes() -> Set<UInt64> {
        var inodes = Set<UInt64>()
        guard let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return inodes }
        var buffer = [CChar](repeating: 0, count: 64)
        for fd in fds {
            let n = readlink("/proc/self/fd/" + fd, &buffer, buffer.count - 1)
            guard n > 0 else { continue }
            let link = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            // socket:[12345]
            guard link.hasPrefix("socket:["), link.hasSuffix("]"), let inode = UInt64(link.dropFirst(8).dropLast()) else { continue }
            inodes.insert(inode)
        }
        return inodes
    }

    /// Reads the kernel's tables now: this process's established connections to the server.
    /// Read to their end (Foundation's String(contentsOfFile:) stops at procfs's first page,
    /// about 27 sockets: with more sockets on the host ours was never found).
    func connections() -> [Connection] {
        let tables = ["/proc/self/net/tcp", "/proc/self/net/tcp6"].map { path in
            (try? BoundedFile.contents(path, limit: 64 << 20).get()).map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
        return connections(in: tables, owned: Self.ownedSocketInodes())
    }
}

extension TCPAcknowledged {
    /// The bytes rtmp2sink has written to its socket (its stats' `out-bytes-total`):
    /// 0 until the server has answered the handshake, `connect` and `publish`.
    static func written(by sink: Element) -> Int? {
        sink.structure("stats")?.uint64("out-bytes-total").map { Int(clamping: $0) }
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

    /// `owner`'s connection is over (torn down, or the output finished).
    func release(_ owner: ObjectIdentifier) {
        claims.withLock { claims in claims = claims.filter { $0.value != owner } }
    }
}

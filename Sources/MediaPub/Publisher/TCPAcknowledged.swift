import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a server's TCP stack has acknowledged of an RTMP connection: the bytes
/// rtmp2sink wrote (its `out-bytes-total`) less those still waiting in the
/// socket's send queue (`tx_queue` of /proc/self/net/tcp). nginx-rtmp sends RTMP
/// acknowledgements only every 5 MB; TCP's are there at once, and a server that
/// stops reading shows up as a send queue that no longer drains.
struct TCPAcknowledged {
    /// The server's address as /proc/net/tcp writes it (`0100007F:0797`, IPv4 only).
    let remote: String

    /// For an RTMP server, when its host is or resolves to an IPv4 address.
    init?(_ server: NetworkEndpoint) {
        let (host, port) = (server.host, server.port)
        var hints = addrinfo()
        hints.ai_family = AF_INET
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let info = found, let sa = info.pointee.ai_addr else { return nil }
        defer { freeaddrinfo(found) }
        let address = sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr }
        // The address in memory order (as the kernel prints it), the port in host order.
        remote = String(format: "%08X:%04X", UInt32(address), port)
    }

    /// The send queue of the one established connection to the server, or nil when
    /// there is none or more than one (which one is ours cannot be told).
    func sendQueue(table: String = (try? String(contentsOfFile: "/proc/self/net/tcp", encoding: .utf8)) ?? "") -> Int? {
        var queues: [Int] = []
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 4, fields[2] == remote, fields[3] == "01" else { continue }
            let queue = fields[4].split(separator: ":").first.flatMap { Int($0, radix: 16) }
            if let queue { queues.append(queue) }
        }
        return queues.count == 1 ? queues[0] : nil
    }
}

extension TCPAcknowledged {
    /// The bytes rtmp2sink has written to its socket (its stats' `out-bytes-total`).
    static func written(by sink: Element) -> Int? {
        sink.structure("stats")?.uint64("out-bytes-total").map { Int(clamping: $0) }
    }
}

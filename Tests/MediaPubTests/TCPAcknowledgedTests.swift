// The pure parts of RTMP health: reading the kernel's TCP tables, telling our
// sockets from others, and reading a refusal out of rtmp2sink's error.

import XCTest
@testable import MediaPub
#if canImport(Glibc)
import Glibc
#endif

final class TCPAcknowledgedTests: XCTestCase {
    func testTheServerIsMatchedByAddressAndPortOverIPv4AndIPv6() {
        let loopback4: [UInt8] = [127, 0, 0, 1]
        let loopback6: [UInt8] = Array(repeating: 0, count: 15) + [1]
        let mapped: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF, 127, 0, 0, 1]
        let probe = TCPAcknowledged(addresses: [loopback4, loopback6], port: 1943)
        XCTAssertTrue(probe.isServer(address: loopback4, port: 1943))
        XCTAssertTrue(probe.isServer(address: loopback6, port: 1943))
        XCTAssertTrue(probe.isServer(address: mapped, port: 1943), "an IPv4-mapped peer is the IPv4 server")
        XCTAssertFalse(probe.isServer(address: loopback4, port: 1944))
        XCTAssertFalse(probe.isServer(address: [10, 0, 0, 1], port: 1943))
        XCTAssertEqual(TCPAcknowledged.unmapped(loopback6), loopback6)
    }

    /// Real sockets of this process: a listener on loopback and a connection to it are
    /// told apart from everything else; what the peer has not read is still acknowledged
    /// by its TCP stack, so nothing waits unacknowledged.
    func testThisProcesssConnectionToTheServerIsFoundWithItsSendQueue() throws {
        let (server, listening) = try Ports.listener(in: self, backlog: 4)
        let port = Int(listening)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = listening.bigEndian
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(client) }
        let connected = withUnsafePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        XCTAssertTrue(connected)
        let accepted = accept(server, nil, nil)
        defer { close(accepted) }
        let bytes = [UInt8](repeating: 7, count: 1000)
        XCTAssertEqual(write(client, bytes, bytes.count), 1000)
        let probe = TCPAcknowledged(addresses: [[127, 0, 0, 1]], port: port)
        XCTAssertTrue(Ports.waitUntil(timeout: 10) { probe.connections().first?.sendQueue == 0 }, "\(probe.connections())")
        // The client's socket only: the accepted one's peer is the client's port, not the server's.
        XCTAssertEqual(probe.connections().count, 1)
        XCTAssertEqual(TCPAcknowledged(addresses: [[127, 0, 0, 1]], port: port + 1).connections(), [])
    }

    func testEachOutputWatchesItsOwnSocket() {
        let claims = TCPSocketClaims()
        let owners = (NSObject(), NSObject())   // alive, so that their identities differ
        let a = ObjectIdentifier(owners.0), b = ObjectIdentifier(owners.1)
        let both: [TCPAcknowledged.Connection] = [.init(inode: 20, sendQueue: 0), .init(inode: 10, sendQueue: 0)]
        XCTAssertEqual(claims.connection(for: a, among: both)?.inode, 10)
        XCTAssertEqual(claims.connection(for: b, among: both)?.inode, 20)
        XCTAssertEqual(claims.connection(for: a, among: both)?.inode, 10, "a keeps its socket")
        XCTAssertNil(claims.connection(for: a, among: [.init(inode: 20, sendQueue: 0)]), "b's socket is never a's")
        claims.release(b)
        XCTAssertEqual(claims.connection(for: a, among: [.init(inode: 30, sendQueue: 0), .init(inode: 20, sendQueue: 0)])?.inode, 20)
        withExtendedLifetime(owners) {}
    }

    func testARefusalIsReadFromTheCommandThatFailed() {
        func error(_ message: String, _ code: ErrorCode = .resource(.failed)) -> ErrorMessage {
            ErrorMessage(source: "sink", message: message, code: code, debug: nil, httpStatus: nil)
        }
        XCTAssertEqual(RTMPRefusal.reason(of: error("Failed to connect: 'publish' cmd failed: connection closed remotely")),
                       "the server refused the stream key (publish: it closed the connection)")
        XCTAssertEqual(RTMPRefusal.reason(of: error("Failed to connect: 'publish' cmd failed: NetStream.Publish.BadName: Stream already publishing")),
                       "the server refused the stream key (publish: NetStream.Publish.BadName: Stream already publishing)")
        XCTAssertEqual(RTMPRefusal.reason(of: error("Failed to connect: 'connect' cmd failed: connection closed remotely")),
                       "the server refused the application (connect: it closed the connection)")
        XCTAssertEqual(RTMPRefusal.reason(of: error("Not authorized to connect: bad user", .resource(.notAuthorized))),
                       "the server refused the credentials (Not authorized to connect: bad user)")
        XCTAssertNil(RTMPRefusal.reason(of: error("Failed to connect: Socket I/O timed out")))
        XCTAssertNil(RTMPRefusal.reason(of: error("Could not connect to 127.0.0.1:1935: Connection refused", .resource(.openWrite))))
    }
}

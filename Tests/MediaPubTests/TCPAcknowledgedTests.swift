// The pure parts of RTMP health: reading the kernel's TCP tables, telling our
// sockets from others, and reading a refusal out of rtmp2sink's error.

import XCTest
@testable import MediaPub

final class TCPAcknowledgedTests: XCTestCase {
    private let header = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"

    func testConnectionsAreThisProcesssEstablishedOnesToTheServerOverIPv4AndIPv6() {
        let v4 = header + """
           0: 0100007F:D431 0100007F:0797 01 00001A2B:00000000 00:00000000 00000000     0        0 1111 1 0 20 4 30 10 -1
           1: 0100007F:D432 0100007F:0797 01 00000010:00000000 00:00000000 00000000     0        0 2222 1 0 20 4 30 10 -1
           2: 0100007F:D433 0100007F:0797 06 00000000:00000000 00:00000000 00000000     0        0 3333 1 0 20 4 30 10 -1
           3: 0100007F:D434 0100007F:0798 01 00000000:00000000 00:00000000 00000000     0        0 4444 1 0 20 4 30 10 -1
        """
        // ::1 port 1943, and ::ffff:127.0.0.1 port 1943.
        let v6 = header + """
           0: 00000000000000000000000001000000:D435 00000000000000000000000001000000:0797 01 00000005:00000000 00:00000000 00000000     0        0 5555 1 0 20 4 30 10 -1
           1: 0000000000000000FFFF00000100007F:D436 0000000000000000FFFF00000100007F:0797 01 00000007:00000000 00:00000000 00000000     0        0 6666 1 0 20 4 30 10 -1
        """
        let loopback4: [UInt8] = [127, 0, 0, 1]
        let loopback6: [UInt8] = Array(repeating: 0, count: 15) + [1]
        let probe = TCPAcknowledged(addresses: [loopback4, loopback6], port: 1943)
        let found = probe.connections(in: [v4, v6], owned: [1111, 3333, 4444, 5555, 6666])
        // 2222 is another process's; 3333 is not established; 4444 is another port.
        XCTAssertEqual(found, [.init(inode: 1111, sendQueue: 0x1A2B), .init(inode: 5555, sendQueue: 5), .init(inode: 6666, sendQueue: 7)])
        XCTAssertEqual(TCPAcknowledged(addresses: [[10, 0, 0, 1]], port: 1943).connections(in: [v4, v6], owned: [1111, 5555, 6666]), [])
    }

    func testHostileTableTextIsSkipped() {
        let probe = TCPAcknowledged(addresses: [[127, 0, 0, 1]], port: 1943)
        let junk = header + "0: ZZ:0797 0100007F:FFFFFFFFFFFF 01 x:y\n\n 1: 0100007F 01\n" + String(repeating: "0: ", count: 1000)
        XCTAssertEqual(probe.connections(in: [junk], owned: [1]), [])
        XCTAssertNil(TCPAcknowledged.parseAddress("0100007F"))
        XCTAssertNil(TCPAcknowledged.parseAddress("0100007:0797"))
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

// Requests paused for their answer (a command running, a thumbnail being made) count against
// the server's bound (docs/http.md, Limits): at most `maxConnections` wait; one more is answered
// 503 at once, and the server's descriptors stay bounded however many ask.

import Foundation
import Synchronization
import XCTest
#if canImport(Glibc)
import Glibc
#endif
@testable import MediaPub

final class HTTPWaitingBoundTests: XCTestCase {
    func testCommandsWaitingForTheirAnswerAreBoundedAndOneMoreIsAnswered503() throws {
        let release = DispatchSemaphore(value: 0)
        var site = HTTPSite()
        site.token = HTTPToken("t0ken")
        // Each command holds its lane until released: its request waits, paused.
        site.commands = CommandEndpoint(lanes: ControlLanes(), handle: { _ in
            release.wait()
            return .ok
        })
        var limits = MediaPub.HTTPServer.Limits.standard
        limits.maxConnections = 4
        let port = try Ports.free()
        let server = try MediaPub.HTTPServer(spec: "127.0.0.1:\(port)", limits: limits, site: site)
        defer { server.stop() }

        let asked = 12
        let body = #"{"command":"skip"}"#
        var sockets: [TestSocket] = []
        for _ in 0..<asked {
            let socket = try TestSocket.tcp(port: port)
            XCTAssertTrue(socket.send("POST /api/command HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer t0ken\r\n"
                                      + "Content-Length: \(body.utf8.count)\r\n\r\n" + body))
            sockets.append(socket)
        }
        // Each answer read as it comes: those over the bound come at once, the others once released.
        let answers = Mutex<[String]>([])
        let busyCame = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for socket in sockets {
            done.enter()
            Thread.detachNewThread {
                let status = socket.readLine(timeout: 30) ?? "no answer"
                answers.withLock { $0.append(status) }
                if status == "HTTP/1.1 503 Service Unavailable\r" { busyCame.signal() }
                done.leave()
            }
        }
        for _ in 0..<(asked - limits.maxConnections) where busyCame.wait(timeout: .now() + 30) != .success {
            XCTFail("not answered 503 while the others wait: \(answers.withLock { $0 })")
            break
        }
        XCTAssertEqual(answers.withLock { $0.count }, asked - limits.maxConnections, "those within the bound still wait")
        for _ in 0..<asked { release.signal() }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        let all = answers.withLock { $0 }
        let busy = all.filter { $0 == "HTTP/1.1 503 Service Unavailable\r" }.count
        let ok = all.filter { $0 == "HTTP/1.1 200 OK\r" }.count
        print("HTTPWaitingBoundTests: \(asked) commands asked at once, \(ok) answered 200 after waiting, \(busy) answered 503 at once")
        XCTAssertEqual(busy, asked - limits.maxConnections, "one more than the bound is answered 503 at once")
        XCTAssertEqual(ok, limits.maxConnections, "those within the bound are answered")
    }
}

// What mediapub says to an Icecast server on sockets of its own (IcecastRequest.swift):
// the answer to a source's first request before the login (IcecastMountCheck), and an
// AAC mount's title request (IcecastLogin), as values.

import XCTest
@testable import MediaPub

final class IcecastRequestTests: XCTestCase {
    /// An Icecast server's answer to a source's first request, before the login.
    func testIcecastMountRefusedBeforeTheLoginIsToldInTheServersWords() {
        func outcome(_ text: String, closed: Bool = true) -> IcecastMountCheck.Outcome {
            IcecastMountCheck.outcome(of: Array(text.utf8), closed: closed)
        }
        XCTAssertEqual(outcome(""), .refused("the server closed the connection without answering the mount's request"))
        XCTAssertEqual(outcome("", closed: false), .goOn, "no answer yet: the login's own deadline")
        XCTAssertEqual(outcome("HTTP/1.0 401 Authentication Required\r\nWWW-Authenticate: Basic\r\n\r\nYou need to authenticate\r\n"), .goOn)
        XCTAssertEqual(outcome("HTTP/1.0 200 OK\r\n\r\n"), .goOn)
        XCTAssertEqual(outcome("HTTP/1.0 403 Forbidden\r\nContent-Type: text/html\r\n\r\n<b>Mountpoint in use</b>\r\n"),
                       .refused("the server refused the mount before the login: 403 Forbidden: Mountpoint in use"))
        XCTAssertEqual(outcome("HTTP/1.1 404 Not Found\r\n\r\n"), .refused("the server refused the mount before the login: 404 Not Found"))
        XCTAssertEqual(outcome("ICY 401 Service Unavailable\r\n"), .goOn, "not HTTP: libshout decides")
    }

    /// The title request carries the title and the mount each as one value, whatever is in them.
    func testAnAACMountsTitleRequestEscapesWhatItCarries() {
        XCTAssertEqual(IcecastLogin.metadataPath(song: "Simon & Garfunkel - A=B + C #1", mount: "/radio.aac"),
                       "/admin/metadata?mode=updinfo&charset=UTF-8&mount=%2Fradio.aac&song=Simon%20%26%20Garfunkel%20-%20A%3DB%20%2B%20C%20%231")
        XCTAssertEqual(IcecastLogin.metadataPath(song: "Céline - Ça", mount: "/é.aac"),
                       "/admin/metadata?mode=updinfo&charset=UTF-8&mount=%2F%C3%A9.aac&song=C%C3%A9line%20-%20%C3%87a")
    }
}

// Who may do what over HTTP (docs/http.md), as pure values: the decision for each kind of
// request, the token's comparison, the per-address limit of wrong tokens, the Origin check,
// and a command body read by the control socket's own parser.

import Foundation
import XCTest
@testable import MediaPub

final class HTTPAccessTests: XCTestCase {
    private let loopback = HTTPAccess.Policy(loopback: true, publicRead: false, hasToken: true)
    private let open = HTTPAccess.Policy(loopback: false, publicRead: false, hasToken: true)

    func testReadingIsOpenOnLoopbackOrPublicElseNeedsTheToken() {
        XCTAssertEqual(HTTPAccess.decide(.read, policy: loopback, presented: .none, blocked: false), .allowed)
        XCTAssertEqual(HTTPAccess.decide(.read, policy: .init(loopback: false, publicRead: true, hasToken: false), presented: .none, blocked: false), .allowed)
        XCTAssertEqual(HTTPAccess.decide(.read, policy: open, presented: .none, blocked: false), .unauthorized(failure: false))
        XCTAssertEqual(HTTPAccess.decide(.read, policy: open, presented: .wrong, blocked: false), .unauthorized(failure: true))
        XCTAssertEqual(HTTPAccess.decide(.read, policy: open, presented: .right, blocked: false), .allowed)
        XCTAssertEqual(HTTPAccess.decide(.read, policy: .init(loopback: false, publicRead: false, hasToken: false), presented: .none, blocked: false),
                       .forbidden(HTTPAccess.noTokenForReading))
        XCTAssertEqual(HTTPAccess.decide(.open, policy: .init(loopback: false, publicRead: false, hasToken: false), presented: .wrong, blocked: true), .allowed)
    }

    func testCommandsAlwaysNeedTheTokenAndAreRefusedWithoutOne() {
        XCTAssertEqual(HTTPAccess.decide(.command, policy: loopback, presented: .none, blocked: false), .unauthorized(failure: false))
        XCTAssertEqual(HTTPAccess.decide(.command, policy: loopback, presented: .wrong, blocked: false), .unauthorized(failure: true))
        XCTAssertEqual(HTTPAccess.decide(.command, policy: loopback, presented: .right, blocked: false), .allowed)
        XCTAssertEqual(HTTPAccess.decide(.command, policy: .init(loopback: true, publicRead: true, hasToken: false), presented: .none, blocked: false),
                       .forbidden(HTTPAccess.noTokenForCommands))
        // A blocked address is refused even with the right token.
        XCTAssertEqual(HTTPAccess.decide(.command, policy: loopback, presented: .right, blocked: true), .tooManyFailures)
    }

    func testTheTokenMatchesOnlyItselfAsABearer() {
        let token = HTTPToken("s3cret-token")
        XCTAssertTrue(token.matches("s3cret-token"))
        XCTAssertFalse(token.matches("s3cret-tokeN"))
        XCTAssertFalse(token.matches("s3cret-token "))
        XCTAssertFalse(token.matches(""))
        XCTAssertEqual(token.matches(authorization: "Bearer s3cret-token"), .right)
        XCTAssertEqual(token.matches(authorization: "bearer s3cret-token"), .right)
        XCTAssertEqual(token.matches(authorization: "Basic s3cret-token"), .wrong)
        XCTAssertEqual(token.matches(authorization: "Bearer other"), .wrong)
        XCTAssertEqual(token.matches(authorization: nil), .none)
        XCTAssertFalse("\(token)".contains("s3cret"), "the token is never shown")
    }

    func testATokenFileOthersMayReadIsRefusedNamingIt() throws {
        let dir = try makeTempDir()
        let path = dir.appendingPathComponent("token").path
        try "abc\n".write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o644)
        XCTAssertThrowsError(try HTTPToken.fromFile(path)) { error in
            XCTAssertTrue("\(error)".contains("http.token_file \(path): others may read it (mode 644)"), "\(error)")
        }
        chmod(path, 0o600)
        XCTAssertTrue(try HTTPToken.fromFile(path).matches("abc"))
        XCTAssertThrowsError(try HTTPToken.fromEnvironment("MP_NO_SUCH_TOKEN", [:])) { error in
            XCTAssertTrue("\(error)".contains("--http-token-env MP_NO_SUCH_TOKEN"), "\(error)")
        }
    }

    /// A token file over the bound is refused by its size, never read: a 1 GiB sparse file (a
    /// log put there by mistake) costs the run no memory (before, it was read whole, then refused).
    func testAnOversizedTokenFileIsRefusedUnread() throws {
        let dir = try makeTempDir()
        let path = dir.appendingPathComponent("token").path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data("abc\n".utf8)))
        chmod(path, 0o600)
        XCTAssertEqual(truncate(path, 1 << 30), 0)
        let before = Self.peakResidentKiB()
        XCTAssertThrowsError(try HTTPToken.fromFile(path)) { error in
            XCTAssertTrue("\(error)".contains("http.token_file \(path): 1073741824 bytes, over 4 KiB"), "\(error)")
        }
        let grown = Self.peakResidentKiB() - before
        print("HTTPAccessTests: a 1 GiB token file refused; peak resident memory grew by \(grown) KiB")
        XCTAssertLessThan(grown, 64 * 1024, "the file is not read")
    }

    private static func peakResidentKiB() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss
    }

    /// The preset's token file is checked as the preset loads (`file:line: http.token_file`, exit 2),
    /// and a --http-token-env whose variable is unset stops the run before it starts (exit 2).
    func testABadTokenFileOrVariableStopsTheRunNamingIt() throws {
        let dir = try makeTempDir()
        let token = dir.appendingPathComponent("token")
        try "s3cret\n".write(to: token, atomically: false, encoding: .utf8)
        chmod(token.path, 0o640)
        let preset = try writeFile(dir, "p.yaml", E2EPreset.basic(name: "tok", source: E2EPreset.testsrc, extra: "http:\n  token_file: token\n"))
        let refused = try CLI.run(["validate", preset.path], timeout: 30)
        XCTAssertEqual(refused.status, 2, refused.summary("validate"))
        XCTAssertTrue(refused.stderr.contains("p.yaml:18: http.token_file: others may read it (mode 640); make it owner-only: chmod 600 \(token.path)"),
                      refused.stderr)
        chmod(token.path, 0o600)
        let valid = try CLI.run(["validate", preset.path], timeout: 30)
        XCTAssertEqual(valid.status, 0, valid.summary("validate"))
        XCTAssertFalse(valid.stdout.contains("s3cret"), "the resolved preset names the file, never the token")
        let unset = try CLI.run(["--preset", preset.path, "--duration", "1s", "--http", "127.0.0.1:1",
                                 "--http-token-env", "MP_UNSET_TOKEN"], unsetEnv: ["MP_UNSET_TOKEN"], timeout: 30)
        XCTAssertEqual(unset.status, 2, unset.summary("run"))
        XCTAssertTrue(unset.stderr.contains("--http-token-env MP_UNSET_TOKEN: the environment variable MP_UNSET_TOKEN is not set"), unset.stderr)
    }

    func testTenWrongTokensAMinuteBlockThatAddressOnlyAndTheBlockEnds() {
        var limiter = FailureLimiter(limit: 10, window: 60)
        for i in 0..<9 { limiter.recordFailure("10.0.0.1", now: 100 + Double(i)) }
        XCTAssertFalse(limiter.isBlocked("10.0.0.1", now: 109))
        limiter.recordFailure("10.0.0.1", now: 109)
        XCTAssertTrue(limiter.isBlocked("10.0.0.1", now: 109))
        XCTAssertFalse(limiter.isBlocked("10.0.0.2", now: 109), "another address is not blocked")
        XCTAssertTrue(limiter.isBlocked("10.0.0.1", now: 159.9))
        XCTAssertFalse(limiter.isBlocked("10.0.0.1", now: 160), "a minute after the oldest of the ten")
        // Failures spread over more than a minute never block.
        var spread = FailureLimiter(limit: 10, window: 60)
        for i in 0..<30 { spread.recordFailure("a", now: Double(i) * 7) }
        XCTAssertFalse(spread.isBlocked("a", now: 29 * 7))
    }

    func testTheLimiterNeverGrowsPastItsAddresses() {
        var limiter = FailureLimiter(limit: 10, window: 60, maxAddresses: 100)
        for i in 0..<10_000 { limiter.recordFailure("10.0.\(i / 256).\(i % 256)", now: Double(i) / 1000) }
        XCTAssertLessThanOrEqual(limiter.addresses, 100)
        for _ in 0..<10 { limiter.recordFailure("blocked", now: 10) }
        XCTAssertTrue(limiter.isBlocked("blocked", now: 10), "the newest address is kept")
    }

    func testALoopbackServerAnswersOnlyLoopbackNamesInHost() {
        for host in ["127.0.0.1", "127.0.0.1:9100", "localhost", "LOCALHOST:80", "127.1.2.3:1", "[::1]", "[::1]:9100"] {
            XCTAssertTrue(HTTPAccess.hostAllowed(host, loopback: true), host)
        }
        for host in [nil, "", "evil.example", "evil.example:9100", "127.0.0.1.evil.example", "localhost.evil.example",
                     "127.0.0.1:", "127.0.0.1:x", "[::1]x", "[::2]", "127.0.0.256", "10.0.0.1", "[::1"] {
            XCTAssertFalse(HTTPAccess.hostAllowed(host, loopback: true), host ?? "nil")
        }
        XCTAssertTrue(HTTPAccess.hostAllowed("evil.example", loopback: false), "off loopback, reading needs the token anyway")
    }

    func testAPostsOriginMustBeThisServer() {
        XCTAssertTrue(HTTPAccess.originAllowed(origin: nil, host: "127.0.0.1:9300"))
        XCTAssertTrue(HTTPAccess.originAllowed(origin: "http://127.0.0.1:9300", host: "127.0.0.1:9300"))
        XCTAssertFalse(HTTPAccess.originAllowed(origin: "http://evil.example", host: "127.0.0.1:9300"))
        XCTAssertFalse(HTTPAccess.originAllowed(origin: "http://127.0.0.1:9301", host: "127.0.0.1:9300"))
        XCTAssertFalse(HTTPAccess.originAllowed(origin: "null", host: "127.0.0.1:9300"))
        XCTAssertFalse(HTTPAccess.originAllowed(origin: "http://x", host: nil))
    }

    func testACommandBodyIsReadByTheSocketsParser() throws {
        guard case .failure(let notJSON) = CommandEndpoint.request(from: Data("nope{".utf8)) else { return XCTFail("not JSON is refused") }
        XCTAssertTrue(notJSON.message.hasPrefix("not JSON: "), notJSON.message)
        XCTAssertEqual(notJSON.message, "not JSON: Invalid value around character 1.", "the parser's words, where")
        guard case .success(let request?) = CommandEndpoint.request(from: Data(#"{"command":["publish","off"]}"#.utf8)) else { return XCTFail() }
        XCTAssertEqual(try request.words.get(), ["publish", "off"])
        guard case .success(let skip?) = CommandEndpoint.request(from: Data(#"{"command":"skip"}"#.utf8)) else { return XCTFail() }
        XCTAssertEqual(try skip.words.get(), ["skip"])
        guard case .success(nil) = CommandEndpoint.request(from: Data("[1,2]".utf8)) else { return XCTFail("JSON that is no object: the socket's answer") }
    }

    func testThePathsAndWhoMayUseThem() {
        XCTAssertEqual(HTTPRoute(path: "/api/command")?.need, .command)
        XCTAssertEqual(HTTPRoute(path: "/api/command")?.method, "POST")
        XCTAssertEqual(HTTPRoute(path: "/metrics")?.need, .open)
        for path in ["/api/status", "/api/schedule", "/api/events", "/api/log", "/api/outputs/history"] {
            XCTAssertEqual(HTTPRoute(path: path)?.need, .read, path)
            XCTAssertEqual(HTTPRoute(path: path)?.method, "GET", path)
        }
        XCTAssertNil(HTTPRoute(path: "/api/nope"))
        XCTAssertEqual(HTTPRoute.count(nil, default: 24, in: 1...168), 24)
        XCTAssertEqual(HTTPRoute.count("6", default: 24, in: 1...168), 6)
        XCTAssertNil(HTTPRoute.count("0", default: 24, in: 1...168))
        XCTAssertNil(HTTPRoute.count("x", default: 24, in: 1...168))
        XCTAssertTrue(MediaPub.HTTPServer.isLoopback("127.0.0.1"))
        XCTAssertTrue(MediaPub.HTTPServer.isLoopback("::1"))
        XCTAssertFalse(MediaPub.HTTPServer.isLoopback("0.0.0.0"))
        XCTAssertFalse(MediaPub.HTTPServer.isLoopback("192.168.1.2"))
    }
}

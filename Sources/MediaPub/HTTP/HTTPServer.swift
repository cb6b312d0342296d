import Foundation

/// `--http ADDR:PORT` (alias `--metrics`): `/metrics`, `/health`, the operator's page
/// and its JSON API over HTTP (docs/http.md), loopback unless an address is given,
/// served by libsoup on a thread of its own (`SoupLoop`, one GMainContext): clients
/// are served side by side, never one at a time, and none waits for the run.
/// Bounded on every path: a request must be read within `requestTimeout` of its
/// start, a connection idle for `idleTimeout` is closed, at most `maxConnections`
/// requests are read at once (a new one closes the oldest that is still sending its
/// request) and at most as many wait for their answer (one more is answered 503), at most
/// `maxStreams` event streams are open, soup caps a request head at
/// 64 KiB and a body over `maxBody` is refused unread.
public final class HTTPServer: Sendable {
    /// Where it listens, `ADDR:PORT` (the address filled in when `spec` had none).
    public let address: String
    private let loop: SoupLoop

    struct Limits: Sendable {
        var requestTimeout: Double
        var idleTimeout: UInt32
        var maxConnections: Int
        var maxStreams: Int
        var maxBody: Int
        /// Seconds between an event stream's heartbeat comments.
        var heartbeat: Double
        static let standard = Limits(requestTimeout: 5, idleTimeout: 30, maxConnections: 64, maxStreams: 64,
                                     maxBody: 64 * 1024, heartbeat: 15)
    }

    /// `spec` is `PORT`, `:PORT` or `ADDR:PORT`; `flag` names the option in errors.
    init(spec: String, flag: String = "--http", limits: Limits = .standard, site: HTTPSite) throws {
        let (host, port) = try HTTPServer.parse(spec, flag: flag)
        address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        loop = SoupLoop(limits: limits, site: site, loopback: HTTPServer.isLoopback(host))
        if let failure = loop.start(host: host, port: port) {
            throw MediaPubError.usage("\(flag) \(spec): \(failure)")
        }
    }

    deinit { stop() }

    /// Stops serving: open connections (event streams included) are closed, the thread is joined.
    public func stop() { loop.stop() }

    /// The host and port of `PORT`, `:PORT`, `ADDR:PORT` or `[IPv6]:PORT`.
    static func parse(_ spec: String, flag: String) throws -> (host: String, port: UInt16) {
        var host = "127.0.0.1", portText = spec
        if let colon = spec.lastIndex(of: ":") {
            let given = String(spec[..<colon])
            portText = String(spec[spec.index(after: colon)...])
            if !given.isEmpty {
                host = given.hasPrefix("[") && given.hasSuffix("]") ? String(given.dropFirst().dropLast()) : given
            }
        }
        guard let port = UInt16(portText), port > 0 else {
            throw MediaPubError.usage("\(flag) \(spec.clipped()): expected ADDR:PORT, e.g. 127.0.0.1:9300")
        }
        return (host, port)
    }

    /// Whether `host` is a loopback address (127.0.0.0/8, ::1): reading is open there (docs/http.md).
    static func isLoopback(_ host: String) -> Bool {
        host == "::1" || host == "localhost" || host.split(separator: ".").first == "127"
    }
}

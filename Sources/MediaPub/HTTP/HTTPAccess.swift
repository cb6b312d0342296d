/// Who may do what over HTTP (docs/http.md): the decision for one request, as a pure
/// value, from what the request is, where the server listens and the token it gave.
enum HTTPAccess: Equatable, Sendable {
    case allowed
    /// 401: no token, or a wrong one. `failure`: a wrong token, which counts towards 429.
    case unauthorized(failure: Bool)
    /// 403, with why.
    case forbidden(String)
    /// 429: this address gave too many wrong tokens.
    case tooManyFailures

    /// What a path needs.
    enum Need: Equatable, Sendable {
        /// `/metrics`, `/health`: anyone who reaches the port.
        case open
        /// The page, status, schedule, events, log, history.
        case read
        /// `POST /api/command`.
        case command
    }

    /// The token a request gave, as checked against the one configured.
    enum Presented: Equatable, Sendable {
        case none, right, wrong
    }

    /// How the server is set up (docs/http.md, Who may do what).
    struct Policy: Equatable, Sendable {
        /// The server listens on a loopback address: reading is open.
        var loopback: Bool
        /// `http.public_read: true`: reading is open on any address.
        var publicRead: Bool
        /// A token is configured (`--http-token-env`, `http.token_file`).
        var hasToken: Bool
    }

    static let noTokenForCommands = "commands over HTTP need a token: start mediapub with --http-token-env NAME or set http.token_file (docs/http.md)"
    static let noTokenForReading = "reading over HTTP off loopback needs a token (--http-token-env NAME or http.token_file) or http.public_read: true (docs/http.md)"

    static func decide(_ need: Need, policy: Policy, presented: Presented, blocked: Bool) -> HTTPAccess {
        switch need {
        case .open: return .allowed
        case .read where policy.loopback || policy.publicRead: return .allowed
        case .read, .command:
            guard policy.hasToken else { return .forbidden(need == .command ? noTokenForCommands : noTokenForReading) }
            if blocked { return .tooManyFailures }
            switch presented {
            case .right: return .allowed
            case .none: return .unauthorized(failure: false)
            case .wrong: return .unauthorized(failure: true)
            }
        }
    }

    /// On a loopback server, what a reader names in `Host` must be a loopback name
    /// (`localhost`, `127.x.x.x`, `[::1]`, with or without a port): a page elsewhere whose
    /// name an attacker made resolve to 127.0.0.1 (DNS rebinding) names its own host, and
    /// would otherwise read the run as if it were the operator's (docs/http.md).
    static func hostAllowed(_ host: String?, loopback: Bool) -> Bool {
        guard loopback else { return true }
        guard var name = host?.lowercased(), !name.isEmpty else { return false }
        if name.hasPrefix("[") {
            guard let close = name.firstIndex(of: "]") else { return false }
            let rest = name[name.index(after: close)...]
            guard rest.isEmpty || (rest.first == ":" && rest.dropFirst().allSatisfy(\.isNumber) && rest.count > 1) else { return false }
            return name[...close] == "[::1]"
        }
        if let colon = name.lastIndex(of: ":") {
            let port = name[name.index(after: colon)...]
            guard !port.isEmpty, port.allSatisfy(\.isNumber) else { return false }
            name = String(name[..<colon])
        }
        if name == "localhost" { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { p in UInt8(p) != nil }
    }

    /// A POST's `Origin` must be this server's own (`http://HOST` of its `Host` header);
    /// one without `Origin` (curl, a script) is taken: it carries no cookie to ride on.
    static func originAllowed(origin: String?, host: String?) -> Bool {
        guard let origin else { return true }
        guard let host, !host.isEmpty else { return false }
        return origin == "http://\(host)" || origin == "https://\(host)"
    }
}

import Foundation

extension SecretMask {
    /// The secret parts of a URL: an RTMP stream key, a password in the user
    /// info, and the values of secret query parameters.
    static func secrets(of url: String) -> [String] {
        // Parsed by hand: SRT stream ids start with `#!::`, which URL parsers take for a fragment.
        var found: [String] = []
        guard let schemeEnd = url.range(of: "://") else { return [] }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        let rest = url[schemeEnd.upperBound...]
        let beforeQuery = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let query = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).dropFirst().first ?? ""
        let authority = beforeQuery.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        if let at = authority.lastIndex(of: "@") {
            let userinfo = authority[..<at]
            if let colon = userinfo.firstIndex(of: ":") { found.append(String(userinfo[userinfo.index(after: colon)...])) }
        }
        if scheme.hasPrefix("rtmp") {
            let segments = beforeQuery.split(separator: "/").dropFirst()  // host, then app, then key…
            if segments.count > 1 { found.append(segments.dropFirst().joined(separator: "/")) }
        }
        let secretNames: Set<String> = ["passphrase", "streamid", "key", "token", "password", "secret", "auth", "sig"]
        for pair in query.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            if kv.count == 2, secretNames.contains(kv[0].lowercased()) {
                found.append(String(kv[1]))
                if let decoded = String(kv[1]).removingPercentEncoding, decoded != String(kv[1]) { found.append(decoded) }
            }
        }
        return found.filter { $0.count >= 2 }.sorted { $0.count > $1.count }
    }

    /// `text` (an error from a sink, say) with the URL and its secrets masked.
    static func scrub(_ text: String, secretsOf url: String) -> String {
        var out = text.replacingOccurrences(of: url, with: mask(url: url))
        for secret in secrets(of: url) { out = out.replacingOccurrences(of: secret, with: "****") }
        return out
    }
}

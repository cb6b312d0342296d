import Foundation

extension SecretMask {
    /// The secret parts of a URL: an RTMP stream key, a password in the user
    /// info, and the values of secret query parameters.
    static func secrets(of url: String) -> [String] {
        var found: [String] = []
        guard let parts = URLComponents(string: url) else { return [] }
        if let password = parts.password, !password.isEmpty { found.append(password) }
        if let scheme = parts.scheme?.lowercased(), scheme.hasPrefix("rtmp") {
            let segments = parts.path.split(separator: "/")
            if segments.count > 1 { found.append(segments.dropFirst().joined(separator: "/")) }
        }
        let secretNames: Set<String> = ["passphrase", "streamid", "key", "token", "password", "secret", "auth", "sig"]
        for item in parts.queryItems ?? [] where secretNames.contains(item.name.lowercased()) {
            if let value = item.value, !value.isEmpty { found.append(value) }
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

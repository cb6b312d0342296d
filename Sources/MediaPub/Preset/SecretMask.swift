import Foundation

/// Hides stream keys, passphrases and credentials in URLs before they are
/// shown anywhere (logs, events, status, error messages, resolved presets).
public enum SecretMask {
    public static let mask = "****"

    /// Query parameters whose values are secrets.
    public static let secretParameters: Set<String> = [
        "passphrase", "streamid", "key", "token", "password", "secret", "auth", "sig",
    ]

    /// - `rtmp(s)://host[:port]/app/KEY...` → `rtmp(s)://host[:port]/app/****`
    ///   (everything after the app segment, query included)
    /// - `user:pass@` (or `token@`) in any URL → `****@`
    /// - query parameters named in `secretParameters` → `name=****`
    /// - `file://`, `null:`, plain paths: unchanged
    public static func mask(url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        if scheme == "file" || scheme == "null" { return url }
        let afterScheme = url[schemeEnd.upperBound...]

        // authority = up to the first / ? #
        let authorityEnd = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? afterScheme.endIndex
        var authority = String(afterScheme[..<authorityEnd])
        var rest = String(afterScheme[authorityEnd...])
        if let at = authority.lastIndex(of: "@") {
            authority = mask + authority[at...]
        }

        if scheme == "rtmp" || scheme == "rtmps" {
            // rest: /app/key...  → keep /app/, mask what follows
            let body = rest.hasPrefix("/") ? rest.dropFirst() : Substring(rest)
            if let slash = body.firstIndex(of: "/") {
                let app = body[..<slash]
                let tail = body[body.index(after: slash)...]
                if !tail.isEmpty {
                    rest = "/" + app + "/" + mask
                }
            }
            return "\(url[..<schemeEnd.upperBound])\(authority)\(rest)"
        }

        // query parameters
        if let q = rest.firstIndex(of: "?") {
            let head = rest[..<q]
            // no fragment split: SRT stream ids start with "#!::"
            let query = rest[rest.index(after: q)...]
            let params = query.split(separator: "&", omittingEmptySubsequences: false).map { param -> String in
                guard let eq = param.firstIndex(of: "=") else { return String(param) }
                let name = param[..<eq].lowercased()
                let value = param[param.index(after: eq)...]
                if secretParameters.contains(name), !value.isEmpty {
                    return param[...eq] + mask
                }
                return String(param)
            }
            rest = head + "?" + params.joined(separator: "&")
        }
        return "\(url[..<schemeEnd.upperBound])\(authority)\(rest)"
    }
}

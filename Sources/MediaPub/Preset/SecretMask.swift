import Foundation

/// Hides stream keys, passphrases and credentials in URLs before they are
/// shown anywhere (logs, events, status, error messages, resolved presets).
public enum SecretMask {
    public static let mask = "****"

    /// Query parameters whose values are secrets, by name (any case); besides
    /// these, any parameter whose name contains one of `secretWords`.
    public static let secretParameters: Set<String> = [
        "passphrase", "streamid", "key", "token", "password", "secret", "auth", "sig",
        "access_token", "api_key", "apikey", "signature",
        "x-amz-signature", "x-amz-credential", "x-amz-security-token",
    ]

    /// A query parameter whose name (any case) contains one of these holds a
    /// credential: `access_token`, `X-Amz-Signature`, `client_secret`, `apiKey`…
    public static let secretWords = ["token", "secret", "key", "sig", "auth", "pass", "cred"]

    /// Whether the query parameter `name` (as written, percent-encoded or not) holds a secret.
    public static func isSecret(parameter name: some StringProtocol) -> Bool {
        let lower = (String(name).removingPercentEncoding ?? String(name)).lowercased()
        return secretParameters.contains(lower) || secretWords.contains { lower.contains($0) }
    }

    /// Schemes whose URLs carry secrets only in their user info and query: any
    /// other (`rtmp`, `rtmps`, and a scheme mistyped, `rmtp://h/app/KEY`) may
    /// carry a key in its path, which is masked past its first segment.
    static let pathIsPlain: Set<String> = ["http", "https", "srt", "hls", "file", "null", "testsrc", "memory", "icecast"]

    /// Schemes that keep a stream key in their path, and which a plain path beginning
    /// `NAME//` probably meant: `rtmp//h/app/KEY`, `rmtp//h/app/KEY`.
    static let keyInPathSchemes = ["rtmp", "rtmps"]

    /// The key-in-path scheme that `text` meant when it begins `NAME//` with no colon and
    /// NAME is one of them, or one slip away from one (a letter missing, extra, wrong or
    /// two swapped: `rmtp`, `rtp`, `rtmpp`); nil for any other text.
    public static func mistypedKeyScheme(_ text: String) -> String? {
        guard let slashes = text.range(of: "//") else { return nil }
        let name = text[..<slashes.lowerBound].lowercased()
        guard name.count >= 2, name.allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
        if keyInPathSchemes.contains(name) { return name }
        // `rtmsp` is one slip from both: the one of its own length (a swap) is meant.
        return keyInPathSchemes.filter { oneSlipApart(Array(name), Array($0)) }
            .min { abs($0.count - name.count) < abs($1.count - name.count) }
    }

    /// Whether `a` and `b` are equal or differ by one insertion, deletion, substitution or
    /// transposition of neighbours (optimal string alignment distance at most 1).
    private static func oneSlipApart(_ a: [Character], _ b: [Character]) -> Bool {
        if a == b { return true }
        if abs(a.count - b.count) > 1 { return false }
        var i = 0
        while i < min(a.count, b.count), a[i] == b[i] { i += 1 }
        if a.count == b.count {
            if a[(i + 1)...] == b[(i + 1)...] { return true }   // substitution
            return i + 1 < a.count && a[i] == b[i + 1] && a[i + 1] == b[i] && a[(i + 2)...] == b[(i + 2)...]
        }
        let (long, short) = a.count > b.count ? (a, b) : (b, a)
        return long[(i + 1)...] == short[i...]                  // one letter more or less
    }

    /// A URL cut where its secrets can sit: `scheme://`, the authority (up to the
    /// first `/` or `?`) and the rest. No fragment split: SRT stream ids start with "#!::".
    private struct Parts {
        let prefix: Substring       // "scheme://"
        let scheme: String          // lower-cased
        let authority: String
        let rest: String

        /// `scheme://…`, and `rtmp//…`, `rmtp//…` (the colon forgotten: `mistypedKeyScheme`).
        init?(_ url: String) {
            let schemeEnd: Range<String.Index>
            if let found = url.range(of: "://") {
                schemeEnd = found
            } else if let found = url.range(of: "//"), SecretMask.mistypedKeyScheme(url) != nil {
                schemeEnd = found
            } else {
                return nil
            }
            prefix = url[..<schemeEnd.upperBound]
            scheme = url[..<schemeEnd.lowerBound].lowercased()
            let afterScheme = url[schemeEnd.upperBound...]
            let authorityEnd = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? afterScheme.endIndex
            authority = String(afterScheme[..<authorityEnd])
            rest = String(afterScheme[authorityEnd...])
        }

        /// Whether a key may sit in the path: RTMP, and any scheme not known to keep it in the query.
        var keyInPath: Bool { !pathIsPlain.contains(scheme) }

        /// `/app/key…` of an RTMP URL: the app (nil when a lone segment may be the key
        /// itself, `rtmp://host/KEY`) and everything after it, query included.
        var rtmpAppAndKey: (app: Substring?, key: Substring)? {
            let body = rest.hasPrefix("/") ? rest.dropFirst() : Substring(rest)
            guard !body.isEmpty else { return nil }
            guard let end = body.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return (nil, body) }
            let key = body[end...].drop { $0 == "/" }
            let app = body[..<end]
            if app.isEmpty { return (nil, body) }
            return key.isEmpty ? (nil, app) : (app, key)
        }

        /// The query's `name=value` pairs, in order (values may be empty).
        var queryPairs: [(name: Substring, value: Substring?)] {
            guard let q = rest.firstIndex(of: "?") else { return [] }
            return rest[rest.index(after: q)...].split(separator: "&", omittingEmptySubsequences: false).map { param in
                guard let eq = param.firstIndex(of: "=") else { return (param, nil) }
                return (param[..<eq], param[param.index(after: eq)...])
            }
        }
    }

    /// The secret parts of a URL, as they appear in it: an RTMP stream key, the
    /// password in the user info, and the values of secret query parameters.
    /// Used to scrub texts that quote a URL in pieces (sink and libcurl errors).
    static func secrets(of url: String) -> [String] {
        guard let parts = Parts(url) else { return [] }
        var found: [String] = []
        if let at = parts.authority.lastIndex(of: "@") {
            let userinfo = parts.authority[..<at]
            // `user:password`, or a token alone (`icecast://PASSWORD@host`); decoded too, as a sink is given it.
            let secret = userinfo.firstIndex(of: ":").map { String(userinfo[userinfo.index(after: $0)...]) } ?? String(userinfo)
            found.append(secret)
            if let decoded = secret.removingPercentEncoding, decoded != secret { found.append(decoded) }
        }
        if parts.keyInPath, let key = parts.rtmpAppAndKey?.key {
            found.append(String(key))
        }
        for (name, value) in parts.queryPairs where isSecret(parameter: name) {
            guard let value, !value.isEmpty else { continue }
            found.append(String(value))
            if let decoded = String(value).removingPercentEncoding, decoded != String(value) { found.append(decoded) }
        }
        return found.filter { $0.count >= 2 }.sorted { $0.count > $1.count }
    }

    /// `text` (an error from a sink, say) with the URL and each of its secrets masked.
    static func scrub(_ text: String, secretsOf url: String) -> String {
        var out = text.replacingOccurrences(of: url, with: SecretMask.mask(url: url))
        for secret in Set(secrets(of: url).flatMap(spellings)).sorted(by: { $0.count > $1.count }) {
            out = out.replacingOccurrences(of: secret, with: mask)
        }
        return out
    }

    /// A webhook as logs, errors and the resolved preset show it: `scheme://host[:port]`
    /// and `/…` for whatever else it had (Slack, Discord and Teams hooks carry their
    /// secret in the path; others in the query, user info or fragment). Not a
    /// `scheme://` URL: its host-like start the same way, user info dropped.
    public static func mask(webhook url: String) -> String {
        let prefix: Substring, authority: Substring, rest: Substring
        if let parts = Parts(url) {
            (prefix, authority, rest) = (parts.prefix, Substring(parts.authority), Substring(parts.rest))
        } else {
            let end = url.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? url.endIndex
            (prefix, authority, rest) = ("", url[..<end], url[end...])
        }
        let host = (authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] } ?? authority)
            .prefix { $0 != "#" }
        let hidden = !rest.isEmpty || host.count != authority.count
        return prefix + host + (hidden ? "/…" : "")
    }

    /// - `rtmp(s)://host[:port]/app/KEY...` → `rtmp(s)://host[:port]/app/****`
    ///   (everything after the app segment, query included); a lone segment may be
    ///   the key itself (`rtmp://host/KEY`): `rtmp://host/****`. The same for any
    ///   scheme but http(s), srt, hls, file, null, testsrc and memory, so a mistyped
    ///   one (`rmtp://h/app/KEY`, `rtmp//h/app/KEY`, `rmtp//h/app/KEY`) shows no key either
    /// - `user:pass@` (or `token@`) in any URL → `****@`
    /// - secret query parameters (`isSecret(parameter:)`) → `name=****`
    /// - `rtmp:` without slashes, or another such scheme with one (`rmtp:/h/KEY`):
    ///   nothing after the scheme is shown
    /// - `file://`, `null:`, plain paths: unchanged (but a secret query parameter's value)
    public static func mask(url: String) -> String {
        guard let parts = Parts(url) else {
            // Not scheme://…: whatever its shape, no key or secret parameter is shown.
            if let scheme = PathResolution.scheme(of: url), !pathIsPlain.contains(scheme),
               ["rtmp", "rtmps"].contains(scheme) || url.dropFirst(scheme.count + 1).hasPrefix("/") {
                return url.prefix(scheme.count + 1) + mask
            }
            return maskQuery(url)
        }
        let scheme = parts.scheme
        if scheme == "null" { return url }
        // A file URL has no secret but in a query it should not have (`?token=`).
        if scheme == "file" { return maskQuery(url) }
        var authority = parts.authority
        var rest = parts.rest
        if let at = authority.lastIndex(of: "@") {
            authority = mask + authority[at...]
        }

        if parts.keyInPath {
            // rest: /app/key...  → keep /app/, mask what follows (query included)
            if let (app, _) = parts.rtmpAppAndKey { rest = "/" + (app.map { $0 + "/" } ?? "") + mask }
            return "\(parts.prefix)\(authority)\(rest)"
        }
        return "\(parts.prefix)\(authority)\(maskQuery(rest))"
    }

    /// `text` with the values of its secret query parameters masked.
    private static func maskQuery(_ text: String) -> String {
        guard let q = text.firstIndex(of: "?") else { return text }
        let params = text[text.index(after: q)...].split(separator: "&", omittingEmptySubsequences: false).map { param -> String in
            guard let eq = param.firstIndex(of: "=") else { return String(param) }
            let name = param[..<eq], value = param[param.index(after: eq)...]
            return isSecret(parameter: name) && !value.isEmpty ? "\(name)=\(mask)" : String(param)
        }
        return text[..<q] + "?" + params.joined(separator: "&")
    }
}

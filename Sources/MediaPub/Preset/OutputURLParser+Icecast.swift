import Foundation

extension OutputURL {
    /// `icecast://[user:]PASSWORD@host[:port]/mount[.mp3|.aac|.ogg|.opus][?codec=…&name=…&description=…&genre=…]`:
    /// the user is `source` when not written, the port 8000; the codec comes from
    /// `?codec=`, else from the mount's extension (docs/presets.md, Outputs).
    static func icecast(_ url: String) -> Result<IcecastEndpoint, Refusal> {
        let (authority, path, query) = split(url, scheme: "icecast")
        let (host, port) = hostPort(authority)
        guard !host.isEmpty else { return .failure(.icecastHost) }
        if let port, port == nil || !(1...65535).contains(port!) { return .failure(.icecastPort) }
        let mount = String(path.prefix { $0 != "#" })
        guard mount.count > 1 else { return .failure(.icecastMount) }
        // The user info, as written before the host: `user:password` or a password alone.
        let body = url.dropFirst("icecast://".count).prefix { $0 != "/" && $0 != "?" }
        guard let at = body.lastIndex(of: "@") else { return .failure(.icecastPassword) }
        let userinfo = body[..<at]
        let (user, password): (Substring, Substring)
        if let colon = userinfo.firstIndex(of: ":") {
            (user, password) = (userinfo[..<colon], userinfo[userinfo.index(after: colon)...])
        } else {
            (user, password) = ("source", userinfo)
        }
        guard !password.isEmpty else { return .failure(.icecastPassword) }
        func decoded(_ s: Substring) -> String { String(s).removingPercentEncoding ?? String(s) }
        var codecName = (mount as NSString).pathExtension
        var endpoint = IcecastEndpoint(host: host, port: port.flatMap { $0 } ?? IcecastEndpoint.defaultPort,
                                       mount: decoded(Substring(mount)), user: user.isEmpty ? "source" : decoded(user),
                                       password: decoded(password), codec: .mp3)
        guard IcecastEndpoint.isServable(mount: endpoint.mount) else { return .failure(.icecastMountPath(endpoint.mount)) }
        for item in query.split(separator: "&") {
            let kv = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = kv.count > 1 ? decoded(kv[1]).replacingOccurrences(of: "+", with: " ") : ""
            switch kv[0].lowercased() {
            case "codec": codecName = value
            case "name": endpoint.name = value
            case "description": endpoint.description = value
            case "genre": endpoint.genre = value
            default: return .failure(.icecastParameter(String(kv[0])))
            }
        }
        guard let codec = IcecastEndpoint.codec(named: codecName) else { return .failure(.icecastCodec(codecName)) }
        endpoint.codec = codec
        return .success(endpoint)
    }
}

import Foundation

extension OutputURL {
    /// How a plain path is taken: as written (a URL given in code), or made absolute
    /// against `base` (`~/` against HOME) and written `file://…` (preset, `--output`).
    enum PathContext {
        case asWritten
        case resolved(base: String, environment: [String: String])
    }

    /// The one parser of output URLs: what `text` names, with host, port and
    /// parameters taken apart for the publisher, or why it names nothing.
    static func parse(_ url: String, paths: PathContext) -> Result<OutputURL, Refusal> {
        func file(_ path: String, as text: String) -> Result<OutputURL, Refusal> {
            let ext = (path as NSString).pathExtension.lowercased()
            guard fileExtensions.contains(ext) else { return .failure(.container(ext)) }
            // A `%` strftime does not know is copied into the name as written: never meant.
            if let field = RecordingNamePattern.fields(path).first(where: { !$0.known }) { return .failure(.fileField(field.text)) }
            return .success(OutputURL(text: text, target: .file(path: path, container: ext)))
        }
        if url.isEmpty { return .failure(.empty) }
        guard let scheme = PathResolution.urlScheme(of: url, known: schemes) else {
            // `rtmp//h/app/KEY.flv` is a URL that lost its colon, not a folder named rtmp.
            if let meant = SecretMask.mistypedKeyScheme(url) { return .failure(.mistypedScheme(meant)) }
            guard case .resolved(let base, let environment) = paths else { return file(url, as: url) }
            let path = PathResolution.absolutePath(url, base: base, environment: environment)
            return file(path, as: "file://" + path)
        }
        let hasSlashes = url.dropFirst(scheme.count + 1).hasPrefix("//")
        switch scheme {
        case "null":
            return .success(OutputURL(text: url, target: .null))
        case "hls":
            return hls(url).map { OutputURL(text: url, target: .hls($0)) }
        case "file":
            guard let path = PathResolution.localPath(of: url), path.hasPrefix("/") else { return .failure(.relativeFile) }
            return file(path, as: url)
        case "rtmp", "rtmps":
            guard hasSlashes else { return .failure(.noSlashes(scheme: scheme)) }
            return rtmp(url, scheme: scheme).map { OutputURL(text: url, target: .rtmp($0)) }
        case "srt":
            guard hasSlashes else { return .failure(.noSlashes(scheme: scheme)) }
            return srt(url).map { OutputURL(text: url, target: .srt($0)) }
        case "icecast":
            guard hasSlashes else { return .failure(.noSlashes(scheme: scheme)) }
            return icecast(url).map { OutputURL(text: url, target: .icecast($0)) }
        default:
            return .failure(.unsupported)
        }
    }

    /// `rtmp[s]://[user@]host[:port]/app/key`: port 1935 (rtmps 443) when not written.
    private static func rtmp(_ url: String, scheme: String) -> Result<NetworkEndpoint, Refusal> {
        let (authority, path, _) = split(url, scheme: scheme)
        let (host, port) = hostPort(authority)
        guard !host.isEmpty else { return .failure(.rtmpHost(scheme: scheme)) }
        if let port, port == nil || !(1...65535).contains(port!) { return .failure(.rtmpPort) }
        guard path.split(separator: "/").count >= 2 else { return .failure(.rtmpPath(scheme: scheme)) }
        return .success(NetworkEndpoint(url: url, host: host, port: port.flatMap { $0 } ?? (scheme == "rtmps" ? 443 : 1935)))
    }

    /// The passphrase lengths libsrt takes (SRTO_PASSPHRASE); any other and every
    /// connect fails, so it is refused before the run.
    static let srtPassphraseBytes = 10...79

    /// `srt://host:port?mode=caller|listener&latency=…&passphrase=…&streamid=…`.
    private static func srt(_ url: String) -> Result<NetworkEndpoint, Refusal> {
        let (authority, _, query) = split(url, scheme: "srt")
        let (host, port) = hostPort(authority)
        guard let p = port, let port = p, (1...65535).contains(port) else { return .failure(.srtPort) }
        var parameters: [String: String] = [:]
        for item in query.split(separator: "&") {
            let kv = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = kv.count > 1 ? String(kv[1]) : ""
            parameters[kv[0].lowercased()] = value.removingPercentEncoding ?? value
        }
        let endpoint = NetworkEndpoint(url: url, host: host, port: port, parameters: parameters)
        let mode = parameters["mode"]?.lowercased()
        if let mode, mode != "caller", mode != "listener" { return .failure(.srtMode) }
        if host.isEmpty, !endpoint.isListener { return .failure(.srtHost) }
        if let latency = parameters["latency"], Int(latency).map({ $0 >= 0 }) != true { return .failure(.srtLatency) }
        if let passphrase = parameters["passphrase"], !passphrase.isEmpty,
           !OutputURL.srtPassphraseBytes.contains(passphrase.utf8.count) {
            return .failure(.srtPassphrase(length: passphrase.utf8.count))
        }
        return .success(endpoint)
    }

    /// `hls:///dir/index.m3u8?segment=4s&window=6`.
    private static func hls(_ url: String) -> Result<HLS, Refusal> {
        guard url.lowercased().hasPrefix("hls:///") else { return .failure(.hlsRelative) }
        let rest = url.dropFirst("hls://".count)
        let path = String(rest.prefix { $0 != "?" })
        let query = rest.drop { $0 != "?" }.dropFirst()
        guard (path as NSString).pathExtension.lowercased() == "m3u8" else { return .failure(.hlsPlaylist) }
        // hlssink2 reads its segments' path as a printf format, and strftime patterns are for files.
        guard !path.contains("%") else { return .failure(.hlsPercent) }
        var hls = HLS(playlist: path, segment: 4, window: 6)
        for item in query.split(separator: "&") {
            let kv = item.split(separator: "=", maxSplits: 1).map(String.init)
            let value = kv.count > 1 ? kv[1] : ""
            switch kv[0].lowercased() {
            case "segment":
                guard let d = MediaTime.parseDuration(value), d == d.rounded(), d >= 1, d <= 60 else { return .failure(.hlsSegment(value)) }
                hls.segment = Int(d)
            case "window":
                guard let n = Int(value), (3...100).contains(n) else { return .failure(.hlsWindow(value)) }
                hls.window = n
            default:
                return .failure(.hlsParameter(kv[0]))
            }
        }
        return .success(hls)
    }

    /// authority, path, query of `scheme://authority/path?query` (no fragment:
    /// SRT stream ids start with "#!::").
    static func split(_ url: String, scheme: String) -> (String, String, String) {
        var rest = Substring(url.dropFirst(scheme.count + 3))
        var query = Substring("")
        if let q = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: q)...]
            rest = rest[..<q]
        }
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[..<slash]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        return (String(authority), String(rest[slash...]), String(query))
    }

    /// host and port (`.some(nil)` when a port is written but is not a number).
    static func hostPort(_ authority: String) -> (host: String, port: Int??) {
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            let host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { return (host, .some(Int(after.dropFirst()))) }
            return (host, nil)
        }
        if let colon = authority.lastIndex(of: ":") {
            return (String(authority[..<colon]), .some(Int(authority[authority.index(after: colon)...])))
        }
        return (authority, nil)
    }
}

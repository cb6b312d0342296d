import Foundation

/// An output URL, parsed once (SPEC §5): `rtmp://host[:port]/app/key`,
/// `rtmps://...`, `srt://host:port?mode=caller|listener&...`, `hls:///abs/index.m3u8`,
/// `file:///abs/x.mp4`, `null://` / `null:`, or a plain path (made `file://` +
/// absolute path). The preset and `--output` hold it; the publisher reads its target.
/// Error messages only ever show the masked URL.
public struct OutputURL: Equatable, Sendable {
    /// The URL as resolved (what status shows masked and the resolved preset writes).
    public let text: String
    /// What it names and how it is carried.
    let target: OutputTarget

    init(text: String, target: OutputTarget) {
        self.text = text
        self.target = target
    }

    /// A URL given in code (a `Preset` or `RunOptions` made without the loader):
    /// taken as written, refused as `OutputTarget` refuses it.
    public init(_ text: String) throws {
        self.init(text: text, target: try OutputTarget(text))
    }

    /// The `null:` output.
    public static let null = OutputURL(text: "null:", target: .null)

    public struct Failure: Error, Equatable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    public static let fileExtensions = ["mp4", "mkv", "flv", "ts"]

    /// The URL schemes an output may have; any other name followed by `:/` is refused,
    /// anything else is a file path.
    public static let schemes: Set<String> = ["rtmp", "rtmps", "srt", "null", "file", "hls"]

    /// `hls:///dir/index.m3u8?segment=4s&window=6`: the playlist path, the segment
    /// length (whole seconds, 1s..60s) and how many segments the playlist lists (3..100).
    public struct HLS: Equatable, Sendable {
        public var playlist: String
        public var segment: Int
        public var window: Int
    }

    /// The HLS output `url` names, or why it is not one.
    public static func hls(_ url: String) -> Result<HLS, Failure> {
        let shown = "\"\(SecretMask.mask(url: url))\""
        guard url.lowercased().hasPrefix("hls:///") else {
            return .failure(Failure(message: "\(shown) needs an absolute path: hls:///path/index.m3u8?segment=4s&window=6"))
        }
        let rest = url.dropFirst("hls://".count)
        let path = String(rest.prefix { $0 != "?" })
        let query = rest.drop { $0 != "?" }.dropFirst()
        guard (path as NSString).pathExtension.lowercased() == "m3u8" else {
            return .failure(Failure(message: "\(shown): the playlist must end in .m3u8"))
        }
        var hls = HLS(playlist: path, segment: 4, window: 6)
        for item in query.split(separator: "&") {
            let kv = item.split(separator: "=", maxSplits: 1).map(String.init)
            let value = kv.count > 1 ? kv[1] : ""
            switch kv[0].lowercased() {
            case "segment":
                guard let d = MediaTime.parseDuration(value), d == d.rounded(), d >= 1, d <= 60 else {
                    return .failure(Failure(message: "\(shown): segment must be whole seconds from 1s to 60s, got \(value.clipped())"))
                }
                hls.segment = Int(d)
            case "window":
                guard let n = Int(value), (3...100).contains(n) else {
                    return .failure(Failure(message: "\(shown): window must be a number of segments from 3 to 100, got \(value.clipped())"))
                }
                hls.window = n
            default:
                return .failure(Failure(message: "\(shown): unknown parameter \(kv[0].clipped()) (segment, window)"))
            }
        }
        return .success(hls)
    }

    public static func resolve(_ text: String, base: String,
                               environment: [String: String] = [:]) -> Result<OutputURL, Failure> {
        let url = text.trimmingCharacters(in: .whitespaces)
        let shown = "\"\(SecretMask.mask(url: url))\""
        func fail(_ why: String) -> Result<OutputURL, Failure> { .failure(Failure(message: why)) }
        func file(_ path: String, as text: String) -> Result<OutputURL, Failure> {
            let ext = (path as NSString).pathExtension.lowercased()
            guard fileExtensions.contains(ext) else { return fail("\(shown): a file output must end in .mp4, .mkv, .flv or .ts") }
            return .success(OutputURL(text: text, target: .file(path: path, container: ext)))
        }
        if url.isEmpty { return fail("an output needs a url") }

        guard let scheme = PathResolution.urlScheme(of: url, known: schemes) else {
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
            guard let path = PathResolution.localPath(of: url), path.hasPrefix("/") else {
                return fail("\(shown) needs an absolute path: file:///path/name.mp4")
            }
            return file(path, as: url)
        case "rtmp", "rtmps":
            // Not shown: without the slashes the stream key cannot be told apart to be masked.
            guard hasSlashes else { return fail("\(scheme):… is not a URL like \(scheme)://host/app/key") }
            let (authority, path, _) = split(url, scheme: scheme)
            let host = hostPort(authority).host
            let segments = path.split(separator: "/")
            guard !host.isEmpty else { return fail("\(shown) has no host: \(scheme)://host/app/key") }
            if let port = hostPort(authority).port, port == nil || !(1...65535).contains(port!) {
                return fail("\(shown) has a bad port")
            }
            guard segments.count >= 2 else {
                return fail("\(shown) needs an app and a stream key: \(scheme)://host/app/key")
            }
            return .success(OutputURL(text: url, target: .rtmp(url)))
        case "srt":
            guard hasSlashes else { return fail("srt:… is not a URL like srt://host:port") }
            let (authority, _, query) = split(url, scheme: scheme)
            let hp = hostPort(authority)
            guard let p = hp.port, let port = p, (1...65535).contains(port) else {
                return fail("\(shown) needs host:port, like srt://host:9000")
            }
            _ = port
            var params: [String: String] = [:]
            for item in query.split(separator: "&") {
                let kv = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                params[kv[0].lowercased()] = kv.count > 1 ? String(kv[1]) : ""
            }
            let mode = params["mode"]?.lowercased()
            if let mode, mode != "caller", mode != "listener" {
                return fail("\(shown): mode must be caller or listener")
            }
            if hp.host.isEmpty, mode != "listener" {
                return fail("\(shown) needs a host (or mode=listener)")
            }
            if let latency = params["latency"], Int(latency).map({ $0 >= 0 }) != true {
                return fail("\(shown): latency must be a whole number of milliseconds")
            }
            return .success(OutputURL(text: url, target: .srt(url)))
        default:
            return fail("\(shown) is not a supported output (rtmp://, rtmps://, srt://, hls://, file://, null:// or a file path)")
        }
    }

    /// authority, path, query of `scheme://authority/path?query` (no fragment:
    /// SRT stream ids start with "#!::").
    private static func split(_ url: String, scheme: String) -> (String, String, String) {
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
    private static func hostPort(_ authority: String) -> (host: String, port: Int??) {
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

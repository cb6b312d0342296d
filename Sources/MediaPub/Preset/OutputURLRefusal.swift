extension OutputURL {
    /// Why a string is not an output URL, told two ways: as a preset or `--output`
    /// says it (the URL quoted and masked, `Failure`) and as a URL given in code is
    /// refused (`MediaPubError`, "output URL: why").
    enum Refusal: Error, Equatable {
        case empty
        /// `rtmp:`, `rtmps:` or `srt:` without `//`: the stream key cannot be told apart to be masked.
        case noSlashes(scheme: String)
        case unsupported
        /// A plain path that begins like a URL whose colon or scheme was mistyped (`rmtp//h/app/KEY`).
        case mistypedScheme(String)
        /// `file:` with a relative path.
        case relativeFile
        /// A file whose extension names no container we write.
        case container(String)
        /// A `%` in a file's path that starts no strftime field (`%N`).
        case fileField(String)
        case hlsRelative, hlsPlaylist, hlsPercent
        case hlsSegment(String), hlsWindow(String), hlsParameter(String)
        case rtmpHost(scheme: String), rtmpPort, rtmpPath(scheme: String)
        case srtPort, srtMode, srtHost, srtLatency
        /// A passphrase outside libsrt's 10–79 bytes, by its length (never its text).
        case srtPassphrase(length: Int)
        case icecastHost, icecastPort, icecastMount, icecastPassword
        case icecastCodec(String), icecastParameter(String)
        /// A mount no server takes as a source's (an empty, `.` or `..` part, a control character), as decoded.
        case icecastMountPath(String)

        /// What a preset or `--output` says of `url`.
        func message(_ url: String) -> String {
            let shown = "\"\(SecretMask.mask(url: url))\""
            switch self {
            case .empty: return "an output needs a url"
            case .noSlashes(let scheme):
                return scheme == "srt" ? "srt:… is not a URL like srt://host:port" : "\(scheme):… is not a URL like \(scheme)://host/app/key"
            case .container: return "\(shown): a file output must end in .mp4, .mkv, .flv, .ts, .m4a, .mp3, .aac, .ogg or .opus"
            case .unsupported: return "\(shown) is \(problem.why)"
            default:
                let (why, colon) = problem
                return shown + (colon ? ": " : " ") + why
            }
        }

        /// What a URL given in code is refused with.
        func error(_ url: String) -> MediaPubError {
            switch self {
            case .empty: return .usage("an output needs a url")
            case .noSlashes(let scheme): return .usage("output \(scheme):… is not a URL like \(scheme)://host/…")
            case .container(let ext):
                let known = OutputURL.fileExtensions.map { "." + $0 }
                return .output(url, "unsupported container .\(ext) (use \(known.dropLast().joined(separator: ", ")) or \(known.last ?? ""))")
            case .hlsRelative, .hlsPlaylist, .hlsPercent, .hlsSegment, .hlsWindow, .hlsParameter: return .usage("output " + message(url))
            default: return .output(url, problem.why)
            }
        }

        /// The problem as it reads after the URL, and whether a preset's message puts a colon between.
        private var problem: (why: String, colon: Bool) {
            switch self {
            case .empty, .noSlashes, .container: return ("", false)   // worded in full above
            case .unsupported: return ("not a supported output (rtmp://, rtmps://, srt://, hls://, icecast://, file://, null:// or a file path)", false)
            case .mistypedScheme(let meant): return ("looks like a mistyped \(meant):// URL (a file path has no // after its first folder)", false)
            case .relativeFile: return ("needs an absolute path: file:///path/name.mp4", false)
            case .hlsRelative: return ("needs an absolute path: hls:///path/index.m3u8?segment=4s&window=6", false)
            case .hlsPlaylist: return ("the playlist must end in .m3u8", true)
            case .hlsPercent: return ("an HLS path takes no % (strftime patterns are for file outputs)", true)
            case .fileField(let field):
                return ("\(field.clipped()) is not a strftime field (%Y %m %d %H %M %S …; a % itself is written %%)", true)
            case .hlsSegment(let value): return ("segment must be whole seconds from 1s to 60s, got \(value.clipped())", true)
            case .hlsWindow(let value): return ("window must be a number of segments from 3 to 100, got \(value.clipped())", true)
            case .hlsParameter(let name): return ("unknown parameter \(name.clipped()) (segment, window)", true)
            case .rtmpHost(let scheme): return ("has no host: \(scheme)://host/app/key", false)
            case .rtmpPort: return ("has a bad port", false)
            case .rtmpPath(let scheme): return ("needs an app and a stream key: \(scheme)://host/app/key", false)
            case .srtPort: return ("needs host:port, like srt://host:9000", false)
            case .srtMode: return ("mode must be caller or listener", true)
            case .srtHost: return ("needs a host (or mode=listener)", false)
            case .srtLatency: return ("latency must be a whole number of milliseconds", true)
            case .icecastHost: return ("has no host: icecast://source:PASSWORD@host:8000/mount.mp3", false)
            case .icecastPort: return ("has a bad port", false)
            case .icecastMount: return ("needs a mount: icecast://source:PASSWORD@host:8000/mount.mp3", false)
            case .icecastPassword: return ("needs the source password: icecast://source:PASSWORD@host:8000/mount.mp3", false)
            case .icecastCodec(let value):
                return ("names no codec (\(value.clipped())): end the mount in .mp3, .aac, .ogg or .opus, or give ?codec=mp3|aac|opus", true)
            case .icecastParameter(let name): return ("unknown parameter \(name.clipped()) (codec, name, description, genre)", true)
            case .icecastMountPath(let mount):
                return ("the mount \(mount.clipped()) has an empty, . or .. part, or a control character: Icecast refuses such a path without a word", true)
            case .srtPassphrase(let length):
                return ("passphrase must be \(OutputURL.srtPassphraseBytes.lowerBound) to \(OutputURL.srtPassphraseBytes.upperBound) characters (libsrt refuses others), got \(length)", true)
            }
        }
    }
}

import Foundation

/// What an output URL names, and how it is carried (SPEC §5).
enum OutputTarget: Equatable {
    case file(path: String, container: String)
    case rtmp(String)
    case srt(String)
    case null

    init(_ url: String) throws {
        let scheme = PathResolution.urlScheme(of: url, known: OutputURL.schemes)
        let hasSlashes = scheme.map { url.dropFirst($0.count + 1).hasPrefix("//") } ?? false
        switch scheme {
        case "rtmp", "rtmps", "srt":
            // Not shown: without the slashes the stream key cannot be told apart to be masked.
            guard hasSlashes else { throw MediaPubError.usage("output \(scheme!):… is not a URL like \(scheme!)://host/…") }
            self = scheme == "srt" ? .srt(url) : .rtmp(url)
        case "null":
            self = .null
        case nil, "file":
            guard let path = scheme == nil ? url : PathResolution.localPath(of: url), path.hasPrefix("/") || scheme == nil else {
                throw MediaPubError.output(url, "needs an absolute path: file:///path/name.mp4")
            }
            let ext = (path as NSString).pathExtension.lowercased()
            guard OutputURL.fileExtensions.contains(ext) else {
                let known = OutputURL.fileExtensions.map { "." + $0 }
                throw MediaPubError.output(url, "unsupported container .\(ext) (use \(known.dropLast().joined(separator: ", ")) or \(known.last!))")
            }
            self = .file(path: path, container: ext)
        default:
            throw MediaPubError.output(url, "not a supported output (rtmp://, rtmps://, srt://, file://, null:// or a file path)")
        }
    }

    /// A fragmented MP4 (our MP4 recordings): pictures are delayed by their presentation time only.
    var delaysByCompositionOffset: Bool {
        if case .file(_, "mp4") = self { return true }
        return false
    }

    var isNetwork: Bool {
        switch self {
        case .rtmp, .srt: return true
        default: return false
        }
    }

    /// The path with strftime patterns (%Y%m%d-%H%M%S) expanded at `date`.
    static func expand(_ pattern: String, at date: Date = Date()) -> String {
        guard pattern.contains("%") else { return pattern }
        var t = time_t(date.timeIntervalSince1970)
        var parts = tm()
        localtime_r(&t, &parts)
        var out = [Int8](repeating: 0, count: 4096)
        let n = strftime(&out, out.count, pattern, &parts)
        return n > 0 ? String(cString: out) : pattern
    }

    /// The muxer and sink of a gst-launch description; the muxer is named `mux`.
    /// A file is written at `location` (the file this run created), else at its path.
    func muxAndSink(location: String? = nil) -> String {
        switch self {
        case .file(let path, let container):
            let mux: String
            switch container {
            // Fragmented (a fragment a second): what is on disk plays at every moment, a
            // kill -9 or a power cut loses at most the last fragment.
            case "mp4": mux = "mp4mux name=mux fragment-duration=1000"
            case "mkv": mux = "matroskamux name=mux"
            case "flv": mux = "flvmux name=mux streamable=false"
            default: mux = "mpegtsmux name=mux"
            }
            return "\(mux) ! filesink name=sink sync=false location=\(GStreamer.quote(location ?? path))"
        case .rtmp(let url):
            return "flvmux name=mux streamable=true ! rtmp2sink name=sink sync=false async-connect=false location=\(GStreamer.quote(url))"
        case .srt(let url):
            // srtsink reads its URI as a URI, where `#` starts a fragment: a stream id in the
            // access-control syntax (`#!::r=live/cam1,u=alice`) would be cut off and never sent.
            // Escaped, srtsink unescapes it back to what was written.
            let escaped = url.replacingOccurrences(of: "#", with: "%23")
            return "mpegtsmux name=mux alignment=7 ! srtsink name=sink sync=false wait-for-connection=false uri=\(GStreamer.quote(escaped))"
        case .null:
            return "mpegtsmux name=mux ! fakesink name=sink sync=false"
        }
    }
}

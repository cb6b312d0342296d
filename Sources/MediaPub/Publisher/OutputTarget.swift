import Foundation

/// What an output URL names, and how it is carried (docs/presets.md, Outputs); made by the
/// OutputURL parser only.
enum OutputTarget: Equatable, Sendable {
    case file(path: String, container: String)
    case rtmp(NetworkEndpoint)
    case srt(NetworkEndpoint)
    case hls(OutputURL.HLS)
    /// Sound only, to an Icecast mount (OutputTarget+Audio.swift).
    case icecast(IcecastEndpoint)
    case null

    /// A fragmented MP4 (our MP4 recordings): pictures are delayed by their presentation time only.
    var delaysByCompositionOffset: Bool {
        if case .file(_, let container) = self { return container == "mp4" || container == "m4a" }
        return false
    }

    /// Where a stream links into the muxer: hlssink2's and splitmuxsink's pads are
    /// named (`split`: a file cut into segments), the muxers' are found by caps.
    func muxPad(video: Bool, split: Bool = false) -> String {
        if case .hls = self { return video ? "mux.video" : "mux.audio" }
        if split { return video ? "mux.video" : "mux.audio_%u" }
        return "mux."
    }

    /// Watched as it comes (network outputs, HLS): the run is realtime (paced to the wall clock) by default.
    var wantsRealtime: Bool {
        if case .hls = self { return true }
        return isNetwork
    }

    var isNetwork: Bool {
        switch self {
        case .rtmp, .srt, .icecast: return true
        default: return false
        }
    }

    /// What names an HLS run's segments (`index-20261202-101010-00001.ts`): its start.
    static let hlsRunStamp = "%Y%m%d-%H%M%S"

    /// The path with strftime patterns (%Y%m%d-%H%M%S) expanded at `date`.
    static func expand(_ pattern: String, at date: Date = Date()) -> String {
        guard pattern.contains("%") else { return pattern }
        var t = time_t(date.timeIntervalSince1970)
        var parts = tm()
        localtime_r(&t, &parts)
        var out = [Int8](repeating: 0, count: 4096)
        let n = strftime(&out, out.count, pattern, &parts)
        return n > 0 ? String(nulTerminated: out) : pattern
    }

    /// The muxer and sink of a gst-launch description; the muxer is named `mux`.
    /// A file is written at `location` (the file this run created), else at its path;
    /// for HLS, `location` is the run's stamp that names its segments. A file cut into
    /// `segment`s is written by splitmuxsink, whose `format-location` names each file.
    func muxAndSink(location: String? = nil, segment: TimeInterval? = nil) -> String {
        switch self {
        case .file(let path, let container):
            let (factory, properties) = Self.fileMuxer(container)
            if let segment {
                // Each file its own muxer with the same settings; a file is finished in the
                // background (async-finalize) while the next one is written. Its filesink
                // writes unbuffered too (the enum by number: filesink's type is not loaded yet).
                let ns = UInt64((segment * 1e9).rounded())
                return "splitmuxsink name=mux async-finalize=true max-size-time=\(ns) muxer-factory=\(factory)"
                    + (properties.isEmpty ? "" : " muxer-properties=\(GStreamer.quote((["properties"] + properties).joined(separator: ",")))")
                    + " sink-properties=\(GStreamer.quote("properties,buffer-mode=\(Self.unbuffered)"))"
            }
            return "\(([factory, "name=mux"] + properties).joined(separator: " ")) ! filesink name=sink sync=false "
                + "buffer-mode=\(Self.unbuffered) location=\(GStreamer.quote(location ?? path))"
        case .rtmp(let endpoint):
            // rtmp2sink connects (handshake, `connect`, `publish`) as the pipeline starts, while
            // the sources load and the encoder makes its first frame, not at the first frame.
            // Its location (the stream key) is set once it is made (`secretProperties`).
            return "flvmux name=mux streamable=true ! rtmp2sink name=sink sync=false async-connect=true"
        case .srt(let endpoint):
            // Its URI (passphrase, stream id) is set once it is made (`secretProperties`).
            // A caller whose connection breaks fails (the output reconnects with a new
            // connection, which starts on a keyframe): srtsink's own reconnect went on
            // mid-GOP, with no word of it, and its statistics stood still meanwhile.
            let reconnect = endpoint.isListener ? "" : " auto-reconnect=false"
            return "mpegtsmux name=mux alignment=7 ! srtsink name=sink sync=false wait-for-connection=false\(reconnect)"
        case .hls(let hls):
            // hlssink2 cuts at keyframes near each target duration, writes the playlist to a
            // hidden file that replaces it once whole (HLSPlaylistStaging), deletes segments
            // that left the window, and ends the playlist (#EXT-X-ENDLIST) at EOS. Segment names carry the run's start, so a run never
            // overwrites an earlier run's segments.
            // hlssink2 reads `location` as a printf format (the segment's number): a `%` of
            // the path is written `%%` (the parser refuses one; this is for any other way in).
            let folder = (hls.playlist as NSString).deletingLastPathComponent.replacingOccurrences(of: "%", with: "%%")
            let stem = ((hls.playlist as NSString).lastPathComponent as NSString).deletingPathExtension
                .replacingOccurrences(of: "%", with: "%%")
            let run = (location ?? "0").replacingOccurrences(of: "%", with: "%%")
            return "hlssink2 name=mux target-duration=\(hls.segment) playlist-length=\(hls.window) max-files=\(hls.window + 2) "
                + "send-keyframe-requests=false playlist-location=\(GStreamer.quote(HLSPlaylistStaging.path(for: hls.playlist))) "
                + "location=\(GStreamer.quote("\(folder)/\(stem)-\(run)-%05d.ts"))"
        case .icecast(let endpoint):
            return endpoint.sinkDescription(socket: nil)   // linked to the parser itself (`directAudioSink`)
        case .null:
            return "mpegtsmux name=mux ! fakesink name=sink sync=false"
        }
    }

    /// What a connection sets on its elements once the pipeline is made, never in its
    /// description (GStreamer's debug log prints descriptions, escaped in ways a mask may
    /// not know): (element name, property, value). An Icecast mount's password, an RTMP
    /// location (its stream key), an SRT URI (its passphrase and stream id). An AAC mount
    /// has none: its `sink` is an fdsink on a socket mediapub logged in itself (IcecastLogin).
    var secretProperties: [(element: String, property: String, value: String)] {
        switch self {
        case .icecast(let endpoint) where endpoint.codec == .aac: return []
        case .icecast(let endpoint): return [("sink", "password", endpoint.password)]
        case .rtmp(let endpoint): return [("sink", "location", endpoint.url)]
        case .srt(let endpoint):
            // srtsink reads its URI as a URI, where `#` starts a fragment: a stream id in the
            // access-control syntax (`#!::r=live/cam1,u=alice`) would be cut off and never sent.
            // Escaped, srtsink unescapes it back to what was written.
            return [("sink", "uri", endpoint.url.replacingOccurrences(of: "#", with: "%23"))]
        default: return []
        }
    }

    /// filesink's `buffer-mode` `unbuffered`: what the muxer makes goes to the file as it
    /// comes, not through a 64 KB buffer (at 64 kb/s that buffer was 8 s, at 16 kb/s 32 s,
    /// lost to a kill -9; a file just begun stayed empty).
    static let unbuffered = 2

    /// A file's muxer and its properties, by container. What each writes is on disk as it
    /// is written (`unbuffered`): a kill -9 loses at most the last second (docs/presets.md).
    private static func fileMuxer(_ container: String) -> (factory: String, properties: [String]) {
        switch container {
        // Fragmented (a fragment a second, cut by time whatever the keyframe interval):
        // what is on disk plays at every moment, a kill -9 loses at most the last fragment.
        // Matroska, FLV and MPEG-TS write each frame as it comes.
        // FLV as a stream: its header holds no duration nor index to fill in at the end
        // (flvmux otherwise writes a 24-hour duration and a filler string there, which a
        // file cut by a kill -9 keeps); a reader takes the duration from the last tag.
        case "mp4", "m4a": return ("mp4mux", ["fragment-duration=1000"])
        // Matroska from zero: each file of a cut recording starts at its own zero, not at
        // the output time it was cut at (docs/presets.md, Outputs).
        case "mkv": return ("matroskamux", ["offset-to-zero=true"])
        case "flv": return ("flvmux", ["streamable=true"])
        default: return ("mpegtsmux", [])
        }
    }
}

import Foundation

/// What an output takes of the run's sound and pictures: audio-only recordings
/// (`.m4a`, `.mp3`, `.aac`, `.ogg`, `.opus`) and Icecast mounts take the sound
/// only, in their codec (docs/presets.md, Outputs).
extension OutputTarget {
    /// The recording containers that hold sound only.
    static let audioOnlyContainers: Set<String> = ["m4a", "mp3", "aac", "ogg", "opus"]

    /// The containers a file cannot be cut into segments in: a bare stream has no muxer to
    /// begin each file with, and splitmuxsink cannot make oggmux again for a second file.
    static let unsegmentableContainers: Set<String> = ["mp3", "aac", "ogg", "opus"]

    /// Whether the output takes the run's pictures (when it has any).
    var carriesVideo: Bool {
        switch self {
        case .file(_, let container): return !Self.audioOnlyContainers.contains(container)
        case .icecast: return false
        default: return true
        }
    }

    /// The encoded sound the output takes.
    var audioCodec: AudioCodec {
        switch self {
        case .file(_, "mp3"): return .mp3
        case .file(_, "ogg"), .file(_, "opus"): return .opus
        case .icecast(let endpoint): return endpoint.codec
        default: return .aac
        }
    }

    /// The sink the sound's parser links to itself, when no muxer takes it by pad: an
    /// Icecast mount, and a file that is the stream itself (`.mp3`, ADTS `.aac`) or one
    /// `oggmux` pages (none of them cut into segments).
    /// An AAC mount's sink writes to `socket` (IcecastLogin.swift).
    func directAudioSink(location: String?, socket: Int32? = nil) -> String? {
        switch self {
        case .icecast(let endpoint):
            return endpoint.sinkDescription(socket: socket)
        case .file(let path, let container) where Self.unsegmentableContainers.contains(container):
            let sink = "filesink name=sink sync=false buffer-mode=\(Self.unbuffered) location=\(GStreamer.quote(location ?? path))"
            switch container {
            case "aac": return "audio/mpeg,stream-format=adts ! " + sink
            case "mp3": return sink
            default: return "oggmux name=mux ! " + sink
            }
        default:
            return nil
        }
    }
}

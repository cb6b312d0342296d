import Foundation

/// Where an Icecast output sends its sound, as its URL was parsed:
/// `icecast://source:PASSWORD@host:8000/mount.mp3?name=…&description=…&genre=…`
/// (docs/presets.md, Outputs). The password is sent to the server only: anything
/// shown masks it (SecretMask, user info).
struct IcecastEndpoint: Equatable, Sendable {
    var host: String
    var port: Int
    /// The mount point, with its leading `/` (`/radio.mp3`).
    var mount: String
    var user: String
    var password: String
    var codec: AudioCodec
    /// The stream's name, description and genre, as the server lists them (empty: not given).
    var name = ""
    var description = ""
    var genre = ""

    /// Whether a server takes `mount` (decoded, with its leading `/`) as a source's: Icecast
    /// refuses a path with an empty, `.` or `..` part before any login, closing the
    /// connection without a word (and libshout tries again at once, dozens of times a
    /// second); a control character cannot go in a request line.
    static func isServable(mount: String) -> Bool {
        let parts = mount.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        return mount.hasPrefix("/") && !parts.contains { $0.isEmpty || $0 == "." || $0 == ".." }
            && !mount.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }

    /// Icecast's port when none is written.
    static let defaultPort = 8000

    /// The codec a mount's extension names (`.mp3`, `.aac`, `.ogg`, `.opus`), or `?codec=`'s value.
    static func codec(named name: String) -> AudioCodec? {
        switch name.lowercased() {
        case "mp3": return .mp3
        case "aac": return .aac
        case "ogg", "opus": return .opus
        default: return nil
        }
    }

    /// The stream's type, as the server is told it.
    var contentType: String {
        switch codec {
        case .mp3: return "audio/mpeg"
        case .aac: return "audio/aac"
        case .opus: return "application/ogg"
        }
    }

    /// The sink and what goes before it: shout2send for MP3 and Opus; for AAC, `fdsink` on
    /// `socket`, which we logged in (IcecastLogin.swift): libshout (2.4) knows MP3, Ogg and
    /// WebM only, and its MP3 parser cut ADTS up.
    func sinkDescription(socket: Int32?) -> String {
        var parts: [String] = []
        switch codec {
        case .mp3: break
        case .aac:
            return "audio/mpeg,stream-format=adts ! fdsink name=sink sync=false fd=\(socket ?? -1)"
        case .opus: parts.append("oggmux name=mux")
        }
        // Paced by the run, not by the sink: the appsrc before it drops (leaky) what a slow server cannot take.
        // The password is set once the element is made (OutputTarget.secretProperties), never written here.
        var sink = "shout2send name=sink sync=false protocol=http ip=\(GStreamer.quote(host)) port=\(port) "
            + "mount=\(GStreamer.quote(mount)) username=\(GStreamer.quote(user))"
        if !name.isEmpty { sink += " streamname=\(GStreamer.quote(name))" }
        if !description.isEmpty { sink += " description=\(GStreamer.quote(description))" }
        if !genre.isEmpty { sink += " genre=\(GStreamer.quote(genre))" }
        parts.append(sink)
        return parts.joined(separator: " ! ")
    }

    /// For the watch's socket lookup (TCPAcknowledged): the server's host and port.
    var server: NetworkEndpoint { NetworkEndpoint(url: "", host: host, port: port) }
}

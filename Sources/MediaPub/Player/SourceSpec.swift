import Foundation

/// What a `source:` string names, and the GStreamer elements that read it.
enum SourceSpec: Equatable {
    /// `testsrc:?pattern=smpte&freq=440`: a test pattern and a sine tone; never ends.
    case testPattern(pattern: String, frequency: Double)
    /// Anything uridecodebin reads: file://, http(s)://, HLS playlists.
    case uri(String, isImage: Bool)

    /// The patterns videotestsrc draws, by name (its number works too); empty when it is not installed.
    static let testPatterns: [String] = Element(factory: "videotestsrc")?.enumNicks("pattern") ?? []

    static let imageExtensions: Set<String> = ["png", "jpg", "jpeg", "bmp", "gif", "webp"]

    /// `streams`: an SRT or RTMP stream too (a live feed's, docs/presets.md, live); a
    /// player's source, standby and `ctl load` are not one.
    init(_ source: String, streams: Bool = false) throws {
        if source.hasPrefix("testsrc:") {
            var pattern = "smpte", frequency = 440.0
            let query = source.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
            for pair in query.split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
                guard kv.count == 2 else { throw MediaPubError.badSource(source, "expected key=value in \(pair)") }
                switch kv[0] {
                case "pattern":
                    pattern = kv[1]
                    let known = SourceSpec.testPatterns
                    guard known.isEmpty || known.contains(pattern) || Int(pattern).map({ (0..<known.count).contains($0) }) == true else {
                        throw MediaPubError.badSource(source, "unknown pattern \"\(pattern)\" (one of \(known.joined(separator: ", ")))")
                    }
                case "freq":
                    guard let f = Double(kv[1]), f > 0, f < 24000 else { throw MediaPubError.badSource(source, "freq must be 1..24000 Hz") }
                    frequency = f
                default: throw MediaPubError.badSource(source, "unknown testsrc option \(kv[0])")
                }
            }
            self = .testPattern(pattern: pattern, frequency: frequency)
            return
        }
        let uri: String
        if source.hasPrefix("memory:") {
            // Bytes given to the player: the name only tells the kind.
            let name = String(source.dropFirst("memory:".count))
            self = .uri("memory:" + name, isImage: SourceSpec.imageExtensions.contains((name as NSString).pathExtension.lowercased()))
            return
        } else if source.hasPrefix("/") {
            uri = URL(fileURLWithPath: source).absoluteString
        } else if let scheme = PathResolution.sourceScheme(of: source), source.contains("://"),
                  ["file", "http", "https"].contains(scheme) || (streams && LiveFeedConfig.streamSchemes.contains(scheme)) {
            uri = source
        } else {
            throw MediaPubError.badSource(source, "not a path, file://, http(s):// or testsrc: source")
        }
        let path = URL(string: uri)?.path ?? uri
        let ext = (path as NSString).pathExtension.lowercased()
        // A list of sources is not one (an .m3u8 is HLS: a stream, played as a source).
        if SourceSpec.playlistExtensions.contains(ext) {
            throw MediaPubError.badSource(source, SourceSpec.playlistProblem((path as NSString).lastPathComponent))
        }
        self = .uri(uri, isImage: SourceSpec.imageExtensions.contains(ext))
    }

    /// An SRT or RTMP stream (a live feed's): it may wait for its sender before it has anything.
    var isStream: Bool {
        guard case .uri(let uri, _) = self else { return false }
        return LiveFeedConfig.streamSchemes.contains(PathResolution.scheme(of: uri) ?? "")
    }

    static let playlistExtensions: Set<String> = ["m3u", "pls"]

    static func playlistProblem(_ name: String) -> String { "\(name) is a playlist file: use playlist.file" }

    /// The problem with a local file that is a playlist by its content (a PLS, or an
    /// M3U that is not HLS), whatever its name; nil for anything else. Reads only
    /// the start of a regular file (never a FIFO or a device).
    static func playlistContentProblem(path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
              let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let head = String(decoding: (try? handle.read(upToCount: 4096)) ?? Data(), as: UTF8.self)
            .trimmingCharacters(in: CharacterSet(charactersIn: "\u{FEFF}").union(.whitespacesAndNewlines))
        let name = (path as NSString).lastPathComponent
        if head.lowercased().hasPrefix("[playlist]") { return playlistProblem(name) }
        if head.hasPrefix("#EXTM3U"), !head.contains("#EXT-X-") { return playlistProblem(name) }
        return nil
    }

    /// A local file's path, when the source is one.
    var localPath: String? {
        guard case .uri(let uri, _) = self, uri.hasPrefix("file://") else { return nil }
        return URL(string: uri)?.path
    }

    /// Throws, naming `source`, when it is a local file that is missing or unreadable.
    func checkReadable(_ source: String) throws {
        guard let path = localPath else { return }
        TimelineThread.assertOff("checking a file")
        if let problem = SourceSpec.playlistContentProblem(path: path) { throw MediaPubError.badSource(source, problem) }
        guard !FileManager.default.isReadableFile(atPath: path) else { return }
        throw MediaPubError.sourceFailed(source, FileManager.default.fileExists(atPath: path) ? "cannot read the file (permissions?)" : "no such file")
    }

}

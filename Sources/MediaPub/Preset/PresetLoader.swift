import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a preset (SPEC §3): YAML via libyaml, `${VAR}` interpolation,
/// `--set` overrides, then typed validation that collects every problem.
public enum PresetLoader {
    /// Loads and validates the preset file at `file`. Throws `PresetError`
    /// (all problems at once; "cannot read: ..." at line 0 for an unreadable file).
    public static func load(file: String, environment: [String: String] = ProcessInfo.processInfo.environment,
                            overrides: [String] = []) throws -> Preset {
        let text = try readText(file)
        let cwd = FileManager.default.currentDirectoryPath
        let absolute = PathResolution.absolutePath(file, base: cwd, environment: environment)
        let base = (absolute as NSString).deletingLastPathComponent
        return try parse(yaml: text, file: file, baseDirectory: base.isEmpty ? "/" : base,
                         environment: environment, overrides: overrides)
    }

    /// Validates preset text; `file` names it in problems and gives the default
    /// name; relative paths resolve against `baseDirectory`.
    public static func parse(yaml: String, file: String, baseDirectory: String,
                             environment: [String: String], overrides: [String]) throws -> Preset {
        var decoder = PresetDecoder(file: file, base: baseDirectory, environment: environment)
        return try decoder.decode(yaml, overrides: overrides)
    }

    /// The largest preset file read: 1 MiB (a preset is a page of text; this
    /// refuses `/dev/zero`, a log or a video given by mistake before it fills memory).
    public static let maxPresetBytes = 1 << 20

    static func readText(_ file: String) throws -> String {
        func fail(_ why: String) -> PresetError {
            PresetError(problems: [PresetProblem(file: file, line: 0, key: "preset", message: why)])
        }
        let bytes: [UInt8]
        switch BoundedFile.contents(file, limit: maxPresetBytes) {
        case .success(let b): bytes = b
        case .failure(.tooLarge):
            throw fail("larger than \(maxPresetBytes) bytes (1 MiB), the most a preset may be; is it the right file?")
        case .failure(let e): throw fail("cannot read: \(e)")
        }
        guard let text = String(bytes: bytes, encoding: .utf8) else { throw fail("cannot read: not UTF-8 text") }
        return text
    }
}

/// Reads a whole file, a FIFO or a device, but never more than a limit: at
/// most `limit + 1` bytes are read, so `/dev/zero` or an endless pipe is
/// refused at once instead of filling memory.
enum BoundedFile {
    enum Failure: Error, Equatable, CustomStringConvertible {
        case tooLarge
        case system(Int32)
        var description: String {
            switch self {
            case .tooLarge: return "too large"
            case .system(let code): return String(cString: strerror(code))
            }
        }
    }

    static func contents(_ path: String, limit: Int) -> Result<[UInt8], Failure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.system(errno)) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while bytes.count <= limit {
            let want = min(chunk.count, limit + 1 - bytes.count)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, want) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(.system(errno))
            }
            if n == 0 { return .success(bytes) }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return .failure(.tooLarge)
    }
}

/// Turns the YAML tree into a `Preset`, reporting every problem with its
/// file, line and key path.
struct PresetDecoder {
    let file: String
    let base: String
    let environment: [String: String]
    private(set) var problems: [PresetProblem] = []

    init(file: String, base: String, environment: [String: String]) {
        self.file = file
        self.base = base
        self.environment = environment
    }

    // MARK: - top level

    mutating func decode(_ text: String, overrides: [String]) throws -> Preset {
        var root: YAMLNode
        do {
            root = try YAMLNode.parse(text)
        } catch let e as YAMLSyntaxError {
            throw PresetError(problems: [PresetProblem(file: file, line: e.line, key: "yaml", message: e.message)])
        }
        guard root.pairs != nil else {
            throw PresetError(problems: [PresetProblem(file: file, line: root.line, key: "preset",
                                                       message: "expected a mapping of settings, got \(root.kindName)")])
        }
        root = root.interpolated(environment: environment, path: "") { node, key, message in
            report(node, key, message)
        }
        let overrideProblems = PresetOverrides.apply(overrides, to: &root)

        let preset = decodeRoot(root)
        problems += overrideProblems
        guard problems.isEmpty else {
            // preset-file problems by line (stable), then the --set ones
            let ordered = problems.enumerated().sorted { a, b in
                let fa = a.element.file == file ? 0 : 1, fb = b.element.file == file ? 0 : 1
                if fa != fb { return fa < fb }
                if a.element.line != b.element.line { return a.element.line < b.element.line }
                return a.offset < b.offset
            }.map(\.element)
            throw PresetError(problems: ordered)
        }
        return preset
    }

    private mutating func decodeRoot(_ root: YAMLNode) -> Preset {
        let f = fields(root, "", schema: .root)

        var name = defaultName()
        if let n = f["name"], let s = string(n, "name") {
            if isName(s, extra: ".") { name = s } else {
                report(n, "name", "\"\(s.clipped())\" is not a valid name (letters, digits, '.', '_', '-')")
            }
        }

        var video: VideoConfig?
        if let v = f["video"], !v.isNull { video = decodeVideo(v) }

        var audio = AudioConfig()
        if let a = f["audio"], !a.isNull { audio = decodeAudio(a) }

        let players = decodePlayers(f["players"], root: root, hasVideo: video != nil)

        var standby = StandbyConfig()
        if let s = f["standby"], !s.isNull { standby = decodeStandby(s) }

        let publishing = f["publishing"].flatMap { bool($0, "publishing") } ?? true

        var outputs: [OutputConfig] = []
        if let o = f["outputs"], !o.isNull { outputs = decodeOutputs(o) }

        var reconnect = ReconnectConfig()
        if let r = f["reconnect"], !r.isNull { reconnect = decodeReconnect(r) }

        var stop = StopConfig()
        if let s = f["stop"], !s.isNull {
            let sf = fields(s, "stop", schema: PresetSchema.root.child("stop")!)
            if let a = sf["after"], !a.isNull, let d = duration(a, "stop.after") {
                if d <= 0 { report(a, "stop.after", "must be more than 0s") }
                stop.after = d
            }
            if let a = sf["at_end"], let b = bool(a, "stop.at_end") { stop.atEnd = b }
        }

        let monitor = f["monitor"].flatMap { bool($0, "monitor") } ?? false

        var events = EventsConfig()
        if let e = f["events"], !e.isNull {
            let ef = fields(e, "events", schema: PresetSchema.root.child("events")!)
            if let w = ef["webhook"], !w.isNull, let s = string(w, "events.webhook") {
                let sch = PathResolution.scheme(of: s)
                if (sch == "http" || sch == "https") && s.contains("://") && s.count > (sch!.count + 3) {
                    events.webhook = s
                } else {
                    report(w, "events.webhook", "\"\(SecretMask.mask(webhook: s))\" is not an http:// or https:// URL")
                }
            }
        }

        return Preset(name: name, video: video, audio: audio, players: players, standby: standby,
                      publishing: publishing, outputs: outputs, reconnect: reconnect, stop: stop,
                      monitor: monitor, events: events, file: file, baseDirectory: base)
    }

    private func defaultName() -> String {
        let last = (file as NSString).lastPathComponent
        let stem = (last as NSString).deletingPathExtension
        let cleaned = String(stem.map { c -> Character in
            (c.isASCII && (c.isLetter || c.isNumber)) || c == "." || c == "_" || c == "-" ? c : "-"
        })
        return cleaned.isEmpty ? "mediapub" : cleaned
    }

    // MARK: - sections

    private mutating func decodeVideo(_ node: YAMLNode) -> VideoConfig {
        var v = VideoConfig()
        let f = fields(node, "video", schema: PresetSchema.root.child("video")!)
        if let s = f["size"], let text = string(s, "video.size") {
            if let (w, h) = parseSize(text) {
                v.width = w
                v.height = h
            } else {
                report(s, "video.size", "\"\(text.clipped())\" is not a size like 1280x720 (or 480p, 720p, 1080p, 1440p, 2160p)")
            }
            for k in ["width", "height"] where f[k] != nil {
                report(f[k]!, "video.\(k)", "give either size or width/height, not both")
            }
        }
        if let n = f["width"], let w = int(n, "video.width") { v.width = w }
        if let n = f["height"], let h = int(n, "video.height") { v.height = h }
        let sizeNode = f["size"] ?? f["width"] ?? f["height"]
        if let sizeNode {
            let key = f["size"] != nil ? "video.size" : (f["width"] != nil ? "video.width" : "video.height")
            if !VideoConfig.widthRange.contains(v.width) {
                report(f["width"] ?? sizeNode, f["width"] != nil ? "video.width" : key,
                       "width \(v.width) is out of range \(VideoConfig.widthRange.lowerBound)..\(VideoConfig.widthRange.upperBound)")
            } else if v.width % 2 != 0 {
                report(f["width"] ?? sizeNode, f["width"] != nil ? "video.width" : key, "width \(v.width) must be even")
            }
            if !VideoConfig.heightRange.contains(v.height) {
                report(f["height"] ?? sizeNode, f["height"] != nil ? "video.height" : key,
                       "height \(v.height) is out of range \(VideoConfig.heightRange.lowerBound)..\(VideoConfig.heightRange.upperBound)")
            } else if v.height % 2 != 0 {
                report(f["height"] ?? sizeNode, f["height"] != nil ? "video.height" : key, "height \(v.height) must be even")
            }
        }
        if let n = f["fps"], let x = int(n, "video.fps", range: VideoConfig.fpsRange) { v.fps = x }
        if let n = f["bitrate"], let x = bitrate(n, "video.bitrate", range: VideoConfig.bitrateRange) { v.bitrate = x }
        if let n = f["keyframe_interval"],
           let x = duration(n, "video.keyframe_interval", range: VideoConfig.keyframeIntervalRange) {
            v.keyframeInterval = x
        }
        if let n = f["encoder"], let s = string(n, "video.encoder") {
            if let e = VideoEncoderKind(rawValue: s.lowercased()) { v.encoder = e } else {
                report(n, "video.encoder", "\"\(s.clipped())\" is not one of x264, openh264, auto")
            }
        }
        if let n = f["encoder_preset"], let s = string(n, "video.encoder_preset") {
            if VideoConfig.encoderPresets.contains(s.lowercased()) { v.encoderPreset = s.lowercased() } else {
                report(n, "video.encoder_preset",
                       "\"\(s.clipped())\" is not one of \(VideoConfig.encoderPresets.joined(separator: ", "))")
            }
        }
        return v
    }

    private func parseSize(_ text: String) -> (Int, Int)? {
        let named = ["480p": (854, 480), "720p": (1280, 720), "1080p": (1920, 1080),
                     "1440p": (2560, 1440), "2160p": (3840, 2160), "4k": (3840, 2160)]
        if let n = named[text.lowercased()] { return n }
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2,
              let w = Int(parts[0].trimmingCharacters(in: .whitespaces)),
              let h = Int(parts[1].trimmingCharacters(in: .whitespaces)) else { return nil }
        return (w, h)
    }

    private mutating func decodeAudio(_ node: YAMLNode) -> AudioConfig {
        var a = AudioConfig()
        let f = fields(node, "audio", schema: PresetSchema.root.child("audio")!)
        if let n = f["sample_rate"], let r = int(n, "audio.sample_rate") {
            if AudioConfig.sampleRates.contains(r) { a.sampleRate = r } else {
                report(n, "audio.sample_rate",
                       "\(r) is not a supported sample rate (\(AudioConfig.sampleRates.map(String.init).joined(separator: ", ")))")
            }
        }
        if let n = f["channels"], let c = int(n, "audio.channels", range: AudioConfig.channelsRange) { a.channels = c }
        if let n = f["bitrate"], let b = bitrate(n, "audio.bitrate", range: AudioConfig.bitrateRange) { a.bitrate = b }
        return a
    }

    private mutating func decodePlayers(_ node: YAMLNode?, root: YAMLNode, hasVideo: Bool) -> [PlayerConfig] {
        guard let node, !node.isNull else {
            report(node ?? root, "players", "at least one player is required")
            return []
        }
        guard let items = node.items else {
            report(node, "players", "expected a list of players, got \(node.kindName)")
            return []
        }
        if items.isEmpty {
            report(node, "players", "at least one player is required")
            return []
        }
        if items.count > Preset.maxPlayers {
            report(items[Preset.maxPlayers], "players[\(Preset.maxPlayers)]",
                   "at most \(Preset.maxPlayers) players; a \(ordinal(Preset.maxPlayers + 1)) is refused")
        }
        var players: [PlayerConfig] = []
        var idOwners: [String: Int] = [:]
        var videoOwner: Int?
        var explicitVideo: [Int: Bool] = [:]
        for (i, item) in items.enumerated() {
            let path = "players[\(i)]"
            var p = PlayerConfig(id: "player\(i + 1)")
            let f = fields(item, path, schema: PresetSchema.player)
            guard item.pairs != nil else {
                players.append(p)
                continue
            }
            if let n = f["id"], let s = string(n, "\(path).id") {
                if isName(s, extra: "") { p.id = s } else {
                    report(n, "\(path).id", "\"\(s.clipped())\" is not a valid id (letters, digits, '_', '-')")
                }
            }
            if let other = idOwners[p.id] {
                report(f["id"] ?? item, "\(path).id", "duplicate player id \"\(p.id)\" (also players[\(other)])")
            } else {
                idOwners[p.id] = i
            }

            let source = f["source"].flatMap { $0.isNull ? nil : $0 }
            let playlist = f["playlist"].flatMap { $0.isNull ? nil : $0 }
            if let source, playlist != nil {
                report(source, "\(path).source", "source and playlist are exclusive: give one of them")
            } else if source == nil, playlist == nil {
                report(f["source"] ?? f["playlist"] ?? item, path, "needs a source or a playlist")
            }
            if let source, let s = string(source, "\(path).source") {
                if s.trimmingCharacters(in: .whitespaces).isEmpty {
                    report(source, "\(path).source", "source is empty")
                } else {
                    p.source = resolvedSource(s, source, "\(path).source")
                }
            }
            if let playlist { p.playlist = decodePlaylist(playlist, "\(path).playlist") }

            if let n = f["repeat"], let b = bool(n, "\(path).repeat") { p.repeat = b }
            if let n = f["video"], let b = bool(n, "\(path).video") {
                explicitVideo[i] = b
                p.video = b
                if b {
                    if !hasVideo {
                        report(n, "\(path).video", "video: true but the preset has no video section")
                    } else if let owner = videoOwner {
                        report(n, "\(path).video", "only one player can feed video; players[\(owner)] already does")
                    } else {
                        videoOwner = i
                    }
                }
            }
            if let n = f["aux"], let b = bool(n, "\(path).aux") { p.aux = b }
            if let n = f["publish_volume"],
               let v = int(n, "\(path).publish_volume", range: PlayerConfig.volumeRange, percent: true) {
                p.publishVolume = v
            }
            if let n = f["play_volume"],
               let v = int(n, "\(path).play_volume", range: PlayerConfig.volumeRange, percent: true) {
                p.playVolume = v
            }
            if let n = f["mute_local"], let b = bool(n, "\(path).mute_local") { p.muteLocal = b }
            if let n = f["speed"], let v = double(n, "\(path).speed", range: PlayerConfig.speedRange) { p.speed = v }
            if let n = f["pitch"], let v = double(n, "\(path).pitch", range: PlayerConfig.pitchRange) { p.pitch = v }
            if let n = f["start_at"], let v = duration(n, "\(path).start_at") { p.startAt = v }
            if let n = f["progress_interval"],
               let v = duration(n, "\(path).progress_interval", range: PlayerConfig.progressIntervalRange) {
                p.progressInterval = v
            }
            if let n = f["memory"], let b = bool(n, "\(path).memory") { p.memory = b }
            players.append(p)
        }
        // With a video section and no player saying video: true, the first
        // player feeds video unless it says video: false itself.
        if hasVideo, videoOwner == nil, !players.isEmpty, explicitVideo[0] == nil {
            players[0].video = true
        }
        return players
    }

    private mutating func decodePlaylist(_ node: YAMLNode, _ path: String) -> PlaylistConfig? {
        // `playlist: [a, b]` is short for `playlist: { items: [a, b] }`
        if let list = node.items {
            guard let items = decodeItems(node, list, "\(path)") else { return nil }
            return PlaylistConfig(items: items)
        }
        let f = fields(node, path, schema: PresetSchema.playlist)
        guard node.pairs != nil else { return nil }
        var mode = PlaylistMode.loop
        if let n = f["mode"], let s = string(n, "\(path).mode") {
            if let m = PlaylistMode(rawValue: s.lowercased()) { mode = m } else {
                report(n, "\(path).mode", "\"\(s.clipped())\" is not one of loop, shuffle, repeat-one, once")
            }
        }
        let forms = ["items", "file", "dir"].filter { f[$0] != nil }
        if forms.isEmpty {
            report(node, path, "needs items, file or dir")
            return nil
        }
        if forms.count > 1 {
            for k in forms.dropFirst() {
                report(f[k]!, "\(path).\(k)", "items, file and dir are exclusive: give one of them")
            }
            return nil
        }
        let key = forms[0], n = f[key]!, keyPath = "\(path).\(key)"
        var items: [String]
        switch key {
        case "items":
            guard let list = n.items else {
                if n.isNull {
                    report(n, keyPath, "empty playlist")
                } else {
                    report(n, keyPath, "expected a list of sources, got \(n.kindName)")
                }
                return nil
            }
            guard let resolved = decodeItems(n, list, keyPath) else { return nil }
            items = resolved
        case "file":
            guard let s = string(n, keyPath), let file = localFile(s, n, keyPath, want: .file) else { return nil }
            do {
                items = try PlaylistResolver.readM3U(path: file, environment: environment)
            } catch {
                report(n, keyPath, (error as? PlaylistResolver.Failure)?.message ?? "cannot read \(file)")
                return nil
            }
            if items.isEmpty {
                report(n, keyPath, "empty playlist: \(file) lists no entries")
                return nil
            }
        default:
            guard let s = string(n, keyPath), let dir = localFile(s, n, keyPath, want: .directory) else { return nil }
            do {
                items = try PlaylistResolver.listDirectory(path: dir)
            } catch {
                report(n, keyPath, "cannot list \(dir)")
                return nil
            }
            if items.isEmpty {
                report(n, keyPath, "empty playlist: no media files in \(dir)")
                return nil
            }
        }
        return PlaylistConfig(items: items, mode: mode)
    }

    private mutating func decodeItems(_ node: YAMLNode, _ list: [YAMLNode], _ path: String) -> [String]? {
        if list.isEmpty {
            report(node, path, "empty playlist")
            return nil
        }
        var items: [String] = []
        var ok = true
        for (j, item) in list.enumerated() {
            let itemPath = "\(path)[\(j)]"
            guard !item.isNull, let s = string(item, itemPath) else {
                if item.isNull { report(item, itemPath, "empty playlist item") }
                ok = false
                continue
            }
            if s.trimmingCharacters(in: .whitespaces).isEmpty {
                report(item, itemPath, "empty playlist item")
                ok = false
                continue
            }
            guard let resolved = resolvedSource(s, item, itemPath) else { ok = false; continue }
            items.append(resolved)
        }
        return ok ? items : nil
    }

    /// A source resolved against the preset's folder, or a reported problem (an
    /// unknown scheme, a bad testsrc option) and nil.
    private mutating func resolvedSource(_ text: String, _ node: YAMLNode, _ key: String) -> String? {
        let resolved = PathResolution.resolveSource(text, base: base, environment: environment)
        do {
            let spec = try SourceSpec(resolved)
            // A local playlist file given as a source: caught now, whatever its name.
            if let path = spec.localPath, let problem = SourceSpec.playlistContentProblem(path: path) {
                throw MediaPubError.badSource(resolved, problem)
            }
        } catch {
            report(node, key, MediaPubError.reason(of: error))
            return nil
        }
        return resolved
    }

    /// The absolute local path of an existing file or folder named by `text`
    /// (a path or file:// URL), else a reported problem and nil.
    private mutating func localFile(_ text: String, _ node: YAMLNode, _ key: String,
                                    want: PathResolution.FileKind) -> String? {
        guard let local = PathResolution.localPath(of: text) else {
            report(node, key, "\"\(SecretMask.mask(url: text))\" must be a local \(want == .file ? "file" : "folder")")
            return nil
        }
        let path = PathResolution.absolutePath(local, base: base, environment: environment)
        switch PathResolution.kind(of: path) {
        case .missing:
            report(node, key, "cannot find \(path)")
            return nil
        case .directory where want == .file:
            report(node, key, "\(path) is a folder, not a file")
            return nil
        case .file where want == .directory:
            report(node, key, "\(path) is a file, not a folder")
            return nil
        default:
            return path
        }
    }

    private mutating func decodeStandby(_ node: YAMLNode) -> StandbyConfig {
        var s = StandbyConfig()
        let f = fields(node, "standby", schema: PresetSchema.root.child("standby")!)
        if let n = f["image"], !n.isNull, let text = string(n, "standby.image") {
            s.image = standbyResource(text, n, "standby.image")
        }
        if let n = f["color"] {
            if n.isNull {
                report(n, "standby.color",
                       "color is empty (quote it: color: \"#101010\"; an unquoted # starts a comment)")
            } else if let text = string(n, "standby.color") {
                if let c = Self.normaliseColor(text) { s.color = c } else {
                    report(n, "standby.color",
                           "\"\(text.clipped())\" is not a color (\"#RRGGBB\", \"#RGB\", black, white, red, green, blue, gray)")
                }
                if f["image"].map({ !$0.isNull }) == true {
                    report(n, "standby.color", "image and color are exclusive: give one of them")
                }
            }
        }
        if let n = f["audio"], !n.isNull, let text = string(n, "standby.audio") {
            s.audio = standbyResource(text, n, "standby.audio")
        }
        return s
    }

    private mutating func standbyResource(_ text: String, _ node: YAMLNode, _ key: String) -> String? {
        if let sch = PathResolution.sourceScheme(of: text), sch != "file" { return resolvedSource(text, node, key) }
        guard let path = localFile(text, node, key, want: .file) else { return nil }
        return PathResolution.sourceScheme(of: text) == "file" ? text : path
    }

    static func normaliseColor(_ text: String) -> String? {
        let names = ["black": "#000000", "white": "#FFFFFF", "red": "#FF0000", "green": "#00FF00",
                     "blue": "#0000FF", "gray": "#808080", "grey": "#808080"]
        let t = text.trimmingCharacters(in: .whitespaces)
        if let n = names[t.lowercased()] { return n }
        guard t.hasPrefix("#") else { return nil }
        let hex = t.dropFirst().uppercased()
        guard hex.allSatisfy({ $0.isHexDigit }) else { return nil }
        if hex.count == 6 { return "#" + hex }
        if hex.count == 3 { return "#" + hex.map { "\($0)\($0)" }.joined() }
        return nil
    }

    private mutating func decodeOutputs(_ node: YAMLNode) -> [OutputConfig] {
        guard let items = node.items else {
            report(node, "outputs", "expected a list of outputs, got \(node.kindName)")
            return []
        }
        var outputs: [OutputConfig] = []
        var idOwners: [String: Int] = [:]
        for (i, item) in items.enumerated() {
            let path = "outputs[\(i)]"
            var urlNode = item
            var id: String? = nil
            if let pairs = item.pairs, pairs.count == 1, pairs[0].key.scalarValue == "null", pairs[0].value.isNull {
                // `- null:` in a list reads as a mapping {null: ~}; it means the null: output
                outputs.append(OutputConfig(url: "null:"))
                continue
            }
            if item.pairs != nil {
                let f = fields(item, path, schema: PresetSchema.output)
                if let n = f["id"], !n.isNull, let s = string(n, "\(path).id") {
                    // Unique among the outputs' names, explicit or by index (status, events, metrics, ctl).
                    if !isName(s, extra: "") {
                        report(n, "\(path).id", "\"\(s.clipped())\" is not a valid id (letters, digits, '_', '-')")
                    } else if let other = idOwners[s] ?? items.indices.first(where: { "\($0)" == s && $0 != i }) {
                        report(n, "\(path).id", "duplicate output id \"\(s)\" (also outputs[\(other)])")
                    } else {
                        id = s
                        idOwners[s] = i
                    }
                }
                guard let u = f["url"], !u.isNull else {
                    report(f["url"] ?? item, "\(path).url", "an output needs a url")
                    continue
                }
                urlNode = u
            } else if item.isNull {
                report(item, "\(path).url", "an output needs a url")
                continue
            }
            guard let text = string(urlNode, "\(path).url") else { continue }
            switch OutputURL.resolve(text, base: base, environment: environment) {
            case .success(let url): outputs.append(OutputConfig(url: url, id: id))
            case .failure(let why): report(urlNode, "\(path).url", why.message)
            }
        }
        return outputs
    }

    private mutating func decodeReconnect(_ node: YAMLNode) -> ReconnectConfig {
        var r = ReconnectConfig()
        let f = fields(node, "reconnect", schema: PresetSchema.root.child("reconnect")!)
        if let n = f["initial"], let d = duration(n, "reconnect.initial") {
            if d < 0.1 { report(n, "reconnect.initial", "\(text(n)) is too short (at least 100ms)") }
            r.initial = d
        }
        if let n = f["max"], let d = duration(n, "reconnect.max") {
            r.max = d
            if d < r.initial {
                report(n, "reconnect.max", "\(text(n)) is shorter than reconnect.initial (\(MediaTime.formatDuration(r.initial)))")
            }
        }
        if let n = f["give_up_after"] {
            if n.scalarValue?.lowercased() == "never" {
                r.giveUpAfter = .infinity
            } else if let d = duration(n, "reconnect.give_up_after", also: "or never") {
                r.giveUpAfter = d
            }
        }
        if let n = f["stall"], let d = duration(n, "reconnect.stall") {
            if d < 1 { report(n, "reconnect.stall", "\(text(n)) is too short (at least 1s)") }
            r.stall = d
        }
        return r
    }

    // MARK: - building blocks

    private mutating func report(_ node: YAMLNode, _ key: String, _ message: String) {
        if let origin = node.origin {
            problems.append(PresetProblem(file: origin, line: 0, key: key, message: message))
        } else {
            problems.append(PresetProblem(file: file, line: node.line, key: key, message: message))
        }
    }

    /// The keys of a mapping node; unknown and repeated keys are reported.
    private mutating func fields(_ node: YAMLNode, _ path: String, schema: PresetSchema) -> [String: YAMLNode] {
        guard let pairs = node.pairs else {
            if !(path.isEmpty) {
                report(node, path, "expected a mapping of \(schema.keys.joined(separator: ", ")), got \(node.kindName)")
            }
            return [:]
        }
        let known = schema.keys
        var result: [String: YAMLNode] = [:]
        for pair in pairs {
            let k = pair.key.scalarValue ?? ""
            let keyPath = path.isEmpty ? k : "\(path).\(k)"
            guard known.contains(k) else {
                report(pair.key, keyPath, "unknown key\(PresetSchema.suggestion(for: k, among: known))")
                continue
            }
            if result[k] != nil {
                report(pair.key, keyPath, "duplicate key")
            }
            result[k] = pair.value
        }
        return result
    }

    /// The scalar's text for messages; values that came from the environment
    /// are shown as written (`${VAR}`) so secrets stay out of messages; a long
    /// one is cut to 80 characters.
    private func text(_ node: YAMLNode) -> String {
        let s = node.raw ?? node.scalarValue ?? ""
        return s.trimmingCharacters(in: .whitespaces).clipped()
    }

    private mutating func scalar(_ node: YAMLNode, _ key: String, expected: String) -> String? {
        guard let s = node.scalarValue else {
            report(node, key, "expected \(expected), got \(node.kindName)")
            return nil
        }
        if node.isNull {
            report(node, key, "expected \(expected), got nothing")
            return nil
        }
        return s.trimmingCharacters(in: .whitespaces)
    }

    private mutating func string(_ node: YAMLNode, _ key: String) -> String? {
        guard let s = node.scalarValue else {
            report(node, key, "expected text, got \(node.kindName)")
            return nil
        }
        if node.isNull {
            report(node, key, "expected text, got nothing")
            return nil
        }
        return s
    }

    private mutating func bool(_ node: YAMLNode, _ key: String) -> Bool? {
        guard let s = scalar(node, key, expected: "true or false") else { return nil }
        switch s.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default:
            report(node, key, "\"\(text(node))\" is not true or false")
            return nil
        }
    }

    private mutating func int(_ node: YAMLNode, _ key: String, range: ClosedRange<Int>? = nil,
                              percent: Bool = false) -> Int? {
        guard var s = scalar(node, key, expected: "a whole number") else { return nil }
        if percent, s.hasSuffix("%") { s = String(s.dropLast()).trimmingCharacters(in: .whitespaces) }
        guard let v = Int(s) else {
            report(node, key, "\"\(text(node))\" is not a whole number")
            return nil
        }
        if let range, !range.contains(v) {
            report(node, key, "\(text(node)) is out of range \(range.lowerBound)..\(range.upperBound)")
            return nil
        }
        return v
    }

    private mutating func double(_ node: YAMLNode, _ key: String, range: ClosedRange<Double>) -> Double? {
        guard let s = scalar(node, key, expected: "a number") else { return nil }
        let body = s.hasPrefix("-") || s.hasPrefix("+") ? String(s.dropFirst()) : s
        guard MediaTime.plainNumber(body) != nil, let v = Double(s) else {
            report(node, key, "\"\(text(node))\" is not a number")
            return nil
        }
        if !range.contains(v) {
            // 0.5..4.0 (fractional bounds as decimals), -12..12 (whole bounds as integers)
            let whole = range.lowerBound == range.lowerBound.rounded()
            let shown = whole ? "\(Int(range.lowerBound))..\(Int(range.upperBound))" : "\(range.lowerBound)..\(range.upperBound)"
            report(node, key, "\(text(node)) is out of range \(shown)")
            return nil
        }
        return v
    }

    private mutating func duration(_ node: YAMLNode, _ key: String, range: ClosedRange<TimeInterval>? = nil,
                                   also: String = "") -> TimeInterval? {
        guard let s = scalar(node, key, expected: "a duration") else { return nil }
        let d: TimeInterval
        switch MediaTime.duration(s) {
        case .success(let value): d = value
        case .failure(.tooLong):
            report(node, key, "\(text(node)) is too long (at most \(MediaTime.maxDurationText))")
            return nil
        case .failure:
            let extra = also.isEmpty ? "" : " \(also)"
            report(node, key, "\"\(text(node))\" is not a duration (like 500ms, 2s, 10m, 1h30m, 01:30:00\(extra))")
            return nil
        }
        if let range, !range.contains(d) {
            report(node, key, "\(text(node)) is out of range \(MediaTime.formatDuration(range.lowerBound))..\(MediaTime.formatDuration(range.upperBound))")
            return nil
        }
        return d
    }

    private mutating func bitrate(_ node: YAMLNode, _ key: String, range: ClosedRange<Int>) -> Int? {
        guard let s = scalar(node, key, expected: "a bitrate") else { return nil }
        guard let b = MediaTime.parseBitrate(s) else {
            report(node, key, "\"\(text(node))\" is not a bitrate (like 128k, 2.5M or bits per second)")
            return nil
        }
        if !range.contains(b) {
            report(node, key, "\(text(node)) is out of range \(MediaTime.formatBitrate(range.lowerBound))..\(MediaTime.formatBitrate(range.upperBound))")
            return nil
        }
        return b
    }

    private func isName(_ s: String, extra: String) -> Bool {
        !s.isEmpty && s.allSatisfy { c in
            (c.isASCII && (c.isLetter || c.isNumber)) || c == "_" || c == "-" || extra.contains(c)
        }
    }

    private func ordinal(_ n: Int) -> String {
        switch n {
        case 1: return "1st"
        case 2: return "2nd"
        case 3: return "3rd"
        default: return "\(n)th"
        }
    }
}

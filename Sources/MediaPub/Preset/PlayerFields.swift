import Foundation

// The fields of a player and of its playlist (docs/presets.md, Players), and how sources,
// playlists and local files named in a preset are resolved and checked.

extension PlayerConfig: PresetSection {
    static let presetDefault = PlayerConfig(id: "player1")

    static let fields: [PresetField<PlayerConfig>] = [
        PresetField(key: "id", type: "text", range: "letters, digits, '_', '-'; unique",
                    defaultText: "player1, player2, … by position",
                    doc: "The player's name in control commands, status and events.", decode: { d, at, c in
            if let n = at.node, let s = d.string(n, at.key) {
                if d.isName(s, extra: "") { c.id = s } else {
                    d.report(n, at.key, "\"\(s.clipped())\" is not a valid id (letters, digits, '_', '-')")
                }
            }
            if let other = d.playerIDs[c.id] {
                d.report(at.node ?? at.section, at.key, "duplicate player id \"\(c.id)\" (also players[\(other)])")
            } else {
                d.playerIDs[c.id] = at.index
            }
        }, write: { c, w in .scalar(w.quote(c.id)) }),
        PresetField(key: "source", type: "path or URL", range: "a path, file://, http(s)://, .m3u8, testsrc:",
                    defaultText: "none: give source or playlist", doc: "What the player plays (exclusive with playlist).",
                    decode: { d, at, c in
            let source = at.node.flatMap { $0.isNull ? nil : $0 }
            let playlist = at.fields["playlist"].flatMap { $0.isNull ? nil : $0 }
            if let source, playlist != nil {
                d.report(source, at.key, "source and playlist are exclusive: give one of them")
            } else if source == nil, playlist == nil {
                let node = at.node ?? at.fields["playlist"] ?? at.section
                // A player's is said once the programme is read: its player needs none
                // (PresetDecoder.decode). A programme's block always needs one.
                if at.path.hasPrefix("players") { d.sourceless.append((c.id, node, at.path)) } else { d.report(node, at.path, "needs a source or a playlist") }
            }
            guard let source, let s = d.string(source, at.key) else { return }
            if s.trimmingCharacters(in: .whitespaces).isEmpty {
                d.report(source, at.key, "source is empty")
            } else {
                c.source = d.resolvedSource(s, source, at.key)
                if let resolved = c.source { d.checkSource(resolved, source, at.key) }
            }
        }, write: { c, w in c.source.map { .scalar(w.quote(w.url($0))) } }),
        PresetField(key: "playlist", type: "list, or section", defaultText: "none: give source or playlist",
                    doc: "Items played one after another; `playlist: [a, b]` is short for `items: [a, b]` (see Playlists).",
                    schema: PlaylistConfig.schema, decode: { d, at, c in
            guard let n = at.node, !n.isNull else { return }
            // `playlist: [a, b]` is short for `playlist: { items: [a, b] }`
            if let list = n.items {
                c.playlist = d.decodeItems(n, list, at.key).map { PlaylistConfig(items: d.checkItems($0, nodes: list, at.key)) }
                return
            }
            var playlist = PlaylistConfig.presetDefault
            d.decodeSection(n, at.key, into: &playlist)
            c.playlist = playlist
        }, write: { c, w in c.playlist.map { .lines(w.lines($0)) } }),
        .flag("repeat", \.repeat, "Start the source again when it ends."),
        PresetField(key: "video", type: "true or false",
                    defaultText: "true for the first player when there is a video section, else false",
                    doc: "This player feeds the video (at most one player).", decode: { d, at, c in
            guard let n = at.node, let b = d.bool(n, at.key) else { return }
            if at.index == 0 { d.firstVideoExplicit = true }
            c.video = b
            guard b else { return }
            if !d.hasVideo {
                d.report(n, at.key, "video: true but the preset has no video section")
            } else if let owner = d.videoOwner {
                d.report(n, at.key, "only one player can feed video; players[\(owner)] already does")
            } else {
                d.videoOwner = at.index
            }
        }, write: { c, _ in .scalar("\(c.video)") }),
        .flag("aux", \.aux, "Mix the player's sound into the stream."),
        .whole("publish_volume", \.publishVolume, volumeRange, percent: true, "Level in the stream, in %."),
        .whole("play_volume", \.playVolume, volumeRange, percent: true, "Level on the local monitor, in %."),
        .flag("mute_local", \.muteLocal, "Silence the player on the local monitor."),
        .number("speed", \.speed, speedRange, "Playback speed; the pitch is kept."),
        .number("pitch", \.pitch, pitchRange, "Pitch shift in semitones."),
        .duration("start_at", \.startAt, nil, "Where playback starts in the source."),
        .duration("progress_interval", \.progressInterval, progressIntervalRange, "Time between player.progress events."),
        .flag("memory", \.memory, "Load the whole resource into memory before playing."),
    ]
}

extension PlaylistConfig: PresetSection {
    static let presetDefault = PlaylistConfig(items: [])
    private static let forms = ["items", "file", "dir"]

    static let fields: [PresetField<PlaylistConfig>] = [
        form("items", type: "list of paths or URLs", "The items, in order.") { d, n, key in
            guard let list = n.items else {
                d.report(n, key, n.isNull ? "empty playlist" : "expected a list of sources, got \(n.kindName)")
                return nil
            }
            return d.decodeItems(n, list, key).map { d.checkItems($0, nodes: list, key) }
        },
        form("file", type: "path", "An M3U playlist file whose entries are the items.") { d, n, key in
            guard let s = d.string(n, key), let file = d.localFile(s, n, key, want: .file) else { return nil }
            do {
                let items = try PlaylistResolver.readM3U(path: file, environment: d.environment)
                if items.isEmpty { d.report(n, key, "empty playlist: \(file) lists no entries") }
                return items.isEmpty ? nil : d.checkItems(items, nodes: items.map { _ in n }, key, listedIn: file)
            } catch {
                d.report(n, key, (error as? PlaylistResolver.Failure)?.message ?? "cannot read \(file)")
                return nil
            }
        },
        form("dir", type: "path", "A folder whose media files, by name, are the items.") { d, n, key in
            guard let s = d.string(n, key), let dir = d.localFile(s, n, key, want: .directory) else { return nil }
            guard let items = try? PlaylistResolver.listDirectory(path: dir) else {
                d.report(n, key, "cannot list \(dir)")
                return nil
            }
            if items.isEmpty { d.report(n, key, "empty playlist: no media files in \(dir)") }
            return items.isEmpty ? nil : items
        },
        // Read first: problems with the mode come before those of the items, and a
        // playlist without items, file or dir is reported once its mode is read.
        PresetField(key: "mode", type: "one of", range: PlaylistMode.allCases.map(\.rawValue).joined(separator: ", "),
                    doc: "loop repeats the list, shuffle plays it in random order, repeat-one repeats one item, once plays the list once.", early: true, decode: { d, at, c in
            if let n = at.node, let s = d.string(n, at.key) {
                if let m = PlaylistMode(rawValue: s.lowercased()) { c.mode = m } else {
                    d.report(n, at.key, "\"\(s.clipped())\" is not one of loop, shuffle, repeat-one, once")
                }
            }
            if forms.allSatisfy({ at.fields[$0] == nil }) { d.report(at.section, at.path, "needs items, file or dir") }
        }, write: { c, _ in .scalar(c.mode.rawValue) }),
        CrossfadeConfig.field(\.crossfade),
    ]

    /// One of the exclusive ways to give the items: only the first given is read.
    private static func form(_ key: String, type: String, _ doc: String,
                             read: @escaping @Sendable (inout PresetDecoder, YAMLNode, String) -> [String]?) -> PresetField<Self> {
        PresetField(key: key, type: type, defaultText: key == "items" ? "give one of items, file, dir" : "none", doc: doc,
                    decode: { d, at, c in
            guard let n = at.node else { return }
            let given = forms.filter { at.fields[$0] != nil }
            if given.count > 1 {
                if given[0] != key { d.report(n, at.key, "items, file and dir are exclusive: give one of them") }
                return
            }
            if let items = read(&d, n, at.key) { c.items = items }
        }, write: { c, w in key == "items" ? .lines(c.items.map { "- \(w.quote(w.url($0)))" }) : nil })
    }
}

extension PresetDecoder {
    mutating func decodePlayers(_ node: YAMLNode?, root: YAMLNode) -> [PlayerConfig] {
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
        for (i, item) in items.enumerated() {
            var p = PlayerConfig(id: "player\(i + 1)")
            decodeSection(item, "players[\(i)]", into: &p, index: i, count: items.count)
            players.append(p)
        }
        // With a video section and no player saying video: true, the first
        // player feeds video unless it says video: false itself.
        if hasVideo, videoOwner == nil, !players.isEmpty, !firstVideoExplicit {
            players[0].video = true
        }
        return players
    }

    mutating func decodeItems(_ node: YAMLNode, _ list: [YAMLNode], _ path: String) -> [String]? {
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
    mutating func resolvedSource(_ text: String, _ node: YAMLNode, _ key: String) -> String? {
        let resolved = PathResolution.resolveSource(text, base: base, environment: environment)
        do {
            let spec = try SourceSpec(resolved)
            // A local playlist file given as a source: caught now, whatever its name.
            if let path = spec.localPath {
                let problem = playlistChecks[path] ?? SourceSpec.playlistContentProblem(path: path)
                playlistChecks.updateValue(problem, forKey: path)
                if let problem { throw MediaPubError.badSource(resolved, problem) }
            }
        } catch {
            report(node, key, MediaPubError.reason(of: error))
            return nil
        }
        return resolved
    }

    /// The absolute local path of an existing file or folder named by `text`
    /// (a path or file:// URL), else a reported problem and nil.
    mutating func localFile(_ text: String, _ node: YAMLNode, _ key: String,
                                    want: PathResolution.FileKind) -> String? {
        switch localFileCheck(text, want: want) {
        case .success(let path): return path
        case .failure(let why):
            report(node, key, why.message)
            return nil
        }
    }

    /// The absolute local path of an existing file or folder named by `text`, or why not.
    func localFileCheck(_ text: String, want: PathResolution.FileKind) -> Result<String, LocalFileProblem> {
        guard let local = PathResolution.localPath(of: text) else {
            return .failure(.init(message: "\"\(SecretMask.mask(url: text))\" must be a local \(want == .file ? "file" : "folder")"))
        }
        let path = PathResolution.absolutePath(local, base: base, environment: environment)
        // A file URL's query (`?token=`) is no secret's place, but is masked all the same.
        let shown = SecretMask.scrub(path, secretsOf: text)
        switch PathResolution.kind(of: path) {
        case .missing: return .failure(.init(message: "cannot find \(shown)"))
        case .directory where want == .file: return .failure(.init(message: "\(shown) is a folder, not a file"))
        case .file where want == .directory: return .failure(.init(message: "\(shown) is a file, not a folder"))
        default: return .success(path)
        }
    }

    mutating func standbyResource(_ text: String, _ node: YAMLNode, _ key: String) -> String? {
        if let sch = PathResolution.sourceScheme(of: text), sch != "file" { return resolvedSource(text, node, key) }
        guard let path = localFile(text, node, key, want: .file) else { return nil }
        return PathResolution.sourceScheme(of: text) == "file" ? text : path
    }
}

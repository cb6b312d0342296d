import Foundation

/// A programme in a file of its own (`schedule: { file: … }`, docs/presets.md, Schedule),
/// read with the preset or alone, for `mediapub schedule` and a reload.
extension ScheduleConfig {
    /// Reads and checks the programme file `file` in full (with `checksSources`, missing
    /// local media too, as `validate` checks a player's): its sources resolve against
    /// `base` (the preset's folder), `player` must be one of `players` (not checked when
    /// nil), and a programme that names none plays on `defaultPlayer`. Throws every problem,
    /// each `file:line: key: why`; never gives part of a programme.
    public static func load(file: String, relativeTo base: String, players: [String]? = nil, defaultPlayer: String? = nil,
                            environment: [String: String] = ProcessInfo.processInfo.environment,
                            checksSources: Bool = false) throws(PresetError) -> ScheduleConfig {
        let path = PathResolution.absolutePath(file, base: FileManager.default.currentDirectoryPath, environment: environment)
        var parent = PresetDecoder(file: path, base: base, environment: environment, checksSources: checksSources)
        for (i, id) in (players ?? []).enumerated() { parent.playerIDs[id] = i }
        var decoder = parent.programmeDecoder(file: file)
        guard var config = decoder.decodeProgramme() else { throw PresetError(problems: decoder.problems) }
        config.file = path
        if config.player == nil { config.player = defaultPlayer }
        return config
    }

    /// `load` for the programme file of `preset`: its players, its folder, its default player.
    public static func load(file: String, for preset: Preset,
                            environment: [String: String] = ProcessInfo.processInfo.environment) throws(PresetError) -> ScheduleConfig {
        let ids = preset.players.map(\.id)
        return try load(file: file, relativeTo: preset.baseDirectory, players: ids,
                        defaultPlayer: ids.isEmpty ? nil : ids[preset.videoPlayerIndex ?? 0], environment: environment)
    }
}

extension PresetDecoder {
    /// A decoder for the programme file at `path`: its own file in problems, this one's
    /// folder, environment, checks and players.
    func programmeDecoder(file path: String) -> PresetDecoder {
        var sub = PresetDecoder(file: path, base: base, environment: environment, checksSources: checksSources)
        sub.inProgrammeFile = true
        sub.playerIDs = playerIDs
        sub.playlistChecks = playlistChecks
        return sub
    }

    /// The programme in this decoder's file, nil when anything is wrong with it (the problems say what).
    mutating func decodeProgramme() -> ScheduleConfig? {
        let nowhere = YAMLNode.scalar("", line: 0)
        let text: String
        do {
            text = try PresetLoader.readText(file)
        } catch {
            report(nowhere, "schedule", (error as? PresetError)?.problems.first?.message ?? "cannot read")
            return nil
        }
        var root: YAMLNode
        do {
            root = try YAMLNode.parse(text)
        } catch let e as YAMLSyntaxError {
            report(.scalar("", line: e.line), "yaml", e.message)
            return nil
        } catch {
            report(nowhere, "yaml", "cannot read")
            return nil
        }
        guard root.pairs != nil else {
            report(root, "schedule", "expected a mapping of \(ScheduleConfig.schema.keys.joined(separator: ", ")), got \(root.kindName)")
            return nil
        }
        root = root.interpolated(environment: environment, path: "") { node, key, message in
            report(node, key, message)
        }
        var config = ScheduleConfig()
        decodeSection(root, "", into: &config)
        return problems.isEmpty ? config : nil
    }
}

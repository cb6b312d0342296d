import Foundation

/// `mediapub schedule FILE [--from "YYYY-MM-DD HH:MM"] [--hours N]` (docs/presets.md,
/// Schedule): a programme, from a preset or a programme file, printed as it will play,
/// one line per block and per stretch of filler, each start with its offset from UTC.
public enum ScheduleListing {
    /// The most hours one listing covers: a leap year's.
    public static let maxHours = 8784

    /// The programme of `file`: a preset's `schedule:`, or a programme file (one whose top
    /// level has `blocks` and no `players`), read and checked as `validate` reads it, with a
    /// preset's `--set` overrides.
    public static func load(file: String, overrides: [String] = [],
                            environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ScheduleConfig {
        let text = try PresetLoader.readText(file)
        let root = try? YAMLNode.parse(text)
        if let root, root["blocks"] != nil, root["players"] == nil {
            guard overrides.isEmpty else {
                throw PresetError(problems: [PresetProblem(file: "--set", line: 0, key: overrides[0].prefix { $0 != "=" }.description,
                                                           message: "--set changes a preset; \(file) is a programme file")])
            }
            let absolute = PathResolution.absolutePath(file, base: FileManager.default.currentDirectoryPath, environment: environment)
            let folder = (absolute as NSString).deletingLastPathComponent
            return try ScheduleConfig.load(file: file, relativeTo: folder.isEmpty ? "/" : folder,
                                           environment: environment, checksSources: true)
        }
        let preset = try PresetLoader.validate(file: file, environment: environment, overrides: overrides).preset
        guard let schedule = preset.schedule else {
            // Named at the preset's first line, where its settings begin.
            throw PresetError(problems: [PresetProblem(file: file, line: max(1, root?.line ?? 1), key: "schedule",
                                                       message: "the preset has no schedule: section (nothing to list; "
                                                           + "docs/presets.md, Schedule)")])
        }
        return schedule
    }

    /// The instant `--from` names in the programme's zone: `YYYY-MM-DD HH:MM[:SS]`, or why not.
    public static func instant(_ text: String, in zone: ZoneRules) -> Result<Date, ScheduleTextError> {
        if case .success(.once(let when)) = ScheduleBlock.Start.parse(text) { return .success(zone.instant(when)) }
        return .failure(.init("\"\(text.clipped())\": expected a date and time in \(zone.name), like \"2026-03-29 00:00\""))
    }

    /// The lines of the listing from `from` to `to`: the block in progress at `from` (with its
    /// own start), the blocks that start before `to`, and filler wherever none plays.
    public static func lines(_ programme: Programme, from: Date, to: Date) -> [String] {
        let zone = programme.zone
        let filler = programme.config.filler.map { "filler: " + describe($0.items, $0.mode) } ?? "nothing (no filler)"
        var out: [String] = []
        var covered = from
        func fill(until end: Date) {
            guard end > covered else { return }
            out.append(line(zone.local(covered), "(filler)", zone.local(end), filler))
        }
        for e in programme.entries(from: from, to: to) {
            fill(until: e.start)
            var what = e.block.source.map { "source: " + shown($0) } ?? "playlist: " + describe(e.items, e.mode)
            if e.local != e.startClock.local { what += " (set for \(LocalDateTime.clock(e.local.secondOfDay)), which the clocks skip that night)" }
            if !e.displaced.isEmpty {
                let named = e.displaced.prefix(3).joined(separator: ", ")
                let others = e.displaced.count > 3 ? "\(named) and \(e.displaced.count - 3) more" : named
                what += " (\(others) not played that night: the clocks skip \(e.displaced.count == 1 ? "its time" : "their times") onto this start)"
            }
            if e.overrun == .finish { what += " (finishes its item)" }
            let end = e.end == .distantFuture ? "open end" : "until \(zone.local(e.end))"
            out.append("\(e.startClock)  \(e.blockID.padding(toLength: max(8, e.blockID.count), withPad: " ", startingAt: 0))  \(end)  \(what)")
            covered = max(covered, e.end)
        }
        fill(until: to)
        return out
    }

    private static func line(_ start: ZonedTime, _ id: String, _ end: ZonedTime, _ what: String) -> String {
        "\(start)  \(id.padding(toLength: 8, withPad: " ", startingAt: 0))  until \(end)  \(what)"
    }

    /// `3 items, shuffle: a.mp4, b.mp4, c.mp4` (at most three named).
    private static func describe(_ items: [String], _ mode: PlaylistMode) -> String {
        let named = items.prefix(3).map(shown).joined(separator: ", ") + (items.count > 3 ? ", …" : "")
        return "\(items.count) item\(items.count == 1 ? "" : "s"), \(mode.rawValue): \(named)"
    }

    /// A local file by its name, a URL masked.
    private static func shown(_ source: String) -> String {
        PathResolution.sourceScheme(of: source) == nil ? (source as NSString).lastPathComponent : SecretMask.mask(url: source)
    }
}

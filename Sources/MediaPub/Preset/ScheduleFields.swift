import Foundation

// The fields of a programme, `schedule:` or a programme file, and of its blocks
// (docs/presets.md, Schedule), in the order they are read, written and documented.

extension ScheduleConfig: PresetSection {
    /// The preset's `schedule:` key: the programme, inline or in its file, on the preset's players.
    static let presetField = PresetField<Preset>(key: "schedule", type: "section", defaultText: "none: no programme",
                                                 doc: "A clock-time programme of blocks on one player (see Schedule).",
                                                 schema: ScheduleConfig.schema, decode: { d, at, c in
        guard let n = at.node, !n.isNull else { return }
        var schedule = ScheduleConfig()
        d.decodeSection(n, at.key, into: &schedule)
        if schedule.player == nil, !c.players.isEmpty { schedule.player = c.players[c.videoPlayerIndex ?? 0].id }
        c.schedule = schedule
    }, write: { c, w in c.schedule.map { .lines(w.lines($0)) } })

    static let presetDefault = ScheduleConfig()

    static let fields: [PresetField<ScheduleConfig>] = [
        PresetField(key: "file", type: "path", defaultText: "none: the programme is written here",
                    doc: "A programme file holding the keys below, relative to the preset's folder.", early: true,
                    decode: { d, at, c in
            guard let n = at.node, !n.isNull else { return }
            if d.inProgrammeFile {
                d.report(n, at.key, "a programme file cannot name another")
                return
            }
            for (k, other) in at.fields.sorted(by: { $0.key < $1.key }) where k != "file" {
                d.report(other, "\(at.path).\(k)", "give the programme in its file or here, not both")
            }
            guard let s = d.string(n, at.key), let path = d.localFile(s, n, at.key, want: .file) else { return }
            var sub = d.programmeDecoder(file: path)
            if let loaded = sub.decodeProgramme() {
                c = loaded
                c.file = path
            }
            d.absorb(sub)
        }, write: { c, w in c.file.map { .scalar(w.quote($0)) } }),
        inline(PresetField(key: "timezone", type: "time-zone name", range: "a name of the system's database, like Europe/Paris",
                           defaultText: "the system's: TZ, else /etc/localtime", doc: "The zone block times are read in.",
                           decode: { d, at, c in
            guard let n = at.node, !n.isNull else {
                do throws(ZoneRules.Failure) { c.zone = try ZoneRules.system(environment: d.environment) } catch {
                    d.report(at.section, at.key, "the system's zone: \(error.message)")
                }
                return
            }
            guard let s = d.scalar(n, at.key, expected: "a time-zone name") else { return }
            do throws(ZoneRules.Failure) {
                c.zone = try ZoneRules.named(s, tzdir: ZoneRules.databaseFolder(environment: d.environment))
                c.timezone = s
            } catch {
                d.report(n, at.key, error.message)
            }
        }, write: { c, w in c.timezone.map { .scalar(w.quote($0)) } })),
        inline(PresetField(key: "player", type: "player id", defaultText: "the video player, else the first",
                           doc: "The player the blocks play on.", decode: { d, at, c in
            guard let n = at.node, !n.isNull, let s = d.scalar(n, at.key, expected: "a player id") else { return }
            if !d.playerIDs.isEmpty, d.playerIDs[s] == nil {
                let known = d.playerIDs.sorted { $0.value < $1.value }.map(\.key).joined(separator: ", ")
                d.report(n, at.key, "unknown player \"\(s.clipped())\" (players: \(known))")
            } else {
                c.player = s
            }
        }, write: { c, w in c.player.map { .scalar(w.quote($0)) } })),
        inline(PresetField(key: "filler", type: "list, or section", defaultText: "none: nothing between blocks",
                           doc: "What plays whenever no block does, written as a player's playlist (see Playlists).",
                           schema: PlaylistConfig.schema, decode: { d, at, c in
            var p = PlayerConfig.presetDefault
            d.borrow("playlist", at, into: &p)
            c.filler = p.playlist
        }, write: { c, w in c.filler.map { .lines(w.lines($0)) } })),
        inline(PresetField(key: "blocks", type: "list of blocks", defaultText: "required",
                           doc: "The blocks, each starting at a clock time (see Schedule).",
                           schema: .list(ScheduleBlock.schema, byID: false), decode: { d, at, c in
            c.blocks = d.decodeBlocks(at.node, at.key, section: at.section)
        }, write: { c, w in .lines(c.blocks.flatMap { w.listItem(w.lines($0)) }) })),
    ]

    /// A key of the programme itself: not read when a preset's `schedule:` names a file
    /// (the file's own are), not written when the programme comes from one.
    private static func inline(_ field: PresetField<ScheduleConfig>) -> PresetField<ScheduleConfig> {
        PresetField(key: field.key, type: field.type, range: field.range, defaultText: field.defaultText, doc: field.doc,
                    schema: field.schema, early: field.early, decode: { d, at, c in
            if !d.inProgrammeFile, at.fields["file"] != nil { return }
            field.decode(&d, at, &c)
        }, write: { c, w in c.file == nil ? field.write(c, w) : nil })
    }
}

extension ScheduleBlock: PresetSection {
    static let presetDefault = ScheduleBlock(id: "", at: .daily(secondOfDay: 0))

    static let fields: [PresetField<ScheduleBlock>] = [
        PresetField(key: "id", type: "text", range: "letters, digits, '_', '-'; unique", defaultText: "required",
                    doc: "The block's name in listings, status and events.", decode: { d, at, c in
            guard let n = at.node, !n.isNull else {
                d.report(at.node ?? at.section, at.key, "a block needs an id")
                return
            }
            guard let s = d.scalar(n, at.key, expected: "an id") else { return }
            if d.isName(s, extra: "") { c.id = s } else {
                d.report(n, at.key, "\"\(s.clipped())\" is not a valid id (letters, digits, '_', '-')")
            }
        }, write: { c, w in .scalar(w.quote(c.id)) }),
        PresetField(key: "at", type: "time", range: "\"HH:MM\", \"HH:MM:SS\" (every day) or \"YYYY-MM-DD HH:MM\" (one date)",
                    defaultText: "required", doc: "When the block starts, on the programme's clock.", decode: { d, at, c in
            guard let n = at.node, !n.isNull else {
                d.report(at.node ?? at.section, at.key, "a block needs a start time (at: \"07:00\")")
                return
            }
            guard let s = d.scalar(n, at.key, expected: "a time") else { return }
            switch ScheduleBlock.Start.parse(s) {
            case .success(let start): c.at = start
            case .failure(let why): d.report(n, at.key, why.message)
            }
        }, write: { c, _ in .scalar("\"\(c.at.text)\"") }),
        PresetField(key: "days", type: "days", range: "mon..sun, ranges like mon-fri, lists", defaultText: "every day",
                    doc: "The days a block given a time of day plays on.", decode: { d, at, c in
            guard let n = at.node, !n.isNull else { return }
            if case .once = c.at {
                d.report(n, at.key, "days is only for a block given a time of day; this one has a date")
                return
            }
            let tokens = n.items?.map { $0.scalarValue ?? "" } ?? [n.scalarValue ?? ""]
            switch ScheduleBlock.days(tokens) {
            case .success(let days): c.days = days
            case .failure(let why): d.report(n, at.key, why.message)
            }
        }, write: { c, w in
            guard case .daily = c.at, c.days.count < 7 else { return nil }
            return .scalar("[\(ScheduleBlock.daysText(c.days))]")
        }),
        PresetField(key: "until", type: "time of day", range: "\"HH:MM\" or \"HH:MM:SS\"",
                    defaultText: "none: until the next block", doc: "The block ends the next time the clock shows this.",
                    decode: { d, at, c in
            guard let n = at.node, !n.isNull, let s = d.scalar(n, at.key, expected: "a time of day") else { return }
            if let t = ScheduleBlock.clock(s) { c.end = .until(secondOfDay: t) } else {
                d.report(n, at.key, "\"\(s.clipped())\" is not a time of day (HH:MM or HH:MM:SS, from 00:00 to 23:59:59)")
            }
        }, write: { c, _ in
            guard case .until(let t) = c.end else { return nil }
            return .scalar("\"\(LocalDateTime.clock(t))\"")
        }),
        PresetField(key: "duration", type: "duration", range: "1s..87600h", defaultText: "none: until the next block",
                    doc: "How long the block lasts (exclusive with until).", decode: { d, at, c in
            guard let n = at.node, !n.isNull else { return }
            if at.fields["until"].map({ !$0.isNull }) == true {
                d.report(n, at.key, "until and duration are exclusive: give one of them")
                return
            }
            if let v = d.duration(n, at.key, range: 1...MediaTime.maxDuration) { c.end = .duration(v) }
        }, write: { c, _ in
            guard case .duration(let v) = c.end else { return nil }
            return .scalar(MediaTime.formatDuration(v))
        }),
        PresetField(key: "source", type: "path or URL", range: "as a player's source",
                    defaultText: "none: give source or playlist", doc: "What the block plays (exclusive with playlist).",
                    decode: { d, at, c in
            var p = PlayerConfig.presetDefault
            d.borrow("source", at, into: &p)
            c.source = p.source
        }, write: { c, w in c.source.map { .scalar(w.quote(w.url($0))) } }),
        PresetField(key: "playlist", type: "list, or section", defaultText: "none: give source or playlist",
                    doc: "Items the block plays, written as a player's playlist (see Playlists).", schema: PlaylistConfig.schema,
                    decode: { d, at, c in
            var p = PlayerConfig.presetDefault
            d.borrow("playlist", at, into: &p)
            c.playlist = p.playlist
        }, write: { c, w in c.playlist.map { .lines(w.lines($0)) } }),
        level("publish_volume", \.publishVolume, "The player's level in the stream while the block plays, in %."),
        level("play_volume", \.playVolume, "The player's level on the local monitor while the block plays, in %."),
        .choice("overrun", \.overrun, ScheduleBlock.Overrun.allCases.map { ($0.rawValue, $0) },
                "At the next block's time: cut starts it on time; finish lets the item in progress end first."),
    ]

    /// A player's level for the block's time; nil (not written) keeps the player's own.
    private static func level(_ key: String, _ kp: WritableKeyPath<ScheduleBlock, Int?> & Sendable,
                              _ doc: String) -> PresetField<ScheduleBlock> {
        PresetField(key: key, type: "whole number (%)", range: PresetDecoder.span(PlayerConfig.volumeRange) { "\($0)" },
                    defaultText: "the player's own", doc: doc, decode: { d, at, c in
            guard let n = at.node, !n.isNull else { return }
            if let v = d.int(n, at.key, range: PlayerConfig.volumeRange, percent: true) { c[keyPath: kp] = v }
        }, write: { c, _ in c[keyPath: kp].map { .scalar("\($0)") } })
    }
}

extension PresetDecoder {
    /// Reads a key of a block or of a programme as a player's own key of that name is read
    /// (`source`, `playlist`: resolved against the preset's folder, checked as `validate` checks them).
    mutating func borrow<C>(_ key: String, _ at: PresetField<C>.Site, into player: inout PlayerConfig) {
        guard let field = PlayerConfig.fields.first(where: { $0.key == key }) else { return }
        field.decode(&self, .init(node: at.node, key: at.key, section: at.section, path: at.path, fields: at.fields,
                                  index: at.index, count: at.count), &player)
    }
}

import Foundation

// The fields of `monitor:` (docs/presets.md, monitor), in the order they are read,
// written and documented: `true|false` alone, or a mapping with the checks.

extension MonitorConfig: PresetSection {
    /// The preset's `monitor:` key: `true|false` (the local device), or the mapping.
    static let presetField = PresetField<Preset>(key: "monitor", type: "true or false, or section", defaultText: "false",
                                                 doc: "Play the mix on the local sound device too (true), or the mapping of local and the checks (see monitor).",
                                                 schema: MonitorConfig.schema, decode: { d, at, c in
        guard let n = at.node else { return }
        if n.pairs == nil {
            if let local = d.bool(n, at.key) { c.monitoring = MonitorConfig(local: local) }
            return
        }
        var monitor = MonitorConfig()
        d.decodeSection(n, at.key, into: &monitor)
        if monitor.picture != nil, !d.hasVideo, let p = n["picture"] {
            d.report(p, "\(at.key).picture", "the preset has no video to check (add a video section, or leave picture out)")
        }
        c.monitoring = monitor
    }, write: { c, w in
        c.monitoring.isLocalOnly ? .scalar("\(c.monitoring.local)") : .lines(w.lines(c.monitoring))
    })

    static let presetDefault = MonitorConfig()

    static let fields: [PresetField<MonitorConfig>] = [
        .flag("local", \.local, "Play the mix on the local sound device too (what monitor: true says alone)."),
        optionalSection("silence", \.silence, "Dead air: an alert when the output mix stays below a level."),
        optionalSection("picture", \.picture, "A dead picture: an alert when the output picture stays black or still."),
    ]

    /// A section that is a check when given (`{}`: its defaults), none when left out.
    private static func optionalSection<S: PresetSection>(_ key: String, _ kp: PresetField<MonitorConfig>.Path<S?>,
                                                          _ doc: String) -> PresetField<MonitorConfig> {
        PresetField(key: key, type: "section", defaultText: "none: no check", doc: doc, schema: S.schema, decode: { d, at, c in
            guard let n = at.node else { return }
            var value = S.presetDefault
            if !n.isNull { d.decodeSection(n, at.key, into: &value) }
            c[keyPath: kp] = value
        }, write: { c, w in c[keyPath: kp].map { .lines(w.lines($0)) } })
    }
}

extension AlertAction {
    /// As a preset field: what the run does at an alert.
    static func field<C>(_ kp: PresetField<C>.Path<AlertAction>) -> PresetField<C> {
        .choice("action", kp, allCases.map { ($0.rawValue, $0) },
                "alert: the events only; standby: the standby picture and sound go out until the content recovers; "
                    + "next: the player's next item.")
    }
}

extension SilenceCheck: PresetSection {
    static let presetDefault = SilenceCheck()
    static let levelRange: ClosedRange<Double> = -100 ... -20
    static let durationRange: ClosedRange<TimeInterval> = 1...3600

    static let fields: [PresetField<SilenceCheck>] = [
        .scalar("below", \.below, type: "level", range: "-100dBFS..-20dBFS",
                doc: "The mix's peak below this is silence.", read: { d, n, k, _ in
            guard let s = d.scalar(n, k, expected: "a level") else { return nil }
            let number = s.lowercased().hasSuffix("dbfs") ? String(s.dropLast(4)).trimmingCharacters(in: .whitespaces) : s
            guard let v = Double(number), v.isFinite else {
                d.report(n, k, "\"\(d.text(n))\" is not a level like -50dBFS")
                return nil
            }
            guard levelRange.contains(v) else {
                d.report(n, k, "\(d.text(n)) is out of range -100dBFS..-20dBFS")
                return nil
            }
            return v
        }, show: { v, w in w.number(v) + "dBFS" }),
        .duration("for", \.duration, durationRange, "Silent this long and the alert is raised."),
        AlertAction.field(\.action),
    ]
}

extension PictureCheck: PresetSection {
    static let presetDefault = PictureCheck()

    static let fields: [PresetField<PictureCheck>] = [
        spell("black", \.black, "Black this long (luma near black all over) and the alert is raised."),
        spell("frozen", \.frozen, "Still this long (no change beyond the encoder's noise, black aside) and the alert is raised."),
        AlertAction.field(\.action),
    ]

    private static func spell(_ key: String, _ kp: PresetField<PictureCheck>.Path<TimeInterval?>,
                              _ doc: String) -> PresetField<PictureCheck> {
        let range = SilenceCheck.durationRange
        return .scalar(key, kp, type: "duration or off", range: PresetDecoder.span(range, MediaTime.formatDuration),
                       doc: doc, read: { d, n, k, _ -> TimeInterval?? in
            if n.scalarValue?.lowercased() == "off" { return .some(nil) }
            guard let v = d.duration(n, k, range: range, also: "or off") else { return nil }
            return .some(v)
        }, show: { v, _ in v.map(MediaTime.formatDuration) ?? "off" })
    }
}

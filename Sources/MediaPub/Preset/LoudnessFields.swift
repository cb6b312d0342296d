import Foundation

// The fields of `audio.loudness` (docs/presets.md, audio.loudness), in the order they are
// read, written and documented.

extension LoudnessConfig: PresetSection {
    /// The `audio:` section's `loudness:` key.
    static let presetField = PresetField<AudioConfig>(key: "loudness", type: "section", defaultText: "none: items play as they are",
                                                      doc: "Bring each item to a loudness target, under a true-peak ceiling (see audio.loudness).",
                                                      schema: LoudnessConfig.schema, decode: { d, at, c in
        guard let n = at.node, !n.isNull else { return }
        var loudness = LoudnessConfig()
        d.decodeSection(n, at.key, into: &loudness)
        c.loudness = loudness
    }, write: { c, w in c.loudness.map { .lines(w.lines($0)) } })

    static let presetDefault = LoudnessConfig()

    static let fields: [PresetField<LoudnessConfig>] = [
        level("target", \.target, unit: "LUFS", targetRange, "The integrated loudness each item is brought to (-16 and -14 are common on platforms)."),
        level("true_peak", \.truePeak, unit: "dBTP", truePeakRange, "The highest true peak of the output: the limiter's ceiling."),
        level("max_gain", \.maxGain, unit: "dB", maxGainRange, "The most a quiet item is raised."),
    ]

    /// A level in `unit` (the unit may be left out): `-23LUFS`, `-1 dBTP`, `12dB`.
    private static func level(_ key: String, _ kp: PresetField<LoudnessConfig>.Path<Double>, unit: String,
                              _ range: ClosedRange<Double>, _ doc: String) -> PresetField<LoudnessConfig> {
        let shown = PresetDecoder.span(range) { "\(PresetDecoder.levelText($0))\(unit)" }
        return .scalar(key, kp, type: "level (\(unit))", range: shown, doc: doc, read: { d, n, k, _ in
            guard let s = d.scalar(n, k, expected: "a level like -23\(unit)") else { return nil }
            let number = s.lowercased().hasSuffix(unit.lowercased())
                ? String(s.dropLast(unit.count)).trimmingCharacters(in: .whitespaces) : s
            let body = number.hasPrefix("-") || number.hasPrefix("+") ? String(number.dropFirst()) : number
            guard MediaTime.plainNumber(body) != nil, let v = Double(number) else {
                d.report(n, k, "\"\(d.text(n))\" is not a level in \(unit) (like \(PresetDecoder.levelText(presetDefault[keyPath: kp]))\(unit))")
                return nil
            }
            guard range.contains(v) else {
                d.report(n, k, "\(d.text(n)) is out of range \(shown)")
                return nil
            }
            return v
        }, show: { v, _ in "\(PresetDecoder.levelText(v))\(unit)" })
    }
}

extension PresetDecoder {
    /// A level as written back: -23, -1.5.
    static func levelText(_ v: Double) -> String {
        v == v.rounded() ? "\(Int(v))" : "\(v)"
    }
}

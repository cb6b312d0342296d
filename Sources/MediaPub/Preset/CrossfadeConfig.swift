import Foundation

/// How a playlist's items overlap (docs/presets.md, Crossfades): the outgoing item
/// fades out while the next one fades in over `seconds`; 0 is a gapless cut.
public struct CrossfadeConfig: Equatable, Sendable {
    public var seconds: TimeInterval
    public var curve: CrossfadeCurve

    public init(seconds: TimeInterval = 0, curve: CrossfadeCurve = .equalPower) {
        self.seconds = seconds
        self.curve = curve
    }

    public var isOn: Bool { seconds > 0 }

    public static let secondsRange: ClosedRange<TimeInterval> = 0...30
}

/// The gains' shape over a crossfade.
public enum CrossfadeCurve: String, Equatable, Sendable, CaseIterable {
    /// The gains are cos and sin of the fade: two unrelated sounds keep their summed power.
    case equalPower = "equal-power"
    /// The gains add up to 1: the same sound on both sides keeps its level.
    case linear
}

extension CrossfadeConfig: PresetSection {
    static let presetDefault = CrossfadeConfig()

    static let fields: [PresetField<CrossfadeConfig>] = [
        .duration("duration", \.seconds, secondsRange, "How long the items overlap; 0 is a gapless cut."),
        .choice("curve", \.curve, CrossfadeCurve.allCases.map { ($0.rawValue, $0) },
                "equal-power keeps the sum's level for different sounds; linear keeps a sound's own level."),
    ]

    /// The `crossfade` key of a playlist: a duration, or a section of `duration` and `curve`.
    static func field<C>(_ kp: WritableKeyPath<C, CrossfadeConfig> & Sendable) -> PresetField<C> {
        PresetField(key: "crossfade", type: "duration, or section", range: PresetDecoder.span(secondsRange, MediaTime.formatDuration),
                    defaultText: "0s: a gapless cut",
                    doc: "The outgoing item fades out while the next one fades in over this long; `{duration: 3s, curve: linear}` chooses the curve (see Crossfades).",
                    schema: schema, decode: { d, at, c in
            guard let n = at.node, !n.isNull else { return }
            if n.pairs != nil {
                d.decodeSection(n, at.key, into: &c[keyPath: kp])
            } else if let seconds = d.duration(n, at.key, range: secondsRange) {
                c[keyPath: kp] = CrossfadeConfig(seconds: seconds)
            }
        }, write: { c, w in
            let value = c[keyPath: kp]
            return value.curve == .equalPower ? .scalar(MediaTime.formatDuration(value.seconds)) : .lines(w.lines(value))
        })
    }
}

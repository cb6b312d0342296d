import Foundation

/// One key of a preset section (docs/presets.md): how it is read and checked, how it is
/// written back, and what it means. Each section's list of fields is the one
/// description the schema (unknown keys, `did you mean`), the decoder, `--set`,
/// the resolved YAML and docs/presets.md are all made from.
struct PresetField<Config>: Sendable {
    /// Where a field is read: its value (nil when the key is absent) and its section.
    struct Site {
        var node: YAMLNode?
        /// The key's path in problems: `video.fps`, `players[1].speed`.
        var key: String
        /// The section's node, path and keys.
        var section: YAMLNode
        var path: String
        var fields: [String: YAMLNode]
        /// The section's index in its list (players, outputs) and the list's length; 0 elsewhere.
        var index: Int
        var count: Int
    }

    /// A value written back: one scalar after the key, or lines nested under it.
    enum Written {
        case scalar(String)
        case lines([String])
    }

    let key: String
    /// For the reference: the kind of value, the values allowed ("" when any) and the
    /// default when writing the section's default would not say it.
    let type: String
    var range = ""
    var defaultText: String?
    let doc: String
    /// The keys under this one (a section or a list of them), else `.leaf`.
    var schema = PresetSchema.leaf
    /// Read before the other keys of its section (their checks use it).
    var early = false
    /// Reads the field into the section; called also when the key is absent.
    let decode: @Sendable (inout PresetDecoder, Site, inout Config) -> Void
    /// The resolved value as YAML; nil: the key is not written.
    let write: @Sendable (Config, ResolvedPresetWriter) -> Written?
}

/// A preset section made from its fields.
protocol PresetSection: Sendable {
    static var fields: [PresetField<Self>] { get }
    /// What the section is when nothing is given (the reference's defaults).
    static var presetDefault: Self { get }
}

extension PresetSection {
    static var schema: PresetSchema { .map(fields.map { ($0.key, $0.schema) }) }

    /// The fields, early ones first: the order they are read and written in.
    static var ordered: [PresetField<Self>] { fields.filter(\.early) + fields.filter { !$0.early } }

    /// The default a field documents: its own text, else its written default, else "none".
    static func defaultText(of field: PresetField<Self>) -> String {
        if let text = field.defaultText { return text }
        switch field.write(presetDefault, ResolvedPresetWriter(maskSecrets: false)) {
        case .scalar(let s): return s
        case .lines, nil: return "none"
        }
    }
}

extension PresetField {
    typealias Path<V> = WritableKeyPath<Config, V> & Sendable

    /// A value read from a scalar (`read` has reported why not when it gives nil).
    static func scalar<V>(_ key: String, _ kp: Path<V>, type: String, range: String = "", doc: String,
                          read: @escaping @Sendable (inout PresetDecoder, YAMLNode, String, Config) -> V?,
                          show: @escaping @Sendable (V, ResolvedPresetWriter) -> String) -> Self {
        PresetField(key: key, type: type, range: range, doc: doc, decode: { d, at, c in
            if let n = at.node, let v = read(&d, n, at.key, c) { c[keyPath: kp] = v }
        }, write: { c, w in .scalar(show(c[keyPath: kp], w)) })
    }

    static func flag(_ key: String, _ kp: Path<Bool>, _ doc: String) -> Self {
        scalar(key, kp, type: "true or false", doc: doc, read: { d, n, k, _ in d.bool(n, k) }, show: { v, _ in "\(v)" })
    }

    static func whole(_ key: String, _ kp: Path<Int>, _ range: ClosedRange<Int>, percent: Bool = false,
                      _ doc: String) -> Self {
        scalar(key, kp, type: percent ? "whole number (%)" : "whole number", range: PresetDecoder.span(range) { "\($0)" },
               doc: doc, read: { d, n, k, _ in d.int(n, k, range: range, percent: percent) }, show: { v, _ in "\(v)" })
    }

    static func number(_ key: String, _ kp: Path<Double>, _ range: ClosedRange<Double>, _ doc: String) -> Self {
        scalar(key, kp, type: "number", range: PresetDecoder.span(range), doc: doc,
               read: { d, n, k, _ in d.double(n, k, range: range) }, show: { v, w in w.number(v) })
    }

    /// A duration; `check` may report more about a valid one (it is kept all the same).
    static func duration(_ key: String, _ kp: Path<TimeInterval>, _ range: ClosedRange<TimeInterval>? = nil,
                         atLeast: String = "", _ doc: String,
                         check: @escaping @Sendable (inout PresetDecoder, YAMLNode, String, TimeInterval, Config) -> Void
                             = { _, _, _, _, _ in }) -> Self {
        let shown = PresetDecoder.span(range, MediaTime.formatDuration)
        return scalar(key, kp, type: "duration", range: range == nil ? atLeast : shown, doc: doc, read: { d, n, k, c in
            let v = d.duration(n, k, range: range)
            if let v { check(&d, n, k, v, c) }
            return v
        }, show: { v, _ in MediaTime.formatDuration(v) })
    }

    static func bitrate(_ key: String, _ kp: Path<Int>, _ range: ClosedRange<Int>, _ doc: String) -> Self {
        scalar(key, kp, type: "bitrate", range: PresetDecoder.span(range, MediaTime.formatBitrate), doc: doc,
               read: { d, n, k, _ in d.bitrate(n, k, range: range) }, show: { v, _ in MediaTime.formatBitrate(v) })
    }

    /// One of the named values (matched without regard to case).
    static func choice<V: Equatable & Sendable>(_ key: String, _ kp: Path<V>, _ options: [(String, V)],
                                                _ doc: String) -> Self {
        let names = options.map(\.0).joined(separator: ", ")
        return scalar(key, kp, type: "one of", range: names, doc: doc, read: { d, n, k, _ in
            guard let s = d.string(n, k) else { return nil }
            if let v = options.first(where: { $0.0 == s.lowercased() })?.1 { return v }
            d.report(n, k, "\"\(s.clipped())\" is not one of \(names)")
            return nil
        }, show: { v, w in w.quote(options.first { $0.1 == v }?.0 ?? "") })
    }

    /// A nested section, decoded when given (and not empty).
    static func section<S: PresetSection>(_ key: String, _ kp: Path<S>, _ doc: String) -> Self {
        PresetField(key: key, type: "section", defaultText: "see below", doc: doc, schema: S.schema, decode: { d, at, c in
            if let n = at.node, !n.isNull { d.decodeSection(n, at.key, into: &c[keyPath: kp]) }
        }, write: { c, w in
            let lines = w.lines(c[keyPath: kp])
            return lines.isEmpty ? .scalar("{}") : .lines(lines)
        })
    }
}

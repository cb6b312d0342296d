import Foundation

// The fields of an output (docs/presets.md, outputs), in the order they are read, written
// and documented.

extension OutputConfig: PresetSection {
    static let presetDefault = OutputConfig(url: .null)

    static let fields: [PresetField<OutputConfig>] = [
        PresetField(key: "id", type: "text", range: "letters, digits, '_', '-'; unique", defaultText: "its index: 0, 1, …",
                    doc: "The output's name in status, events, metrics and `ctl reconnect`.", decode: { d, at, c in
            guard let n = at.node, !n.isNull, let s = d.string(n, at.key) else { return }
            // Unique among the outputs' names, explicit or by index (status, events, metrics, ctl).
            if !d.isName(s, extra: "") {
                d.report(n, at.key, "\"\(s.clipped())\" is not a valid id (letters, digits, '_', '-')")
            } else if let other = d.outputIDs[s] ?? (0..<at.count).first(where: { "\($0)" == s && $0 != at.index }) {
                d.report(n, at.key, "duplicate output id \"\(s)\" (also outputs[\(other)])")
            } else {
                c.id = s
                d.outputIDs[s] = at.index
            }
        }, write: { c, w in c.id.map { .scalar(w.quote($0)) } }),
        PresetField(key: "url", type: "URL or path", range: "rtmp://, rtmps://, srt://, hls://, icecast://, file://, null: or a file path",
                    defaultText: "required", doc: "Where this output sends the stream (a list item may be just the URL).",
                    decode: { d, at, c in
            guard let n = at.node, !n.isNull else {
                d.report(at.node ?? at.section, at.key, "an output needs a url")
                return
            }
            guard let text = d.string(n, at.key) else { return }
            switch OutputURL.resolve(text, base: d.base, environment: d.environment) {
            case .success(let url): c.url = url
            case .failure(let why): d.report(n, at.key, why.message)
            }
        }, write: { c, w in .scalar(w.quote(w.url(c.url.text))) }),
        .fileOnly("segment", \.segment, type: "duration", range: "1s..87600h", defaultText: "none: one file",
                  doc: "Start a new file at each boundary of this much output time (the encoder starts a keyframe there).",
                  read: { d, n, k in d.duration(n, k, range: 1...MediaTime.maxDuration) },
                  show: MediaTime.formatDuration, check: { d, n, k, c in
            d.checkSegmentNames(n, k, c)
            // Each MP4 file starts its tracks apart: after the first, B-frames' reorder delay
            // would show the pictures that late against the sound (MKV and MPEG-TS keep time).
            if case .file(_, "mp4") = c.url.target, d.videoBFrames > 0 {
                d.report(n, k, "MP4 files cut into segments lose their sync with B-frames (video.bframes: \(d.videoBFrames)); "
                    + "use .mkv or .ts, or video.bframes: 0")
            }
        }),
        .fileOnly("keep", \.keep, type: "whole number", range: "1..1000000", defaultText: "none: all kept",
                  doc: "Remove this output's oldest files (its own name pattern, in its folder) beyond this many.",
                  read: { d, n, k in d.int(n, k, range: 1...1_000_000) }, show: { "\($0)" }, check: { $0.checkRetainable($1, $2, $3) }),
        .fileOnly("max_age", \.maxAge, type: "duration", range: "1s..87600h", defaultText: "none: all kept",
                  doc: "Remove this output's files (its own name pattern, in its folder) older than this.",
                  read: { d, n, k in d.duration(n, k, range: 1...MediaTime.maxDuration) },
                  show: MediaTime.formatDuration, check: { $0.checkRetainable($1, $2, $3) }),
    ]
}

extension PresetField where Config == OutputConfig {
    /// A key only a file output may carry: reported, naming the key, on any other output.
    static func fileOnly<V: Sendable>(_ key: String, _ kp: Path<V?>, type: String, range: String, defaultText: String,
                                      doc: String, read: @escaping @Sendable (inout PresetDecoder, YAMLNode, String) -> V?,
                                      show: @escaping @Sendable (V) -> String,
                                      check: @escaping @Sendable (inout PresetDecoder, YAMLNode, String, OutputConfig) -> Void
                                          = { _, _, _, _ in }) -> Self {
        PresetField(key: key, type: type, range: range, defaultText: defaultText, doc: doc, decode: { d, at, c in
            guard let n = at.node, !n.isNull else { return }
            guard case .file = c.url.target else {
                d.report(n, at.key, "\(key) is only for file outputs (file:// or a path)")
                return
            }
            if let v = read(&d, n, at.key) {
                c[keyPath: kp] = v
                check(&d, n, at.key, c)
            }
        }, write: { c, _ in c[keyPath: kp].map { .scalar(show($0)) } })
    }
}

extension PresetDecoder {
    /// A list item is a mapping of the fields, or just the URL; `- null:` (read as
    /// the mapping `{null: ~}`) is the null: output.
    mutating func decodeOutputs(_ node: YAMLNode) -> [OutputConfig] {
        guard let items = node.items else {
            report(node, "outputs", "expected a list of outputs, got \(node.kindName)")
            return []
        }
        return items.enumerated().map { i, item in
            var output = OutputConfig.presetDefault
            let path = "outputs[\(i)]"
            if let pairs = item.pairs, pairs.count == 1, pairs[0].key.scalarValue == "null", pairs[0].value.isNull {
                return output
            } else if item.pairs != nil {
                decodeSection(item, path, into: &output, index: i, count: items.count)
            } else if let url = OutputConfig.fields.first(where: { $0.key == "url" }) {
                url.decode(&self, .init(node: item, key: "\(path).url", section: item, path: path, fields: [:],
                                        index: i, count: items.count), &output)
            }
            return output
        }
    }
}

import Foundation

extension Preset {
    /// The fully resolved preset as canonical YAML: every default written,
    /// paths absolute, playlists expanded to items, durations like `2s`/`500ms`,
    /// bitrates like `2500k`. With `maskSecrets` (the default) output URLs,
    /// sources and the webhook go through `SecretMask`. Reading it back with
    /// `PresetLoader.parse` gives this preset again (secrets aside).
    public func resolvedYAML(maskSecrets: Bool = true) -> String {
        ResolvedPresetWriter(maskSecrets: maskSecrets).write(self)
    }
}

/// Writes a preset section by section, each key by its `PresetField`.
struct ResolvedPresetWriter {
    var maskSecrets: Bool

    func write(_ p: Preset) -> String {
        lines(p).joined(separator: "\n") + "\n"
    }

    /// A section's keys, each written by its field: `key: value`, or `key:` and the
    /// lines under it indented.
    func lines<S: PresetSection>(_ section: S) -> [String] {
        S.ordered.flatMap { field -> [String] in
            switch field.write(section, self) {
            case nil: return []
            case .scalar(let value): return ["\(field.key): \(value)"]
            case .lines(let lines): return ["\(field.key):"] + lines.map { "  " + $0 }
            }
        }
    }

    /// A mapping's lines as one item of a list.
    func listItem(_ lines: [String]) -> [String] {
        lines.enumerated().map { ($0.offset == 0 ? "- " : "  ") + $0.element }
    }

    func url(_ s: String) -> String {
        maskSecrets ? SecretMask.mask(url: s) : s
    }

    func number(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? "\(Int(x))" : "\(x)"
    }

    /// A YAML scalar for `s` that reads back as `s` through libyaml and `${}`
    /// interpolation: plain when unambiguous, else double-quoted; `$` doubled.
    func quote(_ raw: String) -> String {
        let s = EnvInterpolation.escape(raw)
        let safe: (Character) -> Bool = { c in
            c.isASCII && (c.isLetter || c.isNumber || "_./-:+@%=,".contains(c))
        }
        let reserved: Set<String> = ["true", "false", "yes", "no", "on", "off", "null", "~", "y", "n"]
        if let first = s.first, first.isASCII, first.isLetter || first.isNumber || first == "/" || first == "_",
           s.allSatisfy(safe), !s.contains(": "), !s.hasSuffix(":"),
           !reserved.contains(s.lowercased()), Double(s) == nil, Int(s) == nil {
            return s
        }
        var q = "\""
        for c in s.unicodeScalars {
            switch c {
            case "\"": q += "\\\""
            case "\\": q += "\\\\"
            case "\n": q += "\\n"
            case "\t": q += "\\t"
            case "\r": q += "\\r"
            default:
                if c.value < 0x20 || c.value == 0x7F {
                    q += String(format: "\\x%02X", c.value)
                } else {
                    q.unicodeScalars.append(c)
                }
            }
        }
        return q + "\""
    }
}

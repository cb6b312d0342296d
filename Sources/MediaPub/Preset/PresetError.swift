import Foundation

/// One thing wrong with a preset, located by file, 1-based line and key path.
/// `line` is 0 when no line applies (unreadable file, `--set` overrides).
public struct PresetProblem: Equatable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    /// Dotted key path with list indexes: `video.fps`, `players[1].speed`,
    /// `outputs[0].url`, `players[1].playlist.items[3]`; "yaml" for syntax
    /// errors, "preset" for an unreadable file.
    public var key: String
    public var message: String

    /// A key or message too long for one readable line (a huge scalar or key
    /// echoed back) is cut: keys to 120 characters, messages to 300, with "…".
    public init(file: String, line: Int, key: String, message: String) {
        self.file = file
        self.line = line
        self.key = key.clipped(120)
        self.message = message.clipped(300)
    }

    /// `presets/x.yaml:12: players[1].speed: 5 is out of range 0.5..4.0`
    public var description: String { "\(file):\(line): \(key): \(message)" }
}

/// Everything wrong with a preset, collected in one pass.
public struct PresetError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {
    public var problems: [PresetProblem]

    public init(problems: [PresetProblem]) {
        self.problems = problems
    }

    /// One problem per line.
    public var description: String { problems.map(\.description).joined(separator: "\n") }
    public var errorDescription: String? { description }
}

extension String {
    /// At most `limit` characters: a longer text is cut and ends with "…", and
    /// line breaks and tabs are shown as `\n`, `\r`, `\t`, so that a huge or
    /// multi-line value echoed in a message keeps the message one short line.
    func clipped(_ limit: Int = 80) -> String {
        let cut = limit > 1 && count > limit ? String(prefix(limit - 1)) + "…" : self
        guard cut.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" || $0 == "\t" }) else { return cut }
        return cut.map { c -> String in
            switch c {
            case "\n": return "\\n"
            case "\r": return "\\r"
            case "\r\n": return "\\r\\n"
            case "\t": return "\\t"
            default: return String(c)
            }
        }.joined()
    }
}

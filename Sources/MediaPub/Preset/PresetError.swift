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

    public init(file: String, line: Int, key: String, message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
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

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a preset (docs/presets.md): YAML via libyaml, `${VAR}` interpolation,
/// `--set` overrides, then typed validation that collects every problem.
public enum PresetLoader {
    /// Loads and validates the preset file at `file`. Throws `PresetError`
    /// (all problems at once; "cannot read: ..." at line 0 for an unreadable file).
    /// `outputs` not empty (`--output`) replaces the preset's outputs before they are
    /// read: only what runs is validated (README, run options).
    public static func load(file: String, environment: [String: String] = ProcessInfo.processInfo.environment,
                            overrides: [String] = [], outputs: [OutputURL] = []) throws -> Preset {
        let text = try readText(file)
        var decoder = PresetDecoder(file: file, base: baseDirectory(of: file, environment), environment: environment)
        return try decoder.decode(text, overrides: overrides, outputs: outputs)
    }

    /// What `validate` reads beyond `load`: the preset, and also a missing local
    /// `source:` a problem and a playlist's missing local items warnings (`SourceChecks`).
    public static func validate(file: String, environment: [String: String] = ProcessInfo.processInfo.environment,
                                overrides: [String] = []) throws -> (preset: Preset, warnings: [PresetProblem]) {
        let text = try readText(file)
        var decoder = PresetDecoder(file: file, base: baseDirectory(of: file, environment), environment: environment,
                                    checksSources: true)
        let preset = try decoder.decode(text, overrides: overrides)
        return (preset, decoder.warnings)
    }

    /// The folder a preset's relative paths resolve against: the file's own.
    private static func baseDirectory(of file: String, _ environment: [String: String]) -> String {
        let absolute = PathResolution.absolutePath(file, base: FileManager.default.currentDirectoryPath, environment: environment)
        let base = (absolute as NSString).deletingLastPathComponent
        return base.isEmpty ? "/" : base
    }

    /// Validates preset text; `file` names it in problems and gives the default
    /// name; relative paths resolve against `baseDirectory`.
    public static func parse(yaml: String, file: String, baseDirectory: String,
                             environment: [String: String], overrides: [String]) throws -> Preset {
        var decoder = PresetDecoder(file: file, base: baseDirectory, environment: environment)
        return try decoder.decode(yaml, overrides: overrides)
    }

    /// The largest preset file read: 1 MiB (a preset is a page of text; this
    /// refuses `/dev/zero`, a log or a video given by mistake before it fills memory).
    public static let maxPresetBytes = 1 << 20

    static func readText(_ file: String) throws -> String {
        func fail(_ why: String) -> PresetError {
            PresetError(problems: [PresetProblem(file: file, line: 0, key: "preset", message: why)])
        }
        let bytes: [UInt8]
        switch BoundedFile.contents(file, limit: maxPresetBytes) {
        case .success(let b): bytes = b
        case .failure(.tooLarge):
            throw fail("larger than \(maxPresetBytes) bytes (1 MiB), the most a preset may be; is it the right file?")
        case .failure(let e): throw fail("cannot read: \(e)")
        }
        guard let text = String(bytes: bytes, encoding: .utf8) else { throw fail("cannot read: not UTF-8 text") }
        return text
    }
}

/// Turns the YAML tree into a `Preset`, section by section from their
/// `PresetField`s, reporting every problem with its file, line and key path.
struct PresetDecoder {
    let file: String
    let base: String
    let environment: [String: String]
    /// Whether local sources are checked as `validate` does (`SourceChecks`).
    let checksSources: Bool
    private(set) var problems: [PresetProblem] = []
    private(set) var warnings: [PresetProblem] = []
    /// What the players' and outputs' fields check across items: whether the preset
    /// has video (and its B-frames), which player feeds it, whether the first said, and the ids taken.
    var hasVideo = false
    var videoBFrames = 0
    var videoOwner: Int?
    var firstVideoExplicit = false
    var playerIDs: [String: Int] = [:]
    /// Players given neither source nor playlist (id, where, key): only the programme's
    /// player may be one (its blocks and filler give what it plays).
    var sourceless: [(id: String, node: YAMLNode, key: String)] = []
    var outputIDs: [String: Int] = [:]
    /// Reading a programme file (docs/presets.md, Schedule), which cannot name another.
    var inProgrammeFile = false
    /// What `SourceSpec.playlistContentProblem` said of each local file read so far (a
    /// programme's thousands of blocks often name the same few files): each is read once.
    var playlistChecks: [String: String?] = [:]

    init(file: String, base: String, environment: [String: String], checksSources: Bool = false) {
        self.file = file
        self.base = base
        self.environment = environment
        self.checksSources = checksSources
    }

    mutating func decode(_ text: String, overrides: [String], outputs replacement: [OutputURL] = []) throws -> Preset {
        var root: YAMLNode
        do {
            root = try YAMLNode.parse(text)
        } catch let e as YAMLSyntaxError {
            throw PresetError(problems: [PresetProblem(file: file, line: e.line, key: "yaml", message: e.message)])
        }
        guard root.pairs != nil else {
            throw PresetError(problems: [PresetProblem(file: file, line: root.line, key: "preset",
                                                       message: "expected a mapping of settings, got \(root.kindName)")])
        }
        // --set first, then ${VAR}: a --set value is expanded like the file's, and a
        // variable only in a value --set replaced is never asked for (docs/presets.md).
        let overrideProblems = PresetOverrides.apply(overrides, to: &root, environment: environment)
        // Outputs that will not run are not read: their variables, secrets and rules
        // do not stop a run given its own (--output).
        if !replacement.isEmpty, let pairs = root.pairs {
            root.content = .mapping(pairs.filter { $0.key.scalarValue != "outputs" })
        }
        root = root.interpolated(environment: environment, path: "") { node, key, message in
            report(node, key, message)
        }

        var preset = Preset(name: defaultName(), video: nil, players: [], file: file, baseDirectory: base)
        decodeSection(root, "", into: &preset)
        if !replacement.isEmpty { preset.outputs = replacement.map { OutputConfig(url: $0) } }
        for player in sourceless where player.id != preset.schedule?.player {
            report(player.node, player.key, "needs a source or a playlist")
        }
        problems += overrideProblems
        guard problems.isEmpty else {
            // preset-file problems by line (stable), then the --set ones
            let ordered = problems.enumerated().sorted { a, b in
                let fa = a.element.file == file ? 0 : 1, fb = b.element.file == file ? 0 : 1
                if fa != fb { return fa < fb }
                if a.element.line != b.element.line { return a.element.line < b.element.line }
                return a.offset < b.offset
            }.map(\.element)
            throw PresetError(problems: ordered)
        }
        return preset
    }

    private func defaultName() -> String {
        let last = (file as NSString).lastPathComponent
        let stem = (last as NSString).deletingPathExtension
        let cleaned = String(stem.map { c -> Character in
            (c.isASCII && (c.isLetter || c.isNumber)) || c == "." || c == "_" || c == "-" ? c : "-"
        })
        return cleaned.isEmpty ? "mediapub" : cleaned
    }

    /// Reads a mapping into `value` through its section's fields (every field is asked,
    /// given or not, in the section's order, early ones first). `index` and `count`
    /// place an item in its list.
    mutating func decodeSection<S: PresetSection>(_ node: YAMLNode, _ path: String, into value: inout S,
                                                  index: Int = 0, count: Int = 0) {
        let f = fields(node, path, schema: S.schema)
        guard node.pairs != nil else { return }
        for field in S.ordered {
            let site = PresetField<S>.Site(node: f[field.key], key: path.isEmpty ? field.key : "\(path).\(field.key)",
                                           section: node, path: path, fields: f, index: index, count: count)
            field.decode(&self, site, &value)
        }
    }

    mutating func report(_ node: YAMLNode, _ key: String, _ message: String) {
        problems.append(problem(node, key, message))
    }

    /// Another decoder's problems and warnings (a programme file's), as they are.
    mutating func absorb(_ other: PresetDecoder) {
        problems += other.problems
        warnings += other.warnings
    }

    /// Something worth saying that does not stop the preset from loading.
    mutating func warn(_ node: YAMLNode, _ key: String, _ message: String) {
        warnings.append(problem(node, key, message))
    }

    private func problem(_ node: YAMLNode, _ key: String, _ message: String) -> PresetProblem {
        PresetProblem(file: node.origin ?? file, line: node.origin == nil ? node.line : 0, key: key, message: message)
    }

    /// The keys of a mapping node; unknown and repeated keys are reported.
    private mutating func fields(_ node: YAMLNode, _ path: String, schema: PresetSchema) -> [String: YAMLNode] {
        guard let pairs = node.pairs else {
            if !(path.isEmpty) {
                report(node, path, "expected a mapping of \(schema.keys.joined(separator: ", ")), got \(node.kindName)")
            }
            return [:]
        }
        let known = schema.keys
        var result: [String: YAMLNode] = [:]
        for pair in pairs {
            let k = pair.key.scalarValue ?? ""
            let keyPath = path.isEmpty ? k : "\(path).\(k)"
            guard known.contains(k) else {
                report(pair.key, keyPath, "unknown key\(PresetSchema.suggestion(for: k, among: known))")
                continue
            }
            if result[k] != nil {
                report(pair.key, keyPath, "duplicate key")
            }
            result[k] = pair.value
        }
        return result
    }
}

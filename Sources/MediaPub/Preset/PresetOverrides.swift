import Foundation

/// `--set KEY=VALUE` overrides, applied to the parsed preset tree before it
/// is validated. KEY is a dotted path (`video.bitrate`, `players.music.speed`,
/// `players.0.speed`, `outputs.1.url`); VALUE is read as YAML (a scalar, or a
/// flow list/mapping such as `[a, b]`). Missing sections are created. Values
/// set here carry origin "--set", so problems with them say `--set:0: key`.
/// They are applied before `${VAR}` expansion, which then covers them too.
enum PresetOverrides {
    static let origin = "--set"

    /// Applies every override it can; each bad one becomes a problem located
    /// at `--set:0:` with the key as given.
    static func apply(_ overrides: [String], to root: inout YAMLNode,
                      environment: [String: String] = [:]) -> [PresetProblem] {
        var problems: [PresetProblem] = []
        for text in overrides {
            guard let eq = text.firstIndex(of: "=") else {
                problems.append(problem(text, "expected KEY=VALUE"))
                continue
            }
            let key = String(text[..<eq]).trimmingCharacters(in: .whitespaces)
            let valueText = String(text[text.index(after: eq)...])
            let segments = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            if key.isEmpty || segments.contains(where: \.isEmpty) {
                problems.append(problem(key, "expected a dotted key such as video.bitrate"))
                continue
            }
            let target: PresetSchema
            switch schema(at: segments) {
            case .failure(let why):
                problems.append(problem(key, why.message))
                continue
            case .success(let s): target = s
            }
            let value: YAMLNode
            do {
                value = try parsedValue(valueText, for: target)
            } catch let e as YAMLSyntaxError {
                problems.append(problem(key, "value is not valid YAML: \(e.message)"))
                continue
            } catch {
                problems.append(problem(key, "value is not valid YAML"))
                continue
            }
            if let why = set(value, at: segments[...], in: &root, schema: .root, environment: environment) {
                problems.append(problem(key, why))
            }
        }
        return problems
    }

    private static func problem(_ key: String, _ message: String) -> PresetProblem {
        PresetProblem(file: origin, line: 0, key: key, message: message)
    }

    /// VALUE read as YAML. A value for a single key (a leaf) written without
    /// braces, that YAML would read as a one-line block mapping, is the text as
    /// given: `outputs.0.url=null:` is the `null:` URL, not the mapping `{null: ~}`.
    static func parsedValue(_ text: String, for target: PresetSchema) throws -> YAMLNode {
        var node = try YAMLNode.parseDocument(text) ?? .scalar("", line: 0)
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if case .leaf = target, node.pairs != nil, !trimmed.hasPrefix("{") {
            node = .scalar(trimmed, line: 0)
        }
        return node.marked(origin: origin)
    }

    struct PathRefusal: Error { let message: String }

    /// What the path names in the schema, or why it names nothing.
    static func schema(at segments: [String]) -> Result<PresetSchema, PathRefusal> {
        var schema = PresetSchema.root
        var i = 0
        while i < segments.count {
            let seg = segments[i]
            switch schema {
            case .leaf:
                return .failure(PathRefusal(message: "unknown key \(seg): \(segments[..<i].joined(separator: ".")) has no keys"))
            case .map:
                guard let child = schema.child(seg) else {
                    let parent = i == 0 ? "a preset" : segments[..<i].joined(separator: ".")
                    return .failure(PathRefusal(message:
                        "unknown key \(seg) in \(parent)\(PresetSchema.suggestion(for: seg, among: schema.keys))"))
                }
                schema = child
            case .list(let item, let byID):
                if Int(seg) == nil && !byID {
                    return .failure(PathRefusal(message:
                        "\(seg) is not an index: \(segments[..<i].joined(separator: ".")) items are numbered from 0"))
                }
                schema = item
            }
            i += 1
        }
        return .success(schema)
    }

    /// Sets `value` at `path` inside `node`, creating mappings on the way.
    private static func set(_ value: YAMLNode, at path: ArraySlice<String>, in node: inout YAMLNode,
                            schema: PresetSchema, environment: [String: String]) -> String? {
        guard let seg = path.first else {
            node = value
            return nil
        }
        let rest = path.dropFirst()
        switch schema {
        case .leaf:
            return "unknown key \(seg)"
        case .map:
            let child = schema.child(seg)!
            if let long = SectionShorthand.expanded(node, schema: schema) { node = long }
            var pairs = node.pairs ?? []
            if node.pairs == nil {
                node = .mapping([], line: 0, origin: origin)
            }
            if let idx = pairs.lastIndex(where: { $0.key.scalarValue == seg }) {
                var v = pairs[idx].value
                if let why = set(value, at: rest, in: &v, schema: child, environment: environment) { return why }
                pairs[idx].value = v
            } else {
                var v = YAMLNode.mapping([], line: 0, origin: origin)
                if let why = set(value, at: rest, in: &v, schema: child, environment: environment) { return why }
                pairs.append(YAMLPair(key: .scalar(seg, line: 0, origin: origin), value: v))
            }
            node.content = .mapping(pairs)
            return nil
        case .list(let itemSchema, _):
            var items = node.items ?? []
            let parentName = "list"
            var index: Int
            if let n = Int(seg) {
                guard n >= 0, n <= items.count else {
                    return "there is no item \(n) (\(items.count) in the \(parentName); \(items.count) adds one)"
                }
                index = n
            } else {
                // ids as they will read once `${VAR}` is expanded
                let ids = items.indices.map { i in
                    items[i]["id"]?.scalarValue.map {
                        (try? EnvInterpolation.expand($0, environment: environment).get()) ?? $0
                    } ?? "player\(i + 1)"
                }
                guard let n = ids.firstIndex(of: seg) else {
                    return "no player with id \(seg) (players: \(ids.joined(separator: ", ")))"
                }
                index = n
            }
            if index == items.count {
                items.append(.mapping([], line: 0, origin: origin))
            }
            var item = items[index]
            if let why = set(value, at: rest, in: &item, schema: itemSchema, environment: environment) { return why }
            items[index] = item
            if node.items == nil {
                node = YAMLNode(content: .sequence(items), line: 0, origin: origin)
            } else {
                node.content = .sequence(items)
            }
            return nil
        }
    }
}

extension YAMLNode {
    /// This node and everything under it, marked as coming from `origin` (line 0).
    func marked(origin: String) -> YAMLNode {
        var copy = self
        copy.origin = origin
        copy.line = 0
        switch content {
        case .scalar: break
        case .sequence(let items): copy.content = .sequence(items.map { $0.marked(origin: origin) })
        case .mapping(let pairs):
            copy.content = .mapping(pairs.map {
                YAMLPair(key: $0.key.marked(origin: origin), value: $0.value.marked(origin: origin))
            })
        }
        return copy
    }
}

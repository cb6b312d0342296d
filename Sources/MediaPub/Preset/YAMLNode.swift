import CYAML
import Foundation

/// A YAML node as read by libyaml: a scalar, a sequence or a mapping, with the
/// 1-based line it starts on. Mapping keys keep their own nodes (and lines) so
/// that an unknown key can be reported where it is written.
struct YAMLNode: Equatable {
    enum Content: Equatable {
        case scalar(String)
        case sequence([YAMLNode])
        case mapping([YAMLPair])
    }

    var content: Content
    /// 1-based line of the node's first character; 0 for nodes that do not
    /// come from the preset file (command-line overrides).
    var line: Int
    /// For scalars: true when written without quotes (plain style). Only plain
    /// scalars can be null (`~`, `null`, empty).
    var plain: Bool = true
    /// Where the node comes from when it is not the preset file: "--set".
    var origin: String? = nil
    /// The text as written, when `${VAR}` interpolation changed it.
    var raw: String? = nil

    static func scalar(_ s: String, line: Int, plain: Bool = true, origin: String? = nil) -> YAMLNode {
        YAMLNode(content: .scalar(s), line: line, plain: plain, origin: origin)
    }

    static func mapping(_ pairs: [YAMLPair], line: Int, origin: String? = nil) -> YAMLNode {
        YAMLNode(content: .mapping(pairs), line: line, plain: true, origin: origin)
    }

    var scalarValue: String? {
        if case .scalar(let s) = content { return s }
        return nil
    }

    var isNull: Bool {
        guard case .scalar(let s) = content, plain else { return false }
        return s.isEmpty || s == "~" || s == "null" || s == "Null" || s == "NULL"
    }

    var pairs: [YAMLPair]? {
        if case .mapping(let p) = content { return p }
        return nil
    }

    var items: [YAMLNode]? {
        if case .sequence(let s) = content { return s }
        return nil
    }

    /// The value for a key of a mapping (the last one when a key repeats).
    subscript(key: String) -> YAMLNode? {
        pairs?.last(where: { $0.key.scalarValue == key })?.value
    }

    var kindName: String {
        switch content {
        case .scalar: return isNull ? "nothing" : "a scalar"
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        }
    }
}

struct YAMLPair: Equatable {
    var key: YAMLNode
    var value: YAMLNode
}

/// A libyaml syntax error: the 1-based line and libyaml's own description.
struct YAMLSyntaxError: Error, Equatable {
    var line: Int
    var message: String
}

/// Owns a libyaml parser for one input text; frees it (and the copy of the
/// input libyaml reads from) in deinit.
final class LibYAMLParser {
    private let parser: UnsafeMutablePointer<yaml_parser_t>
    private let input: UnsafeMutableBufferPointer<UInt8>

    init(_ text: String) {
        parser = .allocate(capacity: 1)
        let bytes = Array(text.utf8)
        input = .allocate(capacity: max(bytes.count, 1))
        _ = input.initialize(from: bytes)
        yaml_parser_initialize(parser)
        yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
        yaml_parser_set_input_string(parser, input.baseAddress, bytes.count)
    }

    deinit {
        yaml_parser_delete(parser)
        parser.deallocate()
        input.deallocate()
    }

    /// The next event; throws the parser's problem on a syntax error.
    func next() throws -> LibYAMLEvent {
        let event = LibYAMLEvent()
        guard yaml_parser_parse(parser, event.raw) == 1 else {
            throw syntaxError()
        }
        event.valid = true
        return event
    }

    private func syntaxError() -> YAMLSyntaxError {
        let p = parser.pointee
        var message = p.problem.map { String(cString: $0) } ?? "malformed YAML"
        if let context = p.context.map({ String(cString: $0) }) {
            message += " (\(context) at line \(p.context_mark.line + 1))"
        }
        return YAMLSyntaxError(line: Int(p.problem_mark.line) + 1, message: message)
    }
}

/// One libyaml event, deleted in deinit.
final class LibYAMLEvent {
    let raw: UnsafeMutablePointer<yaml_event_t>
    var valid = false

    init() {
        raw = .allocate(capacity: 1)
        raw.initialize(to: yaml_event_t())
    }

    deinit {
        if valid { yaml_event_delete(raw) }
        raw.deallocate()
    }

    var type: yaml_event_type_t { raw.pointee.type }
    var line: Int { Int(raw.pointee.start_mark.line) + 1 }

    var scalar: String {
        let s = raw.pointee.data.scalar
        guard let value = s.value else { return "" }
        return String(decoding: UnsafeBufferPointer(start: value, count: s.length), as: UTF8.self)
    }

    var scalarIsPlain: Bool { raw.pointee.data.scalar.style == YAML_PLAIN_SCALAR_STYLE }

    var anchor: String? {
        let d = raw.pointee.data
        let p: UnsafeMutablePointer<yaml_char_t>?
        switch type {
        case YAML_SCALAR_EVENT: p = d.scalar.anchor
        case YAML_SEQUENCE_START_EVENT: p = d.sequence_start.anchor
        case YAML_MAPPING_START_EVENT: p = d.mapping_start.anchor
        case YAML_ALIAS_EVENT: p = d.alias.anchor
        default: p = nil
        }
        return p.map { String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) }
    }
}

extension YAMLNode {
    /// Parses the single document of `text`. An empty or null document gives
    /// an empty mapping on line 1. Duplicate keys are kept (the validator
    /// reports them).
    static func parse(_ text: String) throws -> YAMLNode {
        guard let root = try parseDocument(text), !root.isNull else { return .mapping([], line: 1) }
        return root
    }

    /// The root node of the single document of `text`; nil for an empty stream.
    static func parseDocument(_ text: String) throws -> YAMLNode? {
        let parser = LibYAMLParser(text)
        // anchor -> (node, node count); aliases are expanded by copy, so the
        // total is capped against "billion laughs" documents
        var anchors: [String: (YAMLNode, Int)] = [:]
        var total = 0
        let maxNodes = 1_000_000, maxDepth = 256

        func node(from event: LibYAMLEvent, depth: Int) throws -> YAMLNode {
            let line = event.line
            let before = total
            total += 1
            guard depth <= maxDepth else {
                throw YAMLSyntaxError(line: line, message: "nested more than \(maxDepth) levels deep")
            }
            var result: YAMLNode
            switch event.type {
            case YAML_SCALAR_EVENT:
                result = .scalar(event.scalar, line: line, plain: event.scalarIsPlain)
            case YAML_ALIAS_EVENT:
                let name = event.anchor ?? ""
                guard let (found, size) = anchors[name] else {
                    throw YAMLSyntaxError(line: line, message: "unknown alias *\(name)")
                }
                total += size
                guard total <= maxNodes else {
                    throw YAMLSyntaxError(line: line, message: "aliases expand to more than \(maxNodes) nodes")
                }
                var target = found
                target.line = line
                return target
            case YAML_SEQUENCE_START_EVENT:
                var items: [YAMLNode] = []
                while true {
                    let e = try parser.next()
                    if e.type == YAML_SEQUENCE_END_EVENT { break }
                    items.append(try node(from: e, depth: depth + 1))
                }
                result = YAMLNode(content: .sequence(items), line: line)
            case YAML_MAPPING_START_EVENT:
                var pairs: [YAMLPair] = []
                while true {
                    let e = try parser.next()
                    if e.type == YAML_MAPPING_END_EVENT { break }
                    let key = try node(from: e, depth: depth + 1)
                    let value = try node(from: try parser.next(), depth: depth + 1)
                    if key.scalarValue == nil {
                        throw YAMLSyntaxError(line: key.line, message: "a mapping key must be plain text")
                    }
                    pairs.append(YAMLPair(key: key, value: value))
                }
                result = YAMLNode(content: .mapping(pairs), line: line)
            default:
                throw YAMLSyntaxError(line: line, message: "unexpected YAML event")
            }
            if let a = event.anchor { anchors[a] = (result, total - before) }
            return result
        }

        var root: YAMLNode?
        loop: while true {
            let e = try parser.next()
            switch e.type {
            case YAML_STREAM_END_EVENT:
                break loop
            case YAML_STREAM_START_EVENT, YAML_DOCUMENT_START_EVENT, YAML_DOCUMENT_END_EVENT:
                continue
            default:
                let n = try node(from: e, depth: 0)
                if root == nil {
                    root = n
                } else {
                    throw YAMLSyntaxError(line: n.line, message: "only one YAML document is allowed")
                }
            }
        }
        return root
    }
}

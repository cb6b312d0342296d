import Foundation

/// One request line as the control socket reads it: the command's words
/// (strings, numbers or booleans as JSON has them), and a `request_id` to echo.
struct ControlRequest: Sendable {
    /// The words, or why there are none.
    let words: Result<[String], ControlFailure>
    /// Echoed as given, whatever JSON value it is.
    let requestID: JSONValue?

    /// How deep a request's arrays and objects may nest (`{"command":["status"]}` is 2):
    /// a deeper one is refused before it is decoded, which would cost seconds.
    static let maxDepth = 32

    /// nil when `line` is not a JSON object. One nested deeper than `maxDepth` is
    /// refused unread (and its `request_id` with it).
    init?(line: String) {
        guard ControlRequest.depth(of: line, atMost: ControlRequest.maxDepth) <= ControlRequest.maxDepth else {
            requestID = nil
            words = .failure(ControlFailure("request nested too deep (at most \(ControlRequest.maxDepth) levels of arrays and objects)"))
            return
        }
        guard let value = JSONLine.decode(JSONValue.self, from: line), case .object(let object) = value else { return nil }
        requestID = object["request_id"]
        words = ControlRequest.words(object)
    }

    /// How deep `text`'s brackets and braces nest outside strings, counted up to one past `limit`.
    static func depth(of text: String, atMost limit: Int) -> Int {
        var depth = 0, deepest = 0
        var inString = false, escaped = false
        for byte in text.utf8 {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
                if deepest > limit { return deepest }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return deepest
    }

    /// `{"command":["seek","music","90s"]}`, or `{"command":"seek","args":["music","90s"]}`.
    static func words(_ object: [String: JSONValue]) -> Result<[String], ControlFailure> {
        let given: [JSONValue]
        switch object["command"] {
        case .array(let list)?: given = list
        case .string(let name)?:
            if case .array(let args)? = object["args"] { given = [.string(name)] + args } else { given = [.string(name)] }
        default: return .failure(ControlFailure("missing \"command\" (e.g. {\"command\":[\"status\"]})"))
        }
        var words: [String] = []
        for word in given {
            switch word {
            case .string(let s): words.append(s)
            case .bool(let b): words.append(b ? "on" : "off")
            case .integer(let i): words.append(String(i))
            case .number(let d): words.append(NSNumber(value: d).stringValue)
            case .array, .null, .object:
                return .failure(ControlFailure("command words are strings or numbers, not \(word.kindName)"))
            }
        }
        return .success(words)
    }

    /// The answer line (JSON, no newline) to `line`, `handle` running its words.
    static func answer(_ line: String, handle: ([String]) -> ControlReply) -> String {
        answer(ControlRequest(line: line), handle: handle)
    }

    /// The answer line (JSON, no newline) to a request read (nil: not a JSON object), `handle` running its words.
    static func answer(_ request: ControlRequest?, handle: ([String]) -> ControlReply) -> String {
        let answer: Answer
        if let request {
            switch request.words {
            case .success(let words): answer = Answer(reply: handle(words), requestID: request.requestID)
            case .failure(let failure): answer = Answer(reply: .failure(failure.message), requestID: request.requestID)
            }
        } else {
            answer = Answer(reply: .failure("not a JSON object: send one object a line, e.g. {\"command\":[\"status\"]}"), requestID: nil)
        }
        return JSONLine.text(answer) ?? "{\"ok\":false}"
    }

    /// A reply with the request's `request_id`, when it had one.
    private struct Answer: Encodable {
        let reply: ControlReply
        let requestID: JSONValue?

        func encode(to encoder: Swift.Encoder) throws {
            try reply.encode(to: encoder)
            var c = encoder.container(keyedBy: ControlReply.Key.self)
            if let requestID { try c.encode(requestID, forKey: .requestID) }
        }
    }
}

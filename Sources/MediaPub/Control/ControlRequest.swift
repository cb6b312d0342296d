import Foundation

/// One request line as the control socket reads it: the command's words
/// (strings, numbers or booleans as JSON has them), and a `request_id` to echo.
struct ControlRequest {
    /// The words, or why there are none.
    let words: Result<[String], ControlFailure>
    /// Echoed as given, whatever JSON value it is.
    let requestID: JSONValue?

    /// nil when `line` is not a JSON object.
    init?(line: String) {
        guard let value = JSONLine.decode(JSONValue.self, from: line), case .object(let object) = value else { return nil }
        requestID = object["request_id"]
        words = ControlRequest.words(object)
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
        let answer: Answer
        if let request = ControlRequest(line: line) {
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

import Foundation

/// The one JSON shape mediapub writes everywhere (events, JSON log lines,
/// control replies, `ctl` output): compact, keys sorted, slashes as they are.
public enum JSONLine {
    /// `value` as one line of JSON (no newline), or nil when it cannot be
    /// encoded (a number that is not finite).
    public static func encode<T: Encodable>(_ value: T) -> Data? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try? encoder.encode(value)
    }

    /// `value` as a line of text, or nil when it cannot be encoded.
    public static func text<T: Encodable>(_ value: T) -> String? {
        encode(value).map { String(decoding: $0, as: UTF8.self) }
    }

    /// A `T` read from one line of JSON, or nil when the line is not one.
    public static func decode<T: Decodable>(_ type: T.Type, from line: String) -> T? {
        try? JSONDecoder().decode(type, from: Data(line.utf8))
    }
}

import Foundation

/// What `mediapub probe SOURCE` prints: duration, seekability, streams and tags
/// (snake_case keys; `duration_ms` is null when unknown, a stream's
/// absent fields are left out).
public struct ProbeResult: Codable, Equatable, Sendable {
    /// One stream as GstDiscoverer describes it.
    public struct Stream: Codable, Equatable, Sendable {
        /// "audio", "video", "video(image)", "container", "unknown", …
        public var type: String
        public var codec: String?
        /// The media type of its caps ("audio/mpeg").
        public var caps: String?
        public var width: Int?
        public var height: Int?
        public var fps: Double?
        public var sampleRate: Int?
        public var channels: Int?

        enum CodingKeys: String, CodingKey {
            case type, codec, caps, width, height, fps, channels
            case sampleRate = "sample_rate"
        }
    }

    /// The source as given, masked when it is a URL.
    public var source: String
    public var durationMs: Int?
    public var seekable: Bool
    public var streams: [Stream]
    /// Title, artist and album, those present.
    public var tags: [String: String]

    enum CodingKeys: String, CodingKey {
        case source, seekable, streams, tags
        case durationMs = "duration_ms"
    }

    /// `duration_ms` is written as null when unknown, not left out.
    public func encode(to encoder: any Swift.Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(source, forKey: .source)
        try c.encode(durationMs, forKey: .durationMs)
        try c.encode(seekable, forKey: .seekable)
        try c.encode(streams, forKey: .streams)
        try c.encode(tags, forKey: .tags)
    }

    /// As the command prints it: indented, keys sorted, slashes as they are.
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}

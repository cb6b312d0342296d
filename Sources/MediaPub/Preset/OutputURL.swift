import Foundation

/// An output URL, parsed once (docs/presets.md, Outputs): `rtmp://host[:port]/app/key`,
/// `rtmps://...`, `srt://host:port?mode=caller|listener&...`, `hls:///abs/index.m3u8`,
/// `icecast://source:PASSWORD@host:8000/mount.mp3`,
/// `file:///abs/x.mp4`, `null://` / `null:`, or a plain path (made `file://` +
/// absolute path). The preset and `--output` hold it; the publisher reads its target.
/// Parsed in one place (`parse`, OutputURLParser.swift); error messages only ever
/// show the masked URL.
public struct OutputURL: Equatable, Sendable {
    /// The URL as resolved (what status shows masked and the resolved preset writes).
    public let text: String
    /// What it names and how it is carried.
    let target: OutputTarget

    init(text: String, target: OutputTarget) {
        self.text = text
        self.target = target
    }

    /// A URL given in code (a `Preset` or `RunOptions` made without the loader):
    /// taken as written (a plain path too), refused with a `MediaPubError`.
    public init(_ text: String) throws {
        switch Self.parse(text, paths: .asWritten) {
        case .success(let url): self = url
        case .failure(let refusal): throw refusal.error(text)
        }
    }

    /// The `null:` output.
    public static let null = OutputURL(text: "null:", target: .null)

    public struct Failure: Error, Equatable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    public static let fileExtensions = ["mp4", "mkv", "flv", "ts", "m4a", "mp3", "aac", "ogg", "opus"]

    /// The URL schemes an output may have; any other name followed by `:/` is refused,
    /// anything else is a file path.
    public static let schemes: Set<String> = ["rtmp", "rtmps", "srt", "null", "file", "hls", "icecast"]

    /// `hls:///dir/index.m3u8?segment=4s&window=6`: the playlist path, the segment
    /// length (whole seconds, 1s..60s) and how many segments the playlist lists (3..100).
    public struct HLS: Equatable, Sendable {
        public var playlist: String
        public var segment: Int
        public var window: Int
    }

    /// An output as a preset or `--output` gives it (surrounding spaces dropped, a plain
    /// path made absolute against `base`), or the message that says why it is not one.
    public static func resolve(_ text: String, base: String,
                               environment: [String: String] = [:]) -> Result<OutputURL, Failure> {
        let url = text.trimmingCharacters(in: .whitespaces)
        return parse(url, paths: .resolved(base: base, environment: environment)).mapError { Failure(message: $0.message(url)) }
    }
}

import Foundation

/// `mediapub probe`: duration, streams and tags of a source, read with GstDiscoverer.
public enum Probe {
    public static func run(source: String, timeout: TimeInterval = 15) throws -> [String: Any] {
        GStreamer.initialize()
        let spec = try SourceSpec(source)
        guard case .uri(let uri, _) = spec else {
            return ["source": source, "duration_ms": NSNull(), "seekable": false,
                    "streams": [["type": "video", "codec": "test pattern"], ["type": "audio", "codec": "sine"]], "tags": [:]]
        }
        try spec.checkReadable(source)
        let media: DiscoveredMedia
        do {
            media = try DiscoveredMedia.discover(uri, timeout: ClockTime(seconds: timeout))
        } catch let failure as DiscoveredMedia.Failure {
            switch failure {
            case .setup(let why): throw MediaPubError.pipeline("discoverer: \(why)")
            case .unreadable(let why): throw MediaPubError.sourceFailed(source, why ?? "cannot be read")
            case .missingPlugins: throw MediaPubError.sourceFailed(source, "no decoder for this media")
            case .notPlayable: throw MediaPubError.sourceFailed(source, "not playable media")
            }
        }
        return [
            "source": SecretMask.mask(url: source),
            "duration_ms": media.duration.map { $0.milliseconds as Any } ?? NSNull(),
            "seekable": media.seekable,
            "streams": media.streams.map(describe),
            "tags": media.tags,
        ]
    }

    private static func describe(_ stream: DiscoveredMedia.Stream) -> [String: Any] {
        var out: [String: Any] = ["type": stream.type]
        out["codec"] = stream.codec
        out["caps"] = stream.caps
        out["width"] = stream.width
        out["height"] = stream.height
        out["fps"] = stream.fps
        out["sample_rate"] = stream.sampleRate
        out["channels"] = stream.channels
        return out
    }
}

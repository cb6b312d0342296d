import Foundation
import Synchronization

/// `mediapub probe`: duration, streams and tags of a source, read with GstDiscoverer.
public enum Probe {
    /// `diagnose`: an HTTP source that cannot be read is asked once more why (with
    /// libcurl, `SourceDiagnosis`), which may take longer than `timeout`.
    public static func run(source: String, timeout: TimeInterval = 15, diagnose: Bool = true) throws -> ProbeResult {
        GStreamer.initialize()
        let spec = try SourceSpec(source)
        guard case .uri(let uri, _) = spec else {
            return ProbeResult(source: source, durationMs: nil, seekable: false,
                               streams: [.init(type: "video", codec: "test pattern"), .init(type: "audio", codec: "sine")], tags: [:])
        }
        try spec.checkReadable(source)
        let media: DiscoveredMedia
        // The source trusts the CAs of SSL_CERT_FILE; a CA file that cannot be used is the reason given.
        let trustProblem = Mutex<String?>(nil)
        do {
            media = try DiscoveredMedia.discover(uri, timeout: ClockTime(seconds: timeout)) { element in
                if let problem = TLSTrust.apply(to: element) { trustProblem.withLock { $0 = problem } }
            }
        } catch let failure as DiscoveredMedia.Failure {
            switch failure {
            case .setup(let why): throw MediaPubError.pipeline("discoverer: \(why)")
            case .unreadable(let why):
                if let problem = trustProblem.withLock({ $0 }), uri.lowercased().hasPrefix("https:") {
                    throw MediaPubError.sourceFailed(source, problem)
                }
                // GStreamer's words say little ("Internal data stream error"): ask the server once more with libcurl.
                if diagnose, ["http", "https"].contains(PathResolution.sourceScheme(of: uri) ?? ""),
                   let diagnosis = SourceDiagnosis.diagnose(uri) {
                    throw MediaPubError.sourceFailed(source, diagnosis.text)
                }
                throw MediaPubError.sourceFailed(source, why ?? "cannot be read")
            case .missingPlugins: throw MediaPubError.sourceFailed(source, "no decoder for this media")
            case .notPlayable: throw MediaPubError.sourceFailed(source, "not playable media")
            }
        }
        return ProbeResult(source: SecretMask.mask(url: source), durationMs: media.duration?.milliseconds,
                           seekable: media.seekable, streams: media.streams.map(describe), tags: media.tags)
    }

    private static func describe(_ s: DiscoveredMedia.Stream) -> ProbeResult.Stream {
        ProbeResult.Stream(type: s.type, codec: s.codec, caps: s.caps, width: s.width, height: s.height,
                           fps: s.fps, sampleRate: s.sampleRate, channels: s.channels)
    }
}

import CGStreamer
import Foundation

/// Encodes the capture's timeline once (H.264 + AAC) and fans the encoded
/// samples out to every output (SPEC §1, §5).
final class Publisher: TimelineSink, @unchecked Sendable {
    let encoder: Encoder
    let outputs: [Output]
    private let log: Logger
    private let lock = NSLock()
    private var encoderError: String?
    private var encodedEOS = 0
    private let encodedDone = DispatchSemaphore(value: 0)

    private let onEncoderFailure: (String) -> Void

    init(format: MediaFormat, video: VideoConfig?, audio: AudioConfig, outputs urls: [String],
         reconnect: ReconnectConfig, log: Logger, onEncoderFailure: @escaping (String) -> Void,
         onOutputState: @escaping (Output, OutputState, String?) -> Void) throws {
        self.log = log
        self.onEncoderFailure = onEncoderFailure
        encoder = try Encoder(format: format, video: video, audio: audio)
        let priming = Double(Encoder.aacPrimingSamples) / Double(audio.sampleRate)
        outputs = try urls.map {
            try Output(url: $0, hasVideo: video != nil, audioPriming: priming, reconnect: reconnect, onState: onOutputState)
        }
    }

    func start() throws {
        for output in outputs { try output.open() }
        let outputs = self.outputs
        encoder.videoSink?.setHandlers(sample: { sample in
            for output in outputs { output.offer(sample, isVideo: true) }
        }, eos: { [weak self] in self?.encodedStreamEnded() })
        encoder.audioSink.setHandlers(sample: { sample in
            for output in outputs { output.offer(sample, isVideo: false) }
        }, eos: { [weak self] in self?.encodedStreamEnded() })
        encoder.bus.start(name: "encoder") { [weak self] message in
            guard let self, case .error(let source, let text) = message else { return }
            let stage = source.hasPrefix("a") || source.contains("aac") ? "audio" : source.hasPrefix("v") || source.contains("264") ? "video" : "the"
            let why = "\(stage) encoder stopped (\(source)): \(text)"
            self.lock.lock()
            let first = self.encoderError == nil
            if first { self.encoderError = why }
            self.lock.unlock()
            guard first else { return }
            self.log.error(why)
            self.onEncoderFailure(why)
            // Unblock a capture waiting to push into the dead encoder (off the bus thread).
            DispatchQueue.global().async { self.encoder.pipeline.setState(GST_STATE_NULL) }
            self.encodedDone.signal()
            self.encodedDone.signal()
        }
        if encoder.pipeline.setState(GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE {
            throw MediaPubError.pipeline("the encoder cannot start")
        }
    }

    var error: String? { lock.lock(); defer { lock.unlock() }; return encoderError }

    private func encodedStreamEnded() { encodedDone.signal() }

    // MARK: TimelineSink

    func pushVideo(_ buffer: Buffer) -> Bool { encoder.videoSrc?.push(buffer) ?? true }
    func pushAudio(_ buffer: Buffer) -> Bool { encoder.audioSrc.push(buffer) }

    func endOfStream() {
        encoder.videoSrc?.endOfStream()
        encoder.audioSrc.endOfStream()
    }

    /// Waits for the encoder to drain, then finishes every output (EOS, files finalised).
    func finish(timeout: TimeInterval = 20) {
        let streams = encoder.videoSink == nil ? 1 : 2
        let deadline = DispatchTime.now() + timeout
        for _ in 0..<streams { _ = encodedDone.wait(timeout: deadline) }
        let group = DispatchGroup()
        for output in outputs {
            DispatchQueue.global().async(group: group) { output.finish(timeout: 10) }
        }
        _ = group.wait(timeout: .now() + 15)
        encoder.bus.stop()
        encoder.pipeline.setState(GST_STATE_NULL)
    }

    /// Every output has failed for good.
    var allOutputsFailed: Bool {
        !outputs.isEmpty && outputs.allSatisfy { $0.status.state == .failed }
    }
}

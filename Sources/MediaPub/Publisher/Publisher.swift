import Foundation
import Synchronization

/// Encodes the capture's timeline once (H.264 + AAC) and fans the encoded
/// samples out to every output (docs/design.md, the frame's path).
final class Publisher: TimelineSink, Sendable {
    let encoder: Encoder
    let outputs: [Output]
    /// The sounds encoded, each once (the limiter aims under the ceiling for them, `OutputLoudness`).
    let audioCodecs: Set<AudioCodec>
    private let log: Logger

    private struct State {
        var encoderError: String?
        /// Encoded streams not yet at their end; `encodedDone` is signalled once, when none is left.
        var streamsLeft: Int
        var started = false
    }
    private let state: Mutex<State>
    private let encodedDone = DispatchSemaphore(value: 0)

    private let onEncoderFailure: @Sendable (String) -> Void
    /// Boundaries of rotating recordings, where the encoder must start a keyframe (capture thread).
    private let keyframes: Mutex<KeyframeSchedule>
    /// Pictures before this (ns) are not encoded: with B-frames the first keyframe comes this
    /// late, so that sound reaches back before it by the encoder's reorder delay (see
    /// `OutputTimeline`; an MP4 recording would otherwise wait for the next keyframe).
    private let firstPicture: UInt64
    /// The start of the log line that says what the video encoder makes, and whether it was said.
    private let videoEncoderLine: String?
    private let askedProfile: String
    private let videoDescribed = Atomic<Bool>(false)

    init(format: MediaFormat, video: VideoConfig?, audio: AudioConfig, outputs configs: [OutputConfig],
         reconnect: ReconnectConfig, paced: Bool = false, streamTitle: StreamTitle? = nil, log: Logger, onEncoderFailure: @escaping @Sendable (String) -> Void,
         onOutputState: @escaping @Sendable (Output, OutputState, String?) -> Void,
         onRecording: @escaping @Sendable (Output, RecordingNotice) -> Void = { _, _ in }, overlays: OverlayChain? = nil) throws {
        self.log = log
        self.onEncoderFailure = onEncoderFailure
        // Pictures are encoded only for an output that takes them; each sound once (OutputTarget+Audio.swift).
        let video = configs.contains { $0.url.target.carriesVideo } ? video : nil
        let codecs = Set(configs.map(\.url.target.audioCodec))
        audioCodecs = codecs
        let choice = try Encoder.choose(format: format, video: video, audio: audio, codecs: codecs)
        let priming = Double(Encoder.aacPrimingSamples) / Double(audio.sampleRate)
        let masked = configs.map { SecretMask.mask(url: $0.url.text) }
        let outputs = configs.enumerated().map { index, config in
            Output(url: config.url, id: config.id ?? "\(index)", hasExplicitID: config.id != nil,
                   sharesURL: masked.filter { $0 == masked[index] }.count > 1, hasVideo: video != nil,
                   audioPriming: priming, reconnect: reconnect, segment: config.segment,
                   retention: config.keep == nil && config.maxAge == nil ? nil
                       : RecordingRetention(keep: config.keep, maxAge: config.maxAge, segment: config.segment),
                   paced: paced, streamTitle: streamTitle, onState: onOutputState, onRecording: onRecording)
        }
        self.outputs = outputs
        // Network outputs connect first: their few plugins load before the encoder's (libav
        // is the slowest to load), and the server's handshake overlaps the encoder's and the
        // sources' start instead of following it. Recordings open in `start`.
        for output in outputs where output.target.isNetwork { output.openNetwork() }
        do {
            encoder = try Encoder(format: format, video: video, audio: audio, choice: choice, codecs: codecs, overlays: overlays)
        } catch {
            for output in outputs where output.target.isNetwork { output.finish(timeout: 0) }
            throw error
        }
        // Said once the stream's first picture shows what the encoder makes (`describeVideo`).
        videoEncoderLine = encoder.videoEncoder.flatMap { choice in
            video.map { "video encoder: \(choice.element.rawValue)" + ($0.encoder == .auto ? " (auto)" : "") + ", tune \($0.tune.rawValue)" }
        }
        askedProfile = video?.profile.rawValue ?? ""
        for note in encoder.videoEncoder?.notes ?? [] { log.warn(note) }
        // Rotating recordings and HLS segments are cut exactly at their boundaries: the
        // encoder starts a keyframe at each (splitmuxsink cuts at the last one within).
        keyframes = Mutex(KeyframeSchedule(segments: configs.compactMap { config in
            if case .hls(let hls) = config.url.target { return TimeInterval(hls.segment) }
            return config.segment
        }))
        firstPicture = Publisher.firstPicture(bframes: encoder.videoEncoder?.bframes ?? 0, fps: video?.fps ?? 1)
        state = Mutex(State(streamsLeft: encoder.audioSinks.count + (encoder.videoSink == nil ? 0 : 1)))
    }

    func start() throws {
        // A recording that cannot be opened is that output's failure (reported as it
        // happens); the others go on. Only when none could open is nothing started.
        // Network outputs are connecting already (init).
        var failures: [Error] = []
        for output in outputs where !output.target.isNetwork {
            do { try output.open() } catch { failures.append(error) }
        }
        if let first = failures.first, failures.count == outputs.count { throw first }
        let outputs = self.outputs
        encoder.videoSink?.setHandlers(sample: { [weak self] sample in
            self?.describeVideo(sample)
            for output in outputs { output.offer(sample, isVideo: true) }
        }, eos: { [weak self] in self?.encodedStreamsEnded(1) })
        for (codec, sink) in encoder.audioSinks {
            let takers = outputs.filter { $0.target.audioCodec == codec }
            sink.setHandlers(sample: { sample in
                for output in takers { output.offer(sample, isVideo: false) }
            }, eos: { [weak self] in self?.encodedStreamsEnded(1) })
        }
        if (try? encoder.pipeline.setState(.playing)) == nil {
            // The element that refused says why, on the bus (not watched yet, so still there).
            let why = encoder.bus.popError()
            encoder.pipeline.stop()
            throw MediaPubError.pipeline("the encoder cannot start" + (why.map { ": \($0)" } ?? ""))
        }
        // Watched from here on: what was posted meanwhile waits on the bus.
        encoder.bus.start(name: "encoder") { [weak self] message in
            guard let self, case .error(let error) = message else { return }
            let (source, text) = (error.source, error.message)
            let why = "\(Encoder.stream(ofElement: source) ?? "the") encoder stopped (\(source)): \(text)"
            let first = self.state.withLock { s in
                guard s.encoderError == nil else { return false }
                s.encoderError = why
                return true
            }
            guard first else { return }
            self.log.error(why)
            self.onEncoderFailure(why)
            // Unblock a capture waiting to push into the dead encoder (off the bus thread).
            DispatchQueue.global().async { self.encoder.pipeline.stop() }
            self.encodedStreamsEnded(nil)   // nothing more comes out of a dead encoder
        }
        state.withLock { $0.started = true }
    }

    var error: String? { state.withLock { $0.encoderError } }

    /// The now-playing title changed: the Icecast mounts announce it.
    func titleChanged() {
        for output in outputs { output.titleChanged() }
    }

    /// Logs, once, the encoder with the profile, level and B-frames of the stream it makes
    /// (read from the first encoded picture's caps, not from the settings asked for).
    private func describeVideo(_ sample: Sample) {
        guard let line = videoEncoderLine, !videoDescribed.load(ordering: .relaxed),
              !videoDescribed.exchange(true, ordering: .relaxed) else { return }
        let bframes = encoder.videoEncoder?.bframes ?? 0
        let made = sample.caps.flatMap { EncodedVideo(caps: $0, bframes: bframes) }
        log.info(line + ", " + (made?.summary ?? "profile \(askedProfile), bframes \(bframes)"))
    }

    /// `count` encoded streams ended (nil: all of them).
    private func encodedStreamsEnded(_ count: Int?) {
        let allEnded = state.withLock { s in
            let wasLeft = s.streamsLeft
            s.streamsLeft = count.map { max(0, s.streamsLeft - $0) } ?? 0
            return wasLeft > 0 && s.streamsLeft == 0
        }
        if allEnded { encodedDone.signal() }
    }

    // MARK: TimelineSink

    /// Two frames more than the B-frames: x264's reorder delay (without b-pyramid) is at most as many.
    static func firstPicture(bframes: Int, fps: Int) -> UInt64 {
        bframes == 0 ? 0 : UInt64(bframes + 2) * ClockTime.nanosecondsPerSecond / UInt64(max(1, fps))
    }

    func pushVideo(_ buffer: Buffer) -> Bool {
        guard let src = encoder.videoSrc else { return true }
        if let pts = buffer.pts, pts.nanoseconds < firstPicture { return true }
        if let pts = buffer.pts, keyframes.withLock({ $0.isDue(at: pts.nanoseconds) }) {
            src.requestKeyframe(at: pts)   // a rotating recording's boundary: its cut is exact
        }
        return src.push(buffer)
    }
    func pushAudio(_ buffer: Buffer) -> Bool { encoder.audioSrc.push(buffer) }

    func endOfStream() {
        encoder.videoSrc?.endOfStream()
        encoder.audioSrc.endOfStream()
    }

    /// Waits for the encoder to drain, then finishes every output (EOS, files finalised).
    func finish(timeout: TimeInterval = 20) {
        // An encoder that never started (an output failed to open) has nothing to drain.
        let running = state.withLock { $0.started }
        if running { _ = encodedDone.wait(timeout: .now() + timeout) }
        let group = DispatchGroup()
        for output in outputs {
            DispatchQueue.global().async(group: group) { output.finish(timeout: 10) }
        }
        _ = group.wait(timeout: .now() + 15)
        encoder.pipeline.stop()
    }

    /// Every output has failed for good.
    var allOutputsFailed: Bool {
        !outputs.isEmpty && outputs.allSatisfy { $0.status.state == .failed }
    }
}

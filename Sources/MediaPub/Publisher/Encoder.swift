import Foundation

/// The one encoding pipeline: raw frames and PCM from the capture in, H.264
/// and AAC out to appsinks, whose samples the publisher fans out. Nothing in it
/// changes after it is built.
final class Encoder: Sendable {
    let pipeline: Pipeline
    let videoSrc: AppSrc?
    let audioSrc: AppSrc
    let videoSink: AppSink?
    /// AAC, the sound of the video containers (nil when no output of the run takes it).
    let audioSink: AppSink?
    /// Each codec's encoded sound: one encoder per codec the run's outputs take.
    let audioSinks: [AudioCodec: AppSink]
    let bus: Bus
    /// The H.264 encoder element this run uses (nil without video).
    let videoEncoder: H264EncoderChoice?
    /// The picture as it reaches the H.264 encoder, after the overlays, when asked (the thumbnail).
    let frames = FrameGrab()

    /// What the encoder is made of, checked before anything starts: the H.264 encoder a
    /// run with pictures uses (nil without), and an AAC encoder. Throws, naming the element
    /// and its package, when one is not installed. Nothing is loaded but the H.264 encoder.
    static func choose(format: MediaFormat, video: VideoConfig?, audio: AudioConfig,
                       codecs: Set<AudioCodec> = [.aac]) throws -> H264EncoderChoice? {
        GStreamer.initialize()
        for codec in codecs { _ = try codec.encoderDescription(audio) }
        guard let video, format.video != nil else { return nil }
        return try H264EncoderChoice.choose(video, probe: H264EncoderChoice.probe)
    }

    /// `choice`: what `choose` returned (nil exactly when the run has no pictures).
    /// `codecs`: the sounds the outputs take, each encoded once (a tee feeds one encoder per codec).
    init(format: MediaFormat, video: VideoConfig?, audio: AudioConfig, choice: H264EncoderChoice?,
         codecs: Set<AudioCodec> = [.aac], overlays: OverlayChain? = nil) throws {
        GStreamer.initialize()
        guard (choice == nil) == (video == nil || format.video == nil) else {
            throw MediaPubError.pipeline("encoder: the H.264 encoder was not chosen for this run's pictures (Encoder.choose)")
        }
        // Every element is named for its stream, so that an error names the stream it stopped.
        // Neither appsink waits for a preroll (async=false): with it, the first buffer out
        // of one stream held that stream's thread until the other had one too, and the
        // capture, pushing both, stalled as soon as one appsrc was full (60 fps video
        // filled its one frame before AAC, which holds back its first 1024 samples, had
        // put anything out; x264's lookahead holds seconds of pictures).
        var parts: [String] = []
        if let video, let v = format.video, let caps = format.videoCaps, let choice {
            // One raw frame waits for the encoder, which the appsrc's own thread feeds:
            // the capture's next push waits for it. A queue after the appsrc (a thread
            // more) and a second frame in it were 4 MiB of peak RSS at 720p, not speed
            // (they were slack that hid the preroll coupling above, up to ~117 fps).
            let keyframes = max(1, Int((video.keyframeInterval * Double(v.fps)).rounded()))
            parts.append("appsrc name=video-src format=time is-live=false block=true max-bytes=\(format.videoFrameBytes) "
                + "caps=\"\(caps),framerate=\(v.fps)/1\" ! "
                + (overlays?.description ?? "")   // docs/presets.md, overlays: none, none in the pipeline
                + choice.element.description(video, keyframes: keyframes, bframes: choice.bframes)
                + " ! h264parse name=video-parse ! appsink name=video-sink sync=false async=false")
        }
        videoEncoder = choice  // nil exactly when the run has no pictures (the guard above)
        let audioIn = "appsrc name=audio-src format=time is-live=false block=true max-bytes=\(format.sampleRate * format.channels * 4) "
            + "caps=\"\(format.audioCaps)\" ! audioconvert name=audio-convert ! audioresample name=audio-resample ! "
        let ordered = codecs.sorted()
        guard !ordered.isEmpty else { throw MediaPubError.pipeline("encoder: no output takes the sound") }
        if ordered == [.aac] {
            parts.append(audioIn + (try AudioCodec.aac.encoderDescription(audio)) + " ! appsink name=audio-sink sync=false async=false")
        } else {
            // One branch per codec, on the tee's thread: each ends in an appsink that never blocks.
            parts.append(audioIn + "tee name=audio-tee")
            for codec in ordered {
                let sink = codec == .aac ? "audio-sink" : "audio-\(codec.rawValue)-sink"
                parts.append("audio-tee. ! " + (try codec.encoderDescription(audio)) + " ! appsink name=\(sink) sync=false async=false")
            }
        }
        pipeline = try Pipeline(description: parts.joined(separator: " "))
        if format.video != nil, video != nil { try overlays?.bind(pipeline) }
        videoSrc = pipeline.appSrc(named: "video-src")
        videoSink = pipeline.appSink(named: "video-sink")
        if let pad = pipeline.element(named: "video-encoder")?.staticPad("sink") { frames.install(on: pad) }
        guard let asrc = pipeline.appSrc(named: "audio-src") else { throw MediaPubError.pipeline("encoder: missing audio elements") }
        var sinks: [AudioCodec: AppSink] = [:]
        for codec in ordered {
            guard let sink = pipeline.appSink(named: codec == .aac ? "audio-sink" : "audio-\(codec.rawValue)-sink") else {
                throw MediaPubError.pipeline("encoder: missing the \(codec.rawValue) encoder's sink")
            }
            sinks[codec] = sink
        }
        audioSrc = asrc
        audioSinks = sinks
        audioSink = sinks[.aac]
        bus = pipeline.bus
    }

    /// The stream ("video" or "audio") an element of the encoding pipeline belongs to.
    static func stream(ofElement name: String) -> String? {
        name.hasPrefix("video-") ? "video" : name.hasPrefix("audio-") ? "audio" : nil
    }

    /// The encoder delay of AAC-LC (FFmpeg's and VisualOn's encoders alike).
    static let aacPrimingSamples = 1024

    static func audioEncoder(_ audio: AudioConfig) throws -> String {
        if GStreamer.hasElement("avenc_aac") { return "avenc_aac name=audio-encoder bitrate=\(audio.bitrate)" }
        if GStreamer.hasElement("voaacenc") { return "voaacenc name=audio-encoder bitrate=\(audio.bitrate)" }
        throw GStreamer.missing("avenc_aac")
    }
}

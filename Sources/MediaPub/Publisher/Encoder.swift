import Foundation

/// The one encoding pipeline: raw frames and PCM from the capture in, H.264
/// and AAC out to appsinks, whose samples the publisher fans out. Nothing in it
/// changes after it is built.
final class Encoder: Sendable {
    let pipeline: Pipeline
    let videoSrc: AppSrc?
    let audioSrc: AppSrc
    let videoSink: AppSink?
    let audioSink: AppSink
    let bus: Bus
    /// The H.264 encoder element this run uses (nil without video).
    let videoEncoder: H264EncoderChoice?

    /// What the encoder is made of, checked before anything starts: the H.264 encoder a
    /// run with pictures uses (nil without), and an AAC encoder. Throws, naming the element
    /// and its package, when one is not installed. Nothing is loaded but the H.264 encoder.
    static func choose(format: MediaFormat, video: VideoConfig?, audio: AudioConfig) throws -> H264EncoderChoice? {
        GStreamer.initialize()
        _ = try audioEncoder(audio)
        guard let video, format.video != nil else { return nil }
        return try H264EncoderChoice.choose(video, probe: H264EncoderChoice.probe)
    }

    /// `choice`: what `choose` returned (nil exactly when the run has no pictures).
    init(format: MediaFormat, video: VideoConfig?, audio: AudioConfig, choice: H264EncoderChoice?) throws {
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
                + choice.element.description(video, keyframes: keyframes, bframes: choice.bframes)
                + " ! h264parse name=video-parse ! appsink name=video-sink sync=false async=false")
        }
        videoEncoder = choice  // nil exactly when the run has no pictures (the guard above)
        parts.append("appsrc name=audio-src format=time is-live=false block=true max-bytes=\(format.sampleRate * format.channels * 4) "
            + "caps=\"\(format.audioCaps)\" ! audioconvert name=audio-convert ! "
            + "audioresample name=audio-resample ! " + (try Encoder.audioEncoder(audio))
            + " ! aacparse name=audio-parse ! appsink name=audio-sink sync=false async=false")
        pipeline = try Pipeline(description: parts.joined(separator: " "))
        videoSrc = pipeline.appSrc(named: "video-src")
        videoSink = pipeline.appSink(named: "video-sink")
        guard let asrc = pipeline.appSrc(named: "audio-src"), let asink = pipeline.appSink(named: "audio-sink") else {
            throw MediaPubError.pipeline("encoder: missing audio elements")
        }
        audioSrc = asrc
        audioSink = asink
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

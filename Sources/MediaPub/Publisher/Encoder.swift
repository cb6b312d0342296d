import CGStreamer
import Foundation

/// The one encoding pipeline: raw frames and PCM from the capture in, H.264
/// and AAC out to appsinks, whose samples the publisher fans out.
final class Encoder: @unchecked Sendable {
    let pipeline: Pipeline
    let videoSrc: AppSrc?
    let audioSrc: AppSrc
    let videoSink: AppSink?
    let audioSink: AppSink
    let bus: Bus

    init(format: MediaFormat, video: VideoConfig?, audio: AudioConfig) throws {
        GStreamer.initialize()
        var parts: [String] = []
        if let video, let v = format.video, let caps = format.videoCaps {
            let keyframes = max(1, Int((video.keyframeInterval * Double(v.fps)).rounded()))
            parts.append("appsrc name=vsrc format=time is-live=false block=true max-bytes=\(format.videoFrameBytes * 4) "
                + "caps=\"\(caps),framerate=\(v.fps)/1\" ! queue max-size-buffers=8 ! "
                + (try Encoder.videoEncoder(video, keyframes: keyframes))
                + " ! h264parse ! appsink name=venc sync=false")
        }
        parts.append("appsrc name=asrc format=time is-live=false block=true max-bytes=\(format.sampleRate * format.channels * 4) "
            + "caps=\"\(format.audioCaps)\" ! queue ! audioconvert ! audioresample ! "
            + (try Encoder.audioEncoder(audio)) + " ! aacparse ! appsink name=aenc sync=false")
        pipeline = try Pipeline(description: parts.joined(separator: " "))
        videoSrc = pipeline.appSrc(named: "vsrc")
        videoSink = pipeline.appSink(named: "venc")
        guard let asrc = pipeline.appSrc(named: "asrc"), let asink = pipeline.appSink(named: "aenc") else {
            throw MediaPubError.pipeline("encoder: missing audio elements")
        }
        audioSrc = asrc
        audioSink = asink
        bus = pipeline.makeBus()
    }

    static func videoEncoder(_ video: VideoConfig, keyframes: Int) throws -> String {
        let kbps = max(1, video.bitrate / 1000)
        let useX264 = video.encoder == .x264 || (video.encoder == .auto && GStreamer.hasElement("x264enc"))
        if useX264 {
            guard GStreamer.hasElement("x264enc") else { throw GStreamer.missing("x264enc") }
            return "x264enc bitrate=\(kbps) key-int-max=\(keyframes) speed-preset=\(video.encoderPreset) tune=zerolatency bframes=0 "
                + "! video/x-h264,profile=high"
        }
        guard GStreamer.hasElement("openh264enc") else { throw GStreamer.missing("openh264enc") }
        return "openh264enc bitrate=\(video.bitrate) gop-size=\(keyframes) rate-control=bitrate"
    }

    /// The encoder delay of AAC-LC (FFmpeg's and VisualOn's encoders alike).
    static let aacPrimingSamples = 1024

    static func audioEncoder(_ audio: AudioConfig) throws -> String {
        if GStreamer.hasElement("avenc_aac") { return "avenc_aac bitrate=\(audio.bitrate)" }
        if GStreamer.hasElement("voaacenc") { return "voaacenc bitrate=\(audio.bitrate)" }
        throw GStreamer.missing("avenc_aac")
    }
}

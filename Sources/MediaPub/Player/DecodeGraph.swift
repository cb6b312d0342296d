import Foundation

/// The decoding pipeline's shape: source → decoders → converters → appsinks in
/// the output's raw formats, as gst-launch descriptions, and the settings its
/// decoders get as decodebin adds them.
enum DecodeGraph {
    /// `dropping`: a live feed's (docs/presets.md, live), whose appsinks drop their oldest
    /// buffer when full rather than hold the network source back: what waits for the
    /// capture stays short (some 1.5 s of sound, 12 pictures), whatever the sender does.
    /// It holds a whole burst: an MPEG-TS sender's sound comes some 300 ms at a time
    /// (10 buffers cut each burst short, a gap every 300 ms).
    static func audioBranch(format: MediaFormat, pitch: Double, dropping: Bool = false) -> String {
        let pitchStage = pitch == 0 ? "" : "pitch name=pitch pitch=\(pitchRatio(pitch)) ! audioconvert ! "
        return "queue max-size-buffers=0 max-size-bytes=0 max-size-time=3000000000 ! audioconvert ! audioresample ! "
            + "scaletempo ! audioconvert ! \(pitchStage)audioresample ! \(format.audioCaps) ! "
            + "appsink name=asink sync=false \(dropping ? "max-buffers=64 drop=true" : "max-buffers=16") enable-last-sample=false"
    }

    /// Semitones to soundtouch's frequency ratio: n semitones → 2^(n/12).
    static func pitchRatio(_ semitones: Double) -> Double { pow(2.0, semitones / 12.0) }

    /// Scaled to the output size first, then held: what waits in the appsink is
    /// output-size frames, whatever the source's size (a 4K source queued before its
    /// scaler held a second of 12 MB frames).
    static func videoBranch(format: MediaFormat, still: Bool, dropping: Bool = false) -> String {
        "\(scaler) ! \(format.videoCaps ?? "video/x-raw") ! "
            + (still ? "imagefreeze ! " : "")
            + "appsink name=vsink sync=false \(dropping ? "max-buffers=12 drop=true" : "max-buffers=\(videoSinkFrames)") enable-last-sample=false"
    }

    /// Decoded frames the appsink holds ahead of the capture, which holds the next
    /// and the shown one (and the decoder one more, waiting to hand it over): 4
    /// frames, 130 ms at 30 fps, decoded from compressed input queued ahead (by
    /// decodebin, and for seconds when streamed). A queue before the appsink held 2
    /// more and 1 on its thread: 4 MiB of peak RSS at 720p, and no speed (each 720p
    /// frame is 1.4 MB).
    static let videoSinkFrames = 2

    /// One element that converts and scales in one pass (GStreamer 1.22+), else the pair.
    private static let scaler = GStreamer.hasElement("videoconvertscale")
        ? "videoconvertscale add-borders=true" : "videoconvert ! videoscale add-borders=true"

    /// The whole pipeline for a source read by GStreamer itself (not from memory).
    static func describe(_ spec: SourceSpec, format: MediaFormat, wantsVideo: Bool, pitch: Double) -> String {
        switch spec {
        case .testPattern(let pattern, let frequency):
            var parts: [String] = []
            if wantsVideo, let v = format.video {
                parts.append("videotestsrc pattern=\(pattern) ! video/x-raw,width=\(v.width),height=\(v.height),framerate=\(v.fps)/1 ! "
                    + videoBranch(format: format, still: false))
            }
            parts.append("audiotestsrc wave=sine freq=\(frequency) volume=0.5 samplesperbuffer=\(max(64, format.sampleRate / 50)) ! "
                + audioBranch(format: format, pitch: pitch))
            return parts.joined(separator: " ")
        case .uri(let uri, _):
            return "uridecodebin name=dec uri=\(GStreamer.quote(uri)) buffer-duration=3000000000"
        }
    }

    /// Bytes served from memory, decoded by decodebin.
    static let fromMemory = "appsrc name=memsrc ! decodebin name=dec"

    /// libav's video decoders thread by frames by default: one frame-thread per core,
    /// each holding frames of the source's size (a 4K frame is 12 MB), memory that
    /// grows with the source and the machine (a 4K item and the next one prerolling:
    /// +150 MB with 2 cores). Slice threading decodes one frame at a time (parallel
    /// where the stream has slices) and holds no extra frames.
    static func limitDecoderThreads(_ element: Element) {
        guard element.factoryName?.hasPrefix("avdec_") == true else { return }
        element.set("thread-type", int: 2)  // GST_AV_DEC_THREAD_TYPE_SLICE
    }

    /// GStreamer 1.22's MP3 parser and decoders leave the encoder delay and padding in
    /// (some 45 ms of silence per item: a gap at every item change and repeat); they
    /// are cut as ffmpeg cuts them, from the LAME tag (an MP3 of N s decodes to N s).
    static func trimMP3Padding(_ element: Element) {
        guard let name = element.factoryName, ["avdec_mp3", "avdec_mp3float", "mpg123audiodec"].contains(name) else { return }
        element.trimMP3Padding()
    }
}

import Foundation

/// The raw formats players decode to and the capture works in: the output's
/// audio rate and channels as interleaved 32-bit float, and I420 video at the
/// output size (letterboxed, square pixels).
public struct MediaFormat: Sendable, Equatable {
    public var sampleRate: Int
    public var channels: Int
    /// nil for an audio-only run.
    public var video: (width: Int, height: Int, fps: Int)?

    public init(sampleRate: Int, channels: Int, video: (width: Int, height: Int, fps: Int)?) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.video = video
    }

    public static func == (a: MediaFormat, b: MediaFormat) -> Bool {
        a.sampleRate == b.sampleRate && a.channels == b.channels
            && a.video?.width == b.video?.width && a.video?.height == b.video?.height && a.video?.fps == b.video?.fps
    }

    public init(preset: Preset) {
        self.init(sampleRate: preset.audio.sampleRate, channels: preset.audio.channels,
                  video: preset.video.map { ($0.width, $0.height, $0.fps) })
    }

    /// Ticks of the output timeline per second: the video frame rate, or 50 for an audio-only run.
    var tickRate: Int { video?.fps ?? 50 }

    /// The output timeline's clock in this format.
    var tickClock: TickClock { TickClock(tickRate: tickRate, sampleRate: sampleRate) }

    var audioCaps: String {
        "audio/x-raw,format=F32LE,layout=interleaved,rate=\(sampleRate),channels=\(channels)"
    }

    var videoCaps: String? {
        guard let v = video else { return nil }
        return "video/x-raw,format=I420,width=\(v.width),height=\(v.height),pixel-aspect-ratio=1/1"
    }

    /// Bytes of one I420 frame as GStreamer lays it out.
    var videoFrameBytes: Int {
        guard let v = video else { return 0 }
        return I420Layout(width: v.width, height: v.height).size
    }
}

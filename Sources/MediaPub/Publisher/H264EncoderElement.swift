/// An H.264 encoder element the publisher drives, and the gst-launch description
/// that sets it up from a preset's video section. Pure: nothing here asks
/// GStreamer (see `H264EncoderChoice` for which one a run gets).
enum H264EncoderElement: String, CaseIterable, Sendable {
    case x264enc, openh264enc
    /// VA-API: the va plugin's (gstreamer1.0-plugins-bad), then gstreamer-vaapi's.
    case vah264enc, vaapih264enc
    /// NVIDIA NVENC (the nvcodec plugin).
    case nvh264enc
    /// A V4L2 memory-to-memory encoder (Raspberry Pi, many ARM boards).
    case v4l2h264enc

    /// The elements `kind` may run on, in the order they are tried.
    static func candidates(for kind: VideoEncoderKind) -> [Self] {
        switch kind {
        case .x264: return [.x264enc]
        case .openh264: return [.openh264enc]
        case .vaapi: return [.vah264enc, .vaapih264enc]
        case .nvenc: return [.nvh264enc]
        case .v4l2: return [.v4l2h264enc]
        case .auto: return hardware + [.x264enc, .openh264enc]
        }
    }

    /// The hardware encoders `auto` tries first, in this order.
    static let hardware: [Self] = [.nvh264enc, .vah264enc, .vaapih264enc, .v4l2h264enc]

    var isHardware: Bool { Self.hardware.contains(self) }

    /// A hardware encoder's plugin, which offers the element only when it finds `device`.
    var plugin: String? {
        switch self {
        case .x264enc, .openh264enc: return nil
        case .vah264enc: return "va"
        case .vaapih264enc: return "vaapi"
        case .nvh264enc: return "nvcodec"
        case .v4l2h264enc: return "video4linux2"
        }
    }

    /// What a hardware encoder's plugin looks for (said after "found no").
    var device: String? {
        switch self {
        case .x264enc, .openh264enc: return nil
        case .vah264enc, .vaapih264enc: return "VA-API device (/dev/dri/renderD*) whose driver encodes H.264"
        case .nvh264enc: return "NVIDIA GPU with NVENC (and the NVIDIA driver)"
        case .v4l2h264enc: return "V4L2 H.264 encoder device (/dev/video*)"
        }
    }

    /// The most B-frames it makes (its property's range; NVENC's H.264 limit); 0: none.
    var maxBFrames: Int {
        switch self {
        case .x264enc: return 16
        case .openh264enc, .v4l2h264enc: return 0
        case .nvh264enc: return 4
        case .vah264enc, .vaapih264enc: return 10
        }
    }

    /// From the capture's raw frames (I420) to H.264 of `video.profile`: the encoder named
    /// `video-encoder` (errors name the stream by the prefix), then its output caps.
    /// `keyframes` is the longest GOP in frames; `bframes` is what this element makes.
    func description(_ video: VideoConfig, keyframes: Int, bframes: Int) -> String {
        let kbps = max(1, video.bitrate / 1000)
        let zerolatency = video.tune == .zerolatency
        var settings: [String]
        switch self {
        case .x264enc:
            // Without a tune x264 looks ahead (rc-lookahead 40) and places B-frames adaptively.
            settings = ["bitrate=\(kbps)", "key-int-max=\(keyframes)", "speed-preset=\(video.encoderPreset)"]
                + (zerolatency ? ["tune=zerolatency"] : []) + ["bframes=\(bframes)"]
        case .openh264enc:
            settings = ["bitrate=\(video.bitrate)", "gop-size=\(keyframes)", "rate-control=bitrate"]
        case .vah264enc:
            settings = ["bitrate=\(kbps)", "key-int-max=\(keyframes)", "b-frames=\(bframes)"]
        case .vaapih264enc:
            settings = ["rate-control=cbr", "bitrate=\(kbps)", "keyframe-period=\(keyframes)", "max-bframes=\(bframes)"]
        case .nvh264enc:
            // bframes exists only on GPUs that make B-frames: given only when asked for.
            settings = ["rc-mode=cbr", "bitrate=\(kbps)", "gop-size=\(keyframes)"]
                + (zerolatency ? ["zerolatency=true"] : []) + (bframes > 0 ? ["bframes=\(bframes)"] : [])
        case .v4l2h264enc:
            let controls = "controls,video_bitrate=\(video.bitrate),h264_i_frame_period=\(keyframes)"
            settings = ["extra-controls=\(GStreamer.quote(controls))"]
        }
        // Hardware encoders take NV12 (vah264enc nothing else).
        let input = isHardware
            ? "videoconvert name=video-convert ! capsfilter name=video-nv12 caps=video/x-raw,format=NV12 ! " : ""
        return input + ([rawValue, "name=video-encoder"] + settings).joined(separator: " ")
            + " ! capsfilter name=video-caps caps=video/x-h264,profile=\(video.profile.rawValue)"
    }
}

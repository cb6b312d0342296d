/// The H.264 encoder choices of a preset's video section (docs/presets.md, video): which encoder,
/// tuned for what, and the profile it writes.

/// `video.encoder`: a software encoder, a family of hardware ones, or `auto`.
public enum VideoEncoderKind: String, Equatable, Sendable, CaseIterable {
    case x264, openh264, vaapi, nvenc, v4l2, auto

    /// The most B-frames the encoder makes (0: none): the least of its elements';
    /// `auto` is checked against the element it chooses, once it has chosen.
    public var maxBFrames: Int {
        let limits = H264EncoderElement.candidates(for: self).map(\.maxBFrames)
        return (self == .auto ? limits.max() : limits.min()) ?? 0
    }
}

/// `video.tune`: what the encoder is set up for.
public enum VideoTune: String, Equatable, Sendable, CaseIterable {
    /// Least delay: no lookahead and, unless `bframes` says otherwise, no B-frames.
    case zerolatency
    /// Better pictures for the bitrate: lookahead and B-frames (recordings, platforms that take B-frames).
    case quality

    /// The B-frames a preset that does not give `bframes` gets.
    public var defaultBFrames: Int { self == .quality ? 2 : 0 }
}

/// `video.profile`: the H.264 profile the encoder is asked for (its output caps).
public enum H264Profile: String, Equatable, Sendable, CaseIterable {
    case baseline, main, high

    /// Baseline has no B-frames.
    public var allowsBFrames: Bool { self != .baseline }
}

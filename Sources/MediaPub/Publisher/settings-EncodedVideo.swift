import Foundation

/// What the H.264 encoder makes, as its parser read it from the stream (the SPS
/// in h264parse's caps), not what the preset asked for: x264's speed presets
/// change the profile (`encoder_preset: ultrafast` makes Constrained Baseline
/// whatever `profile` says), and the log says what viewers get.
struct EncodedVideo: Equatable, Sendable {
    /// GStreamer's name: `constrained-baseline`, `main`, `high`…
    var profile: String
    /// `3`, `3.1`, `4`…; nil when the stream does not say.
    var level: String?
    /// What the encoder makes: none in a baseline profile, else what it was set to make.
    var bframes: Int

    /// nil for caps that carry no profile.
    init?(caps: Caps, bframes: Int) {
        guard let s = caps.firstStructure, let profile = s.string("profile") else { return nil }
        self.profile = profile
        level = s.string("level")
        self.bframes = profile.hasSuffix("baseline") ? 0 : bframes
    }

    /// `profile constrained-baseline, level 3, bframes 0`
    var summary: String {
        "profile \(profile)" + (level.map { ", level \($0)" } ?? "") + ", bframes \(bframes)"
    }
}

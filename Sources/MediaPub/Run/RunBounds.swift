import Foundation

/// What a run can do, checked before it starts: `PresetLoader` checks a preset
/// read from a file; a `Preset` or `RunOptions` made in code is checked here,
/// so that no number reaches a conversion that would trap.
enum RunBounds {
    /// The first number of `preset` or `options` outside what a run can do, named, or nil.
    static func firstProblem(_ preset: Preset, _ options: RunOptions) -> String? {
        let most = MediaTime.maxDuration
        func duration(_ key: String, _ t: TimeInterval?, min: TimeInterval = 0, open: Bool = false) -> String? {
            guard let t else { return nil }
            if t.isFinite, t <= most, open ? t > min : t >= min { return nil }
            return "\(key) \(t)s is out of range (more than \(MediaTime.formatDuration(min)), at most \(MediaTime.maxDurationText))"
        }
        func number<T: Comparable>(_ key: String, _ v: T, _ range: ClosedRange<T>) -> String? {
            range.contains(v) ? nil : "\(key) \(v) is out of range \(range.lowerBound)..\(range.upperBound)"
        }
        var problems: [String?] = [
            duration("--duration", options.duration, open: true),
            duration("stop.after", preset.stop.after, open: true),
            duration("reconnect.initial", preset.reconnect.initial, min: 0.1),
            duration("reconnect.max", preset.reconnect.max, min: 0.1),
            preset.reconnect.giveUpAfter == .infinity ? nil : duration("reconnect.give_up_after", preset.reconnect.giveUpAfter),
            number("audio.channels", preset.audio.channels, AudioConfig.channelsRange),
            number("audio.bitrate", preset.audio.bitrate, AudioConfig.bitrateRange),
            AudioConfig.sampleRates.contains(preset.audio.sampleRate) ? nil : "audio.sample_rate \(preset.audio.sampleRate) is not supported",
        ]
        if let v = preset.video {
            problems += [
                number("video.width", v.width, VideoConfig.widthRange),
                number("video.height", v.height, VideoConfig.heightRange),
                number("video.fps", v.fps, VideoConfig.fpsRange),
                number("video.bitrate", v.bitrate, VideoConfig.bitrateRange),
                number("video.keyframe_interval", v.keyframeInterval, VideoConfig.keyframeIntervalRange),
            ]
        }
        for (i, p) in preset.players.enumerated() {
            let key = "players[\(i)]"
            problems += [
                duration("\(key).start_at", p.startAt),
                number("\(key).progress_interval", p.progressInterval, PlayerConfig.progressIntervalRange),
                number("\(key).speed", p.speed, PlayerConfig.speedRange),
                number("\(key).pitch", p.pitch, PlayerConfig.pitchRange),
                number("\(key).publish_volume", p.publishVolume, PlayerConfig.volumeRange),
                number("\(key).play_volume", p.playVolume, PlayerConfig.volumeRange),
            ]
        }
        return problems.lazy.compactMap { $0 }.first
    }
}

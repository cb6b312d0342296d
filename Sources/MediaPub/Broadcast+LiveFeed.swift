import Foundation

/// A run with a live feed (docs/presets.md, live): the feed made with the broadcast,
/// its changes said as `live.state` events, and what `status` shows of it.
extension Broadcast {
    /// The feed of `preset.live` over the preset's players; nil without one.
    static func liveFeedTakeover(_ preset: Preset, format: MediaFormat, programme: [MediaPlayer], reporter: Reporter) -> LiveFeedTakeover? {
        guard let config = preset.live else { return nil }
        let shown = SecretMask.mask(url: config.source)
        let feed = LiveFeedTakeover(config: config, format: format, programme: programme) { state, reason in
            reporter.report(.liveState(state: state, source: shown, reason: reason))
        }
        if PathResolution.scheme(of: config.source) == "srt" {
            LibraryLog.onSRTRefusal { [weak feed] in feed?.refused("a sender was refused: wrong passphrase") }
        }
        return feed
    }

    /// `status`'s `live`; nil without a feed.
    func liveFeedStatus() -> LiveFeedStatus? {
        guard let feed = liveFeed else { return nil }
        let now = feed.snapshot
        return LiveFeedStatus(state: now.state, source: SecretMask.mask(url: feed.config.source), mode: now.mode.rawValue,
                              onAirMs: Int(now.onAirSeconds * 1000), delayMs: Int((now.delay * 1000).rounded()),
                              framesDropped: now.framesDropped, framesRepeated: now.framesRepeated,
                              bitrateKbps: Int(min(1e9, max(0, now.bitrate / 1000)).rounded()))
    }
}

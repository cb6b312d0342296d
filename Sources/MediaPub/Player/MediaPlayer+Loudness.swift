import Foundation

/// The player's part of `audio.loudness` (docs/presets.md): each item's gain (`ItemGain`),
/// applied in `render` to the item's samples before the taps and the capture get them, with
/// the tick's other gains (`GainEnvelope`; across a crossfade, each of the two items at its own).
extension MediaPlayer {
    /// Gives each item a gain to `loudness`'s target from now on (nil: none), and has the
    /// first items measured at once when the player's sound is heard (`monitored`: the run
    /// plays every player on the local monitor).
    func useLoudness(_ loudness: ItemLoudness?, monitored: Bool = false) {
        let items = state.withLock { s -> [String] in
            s.gain = loudness.map { ItemGain(loudness: $0, sampleRate: format.sampleRate, monitored: monitored) }
            return soundIsHeard(s) ? [s.playlist.current, s.playlist.followingItem].compactMap { $0 } : []
        }
        loudness?.request(items)
    }

    /// The player's sound goes somewhere: into the mix (`aux`), to the local monitor, or to a
    /// tap. Only then are its items measured: an `aux: false` picture's sound that nothing
    /// hears costs no decoding.
    func soundIsHeard(_ s: borrowing State) -> Bool {
        s.config.aux || s.gain?.monitored == true || !s.taps.audio.isEmpty
    }

    /// As fast as possible (`wait` > 0), before a tick: waits, up to `wait`, for the measure
    /// of the item playing and of the next one, once each, so that each begins at its own gain.
    func awaitItemLoudness(wait: Double) {
        guard wait > 0 else { return }
        let (loudness, items) = state.withLock { s -> (ItemLoudness?, [String]) in
            guard s.gain != nil, soundIsHeard(s) else { return (nil, []) }
            return (s.gain?.loudness, s.gain?.toAwait(current: s.current?.source, next: s.playlist.followingItem) ?? [])
        }
        guard let loudness, !items.isEmpty else { return }
        loudness.wait(for: items, until: MonotonicInstant.now.addingTimeInterval(wait))
    }

    /// What `player.track` says of the item `source`: its loudness and the gain it plays at; nil without `audio.loudness`.
    func trackLoudness(source: String) -> TrackLoudness? {
        state.withLock { s in s.gain?.report(for: source) }
    }
}

/// An item's loudness in `player.track` (docs/events.md).
public struct TrackLoudness: Sendable, Equatable {
    /// LUFS; nil when not measured (yet).
    public var lufs: Double?
    /// The gain it plays at, in dB.
    public var gainDB: Double

    init(_ report: (lufs: Double?, gainDB: Double)) {
        lufs = report.lufs.map { ($0 * 10).rounded() / 10 }
        gainDB = (report.gainDB * 10).rounded() / 10
    }
}

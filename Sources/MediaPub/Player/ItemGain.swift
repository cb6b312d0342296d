import Foundation

/// A player's gain per item for `audio.loudness` (docs/presets.md): one gain for the whole
/// item, from its integrated loudness (`ItemLoudness`), so nothing pumps. An item not
/// measured when it begins plays at the conservative gain and, once measured, moves to
/// its own gain over `settle` (in dB, evenly); at an item change the new item's gain is
/// reached within the tick. An item is measured only while its sound is heard (`apply`'s
/// `heard`: in the mix, on the local monitor or by a tap); one that never is stays at the
/// conservative gain. Kept in the player's state, used under its lock.
struct ItemGain {
    let loudness: ItemLoudness
    let sampleRate: Int
    /// The run plays its players on the local monitor: every player's sound is heard there.
    let monitored: Bool
    /// What the gain is for: the session, its source, and whether it was measured.
    private var session: ObjectIdentifier?
    private var source = ""
    private(set) var measured: Double?
    private var settled = false
    /// The item and the next one were asked to be measured (once per item).
    private var requested = false
    /// What the item's `player.track` said of it (nil: not said yet), and what one said of
    /// an item before it began.
    private var reported: TrackLoudness?
    private var saidAhead: (source: String, said: TrackLoudness)?
    /// Items waited for once already (a run as fast as possible waits for a measure only once).
    private var awaited: [String] = []
    /// The gain now, where it goes, and the frames left to get there (dB).
    private(set) var gainDB: Double
    private var goalDB: Double
    private var framesLeft = 0
    /// The gain of the item before this one, which a crossfade goes on fading out.
    private(set) var outgoingDB = 0.0

    /// The slowest an unmeasured item's gain moves to its measured one.
    static let settle: TimeInterval = 3

    init(loudness: ItemLoudness, sampleRate: Int, monitored: Bool = false) {
        self.loudness = loudness
        self.sampleRate = sampleRate
        self.monitored = monitored
        gainDB = loudness.config.conservativeGain
        goalDB = gainDB
    }

    /// The gain `item` gets now, and its loudness when it was measured.
    func decide(_ item: String) -> (lufs: Double?, gainDB: Double, measured: Bool) {
        let config = loudness.config
        guard case .some(let lufs) = loudness.looked(item) else { return (nil, config.conservativeGain, false) }
        return (lufs, config.gain(measured: lufs) ?? config.conservativeGain, true)
    }

    /// What `player.track` says of the item `source`: its loudness and the gain it plays
    /// at (or goes to), noted as said when it is the item playing.
    mutating func report(for source: String) -> TrackLoudness {
        guard source == self.source, session != nil else {
            let d = decide(source)
            saidAhead = (source, TrackLoudness((d.lufs, d.gainDB)))
            return saidAhead!.said
        }
        let said = TrackLoudness((measured, goalDB))
        reported = said
        return said
    }

    /// The items a run as fast as possible waits for before going on (once each): the one
    /// playing, if its gain is not settled yet, and the next one.
    mutating func toAwait(current: String?, next: String?) -> [String] {
        let items = [current, next].compactMap { $0 }.filter { !awaited.contains($0) && loudness.looked($0) == nil }
        awaited = Array((awaited + items).suffix(8))
        return items
    }

    /// Applies the gain to `frames` interleaved frames of `session`'s item (`source`);
    /// `next`: the item after it, measured ahead; `crossfading`: the item before it fades
    /// out under it at its own gain (`outgoingGain`); `heard`: its sound goes somewhere, so
    /// it and the next item are measured. True when what its `player.track`
    /// said is no longer so (it was measured since): an updated one is due.
    @discardableResult
    mutating func apply(to out: UnsafeMutablePointer<Float>, frames: Int, channels: Int,
                        session: ObjectIdentifier?, source: String, next: String?, crossfading: Bool = false,
                        heard: Bool = true) -> Bool {
        let (ramp, stale) = advance(frames: frames, session: session, source: source, next: next, crossfading: crossfading,
                                    heard: heard)
        var envelope = GainEnvelope(itemFrom: ramp.from, itemTo: ramp.to, itemRamp: ramp.frames)
        _ = envelope.apply(to: out, incoming: frames, outgoing: nil, outgoingFrames: 0, frames: frames, channels: channels)
        return stale
    }

    /// The item's gain over a tick of `frames`: linear from `from` to `to` over its first
    /// `frames` (then `to`), as `apply` applies it (`GainEnvelope` applies it with the other
    /// gains); with whether an updated `player.track` is due, as `apply` says.
    mutating func advance(frames: Int, session: ObjectIdentifier?, source: String, next: String?, crossfading: Bool = false,
                          heard: Bool = true) -> (ramp: (from: Float, to: Float, frames: Int), stale: Bool) {
        var from = gainDB
        // (An identifier can come back for a session made after another was freed: the source tells them apart.)
        if session != self.session || source != self.source {
            let first = self.session == nil
            outgoingDB = gainDB
            self.session = session
            self.source = source
            reported = saidAhead?.source == source ? saidAhead?.said : nil
            saidAhead = nil
            let d = decide(source)
            (measured, goalDB, settled) = (d.lufs, d.gainDB, d.measured)
            // The first item, or one crossfaded in, begins at its gain; a later one reaches it
            // within the tick (which holds the end of the one before).
            if first || crossfading { from = goalDB }
            framesLeft = max(1, frames)
            requested = false
        } else if !settled, requested, case .some(let lufs) = loudness.looked(source) {
            measured = lufs
            settled = true
            goalDB = loudness.config.gain(measured: lufs) ?? goalDB
            framesLeft = Int(ItemGain.settle * Double(sampleRate))
        }
        if heard, !requested {
            requested = true
            loudness.request([source] + [next].compactMap { $0 })
        }
        let now = TrackLoudness((measured, goalDB))
        let stale = reported != nil && reported != now
        if stale { reported = now }
        return (ramp(frames: frames, from: from), stale)
    }

    /// The outgoing item's gain (linear).
    var outgoingGain: Float { outgoingDB == 0 ? 1 : Float(pow(10, outgoingDB / 20)) }

    /// Moves the gain on by `frames`, from `from` dB at the first frame: the linear gains at
    /// the tick's two ends (the move is even in dB over seconds), and over how many frames.
    private mutating func ramp(frames: Int, from: Double) -> (from: Float, to: Float, frames: Int) {
        let step = min(frames, framesLeft)
        gainDB = framesLeft > 0 ? from + (goalDB - from) * Double(step) / Double(framesLeft) : goalDB
        framesLeft -= step
        guard frames > 0, !(from == 0 && gainDB == 0) else { return (1, 1, 0) }
        return (Float(pow(10, from / 20)), Float(pow(10, gainDB / 20)), step)
    }
}

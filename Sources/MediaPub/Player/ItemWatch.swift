import Foundation

/// The current item's watch, a pure value: its last progress event (docs/events.md,
/// `player.progress`), and whether it gives what the ticks ask for (docs/design.md, The
/// player's deck): a source that gives nothing counts as buffering past
/// `MediaPlayer.stallLimit` of output, and as broken once it has given nothing, or too
/// little, for `limit` seconds on the monotonic clock (`MediaPlayer+Feed` asks each tick).
struct ItemWatch: Sendable {
    /// Where the last progress event was (ms of media time, a multiple of the step); nil: none since the item (re)started.
    private(set) var lastProgressMs: Int?
    /// Output time the playing source has given nothing.
    private(set) var stalled = ClockTime.zero
    /// When the playing source last stopped giving (nil while it gives).
    private(set) var starvedSince: MonotonicInstant?

    /// What one tick found of the playing source.
    struct Verdict: Sendable, Equatable {
        /// Given nothing for longer than `MediaPlayer.stallLimit`: the slate stands in for its picture.
        let buffering: Bool
        /// Given nothing or too little for `limit` seconds: it has played out what was queued.
        let broken: Bool
    }

    /// A new item, or a new session of it: nothing is known of it yet.
    mutating func restart() {
        self = ItemWatch()
    }

    /// The position jumped (a seek in place): the next progress event goes out at once.
    mutating func positionMoved() {
        lastProgressMs = nil
    }

    /// At `position` (ms of media time), with events every `step` ms: whether a progress event is due (noted as sent).
    mutating func progressDue(at position: Int, step: Int) -> Bool {
        if let last = lastProgressMs, position >= last, position - last < step { return false }
        lastProgressMs = position - position % step
        return true
    }

    /// The player is not playing: no starving counts.
    mutating func notPlaying() {
        starvedSince = nil
    }

    /// One tick of `length`: `progressed` (it gave sound, or has none to give), `filled` of
    /// `frames` given; `item`: a source is current; the tick `began` waiting, it is `now`.
    mutating func tick(length: ClockTime, progressed: Bool, filled: Int, frames: Int, playing: Bool, item: Bool,
                       began: MonotonicInstant, now: MonotonicInstant, limit: TimeInterval) -> Verdict {
        stalled = progressed ? .zero : stalled + length
        let buffering = stalled > MediaPlayer.stallLimit
        if !playing || filled >= frames || (progressed && filled == 0) {
            starvedSince = nil  // all it was asked for, or it was not asked (no audio)
            return Verdict(buffering: buffering, broken: false)
        }
        guard item else { return Verdict(buffering: buffering, broken: false) }
        // Short this tick (it waited since it began for what did not come), or nothing again.
        let since = filled > 0 ? began : (starvedSince ?? began)
        starvedSince = since
        guard now.timeIntervalSince(since) >= limit else { return Verdict(buffering: buffering, broken: false) }
        starvedSince = nil
        return Verdict(buffering: buffering, broken: true)
    }
}

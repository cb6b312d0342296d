import Foundation

/// How the current item goes on, as the player's deck keeps it (docs/design.md, The
/// player's deck), a pure value: after a segment it had to leave out (it resumes from there
/// in a new session, no new track), what the player goes on with once its playlist is over
/// (a programme's filler after a block), how far ahead a reopening starts, and the hold of
/// a live feed on air (docs/presets.md, live, `programme: pause`). `MediaPlayer` executes
/// what its methods say (`MediaPlayer+Items`, `MediaPlayer+Failures`, `MediaPlayer+Hold`).
struct DeckCourse: Sendable {
    /// An HLS segment of the current item could not be fetched: once what decoded has
    /// played, the item goes on from here (ms), in a new session.
    private(set) var resumeAtMs: Int?
    /// The current session continues the item (a skipped segment, a restarted origin):
    /// its start is no new track.
    private(set) var continuing = false
    /// Output seconds the last reopening of the current item took to take over
    /// (`MediaPlayer+Switch`): the next one opens that far ahead of where the item is.
    private(set) var reopenLead: TimeInterval = 0
    /// What the player goes on with once its playlist is over, as a cut (nil: it ends).
    var followOn: Playlist?
    /// Held paused by a live feed on air; nil: not held.
    private(set) var hold: Hold?

    struct Hold: Sendable, Equatable {
        /// Paused (`ctl pause`) when the hold began, and nothing has taken its place since.
        var pausedBefore: Bool
    }

    /// A segment of the current item was left out: it resumes from `ms` once what decoded
    /// has played (the first such failure counts; later ones are its consequences).
    mutating func segmentLeftOut(resumeAtMs ms: Int) {
        if resumeAtMs == nil { resumeAtMs = ms }
    }

    /// The item goes on in a new session (from where it resumes, or its origin joined
    /// again): that session's start is no new track.
    mutating func goesOn() {
        resumeAtMs = nil
        continuing = true
    }

    /// The current item went, or another session took its place as the item: nothing of
    /// its course is kept.
    mutating func itemGone() {
        resumeAtMs = nil
        continuing = false
    }

    /// The current session is ready: whether its start is a new track (not when it goes
    /// on with the item). It is the item's own session from here.
    mutating func started() -> Bool {
        defer { continuing = false }
        return !continuing
    }

    /// A reopening of the current item took `seconds` of output to take over: the next
    /// one opens that far ahead (at most 1 s).
    mutating func reopened(took seconds: TimeInterval) {
        reopenLead = min(1, max(0, seconds))
    }

    /// The playlist is over: what the player goes on with, given once.
    mutating func takeFollowOn() -> Playlist? {
        defer { followOn = nil }
        return followOn
    }

    /// A live feed goes on air, the player in `phase`: whether the hold begins now (not
    /// when held already). A playing player pauses.
    mutating func holdBegins(phase: PlayerState) -> Bool {
        guard hold == nil else { return false }
        hold = Hold(pausedBefore: phase == .paused)
        return true
    }

    /// The feed went off air: whether the player resumes (it was held, and not paused by
    /// `ctl pause` before, or something took its place since).
    mutating func holdEnds() -> Bool {
        guard let ended = hold else { return false }
        hold = nil
        return !ended.pausedBefore
    }

    /// What the player's new state `new` is while held: playing is paused (and what was
    /// paused before the hold is no longer what plays).
    mutating func held(_ new: PlayerState) -> PlayerState {
        guard new == .playing, hold != nil else { return new }
        hold?.pausedBefore = false
        return .paused
    }
}

import Foundation

/// The programme held by a live feed on air (docs/presets.md, live, `programme: pause`):
/// paused as `pause()` does, and kept paused while the feed is on air, whatever lands
/// meanwhile (a block's cue, the next item, a load: each takes its place paused at its
/// start, where the programme then comes back from). `releaseHold()` resumes it unless
/// it was paused already when the hold began and nothing new took its place since.
extension MediaPlayer {
    func hold() {
        state.withLock { s in
            guard s.hold == nil else { return }
            s.hold = Hold(pausedBefore: s.phase == .paused)
            guard s.phase == .playing else { return }
            s.frozenFrame = s.current?.lastVideo
            setState(.paused, &s)
        }
    }

    func releaseHold() {
        state.withLock { s in
            guard let hold = s.hold else { return }
            s.hold = nil
            guard s.phase == .paused, !hold.pausedBefore else { return }
            setState(s.currentReady ? .playing : .loading, &s)
        }
    }

    struct Hold {
        /// Paused (`ctl pause`) when the hold began, and nothing has taken its place since.
        var pausedBefore: Bool
    }

    /// Under the lock, for `setState`: what `new` is while the player is held (playing is paused).
    func held(_ new: PlayerState, _ s: inout State) -> PlayerState {
        guard new == .playing, s.hold != nil else { return new }
        s.hold?.pausedBefore = false
        return .paused
    }
}

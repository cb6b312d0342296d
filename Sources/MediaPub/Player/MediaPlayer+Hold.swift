import Foundation

/// The programme held by a live feed on air (docs/presets.md, live, `programme: pause`):
/// paused as `pause()` does, and kept paused while the feed is on air, whatever lands
/// meanwhile (a block's cue, the next item, a load: each takes its place paused at its
/// start, where the programme then comes back from). `releaseHold()` resumes it unless
/// it was paused already when the hold began and nothing new took its place since.
extension MediaPlayer {
    func hold() {
        state.withLock { s in
            guard s.deck.course.holdBegins(phase: s.phase), s.phase == .playing else { return }
            s.frozenFrame = s.current?.lastVideo
            setState(.paused, &s)
        }
    }

    func releaseHold() {
        state.withLock { s in
            guard s.deck.course.holdEnds(), s.phase == .paused else { return }
            setState(s.currentReady ? .playing : .loading, &s)
        }
    }

    /// Under the lock, for `setState`: what `new` is while the player is held (playing is paused).
    func held(_ new: PlayerState, _ s: inout State) -> PlayerState {
        s.deck.course.held(new)
    }
}

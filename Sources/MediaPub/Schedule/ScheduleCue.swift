import Foundation
import Synchronization

/// One switch's cue as the programme's runner makes it: on the runner's `programme-cue`
/// queue (its content found, local items checked, the player's cue opened), never on the
/// timeline thread (docs/design.md, What may run on the timeline thread). Its commit, on
/// the tick, takes what has been made by then: a realtime commit never waits for it (a cue
/// made after its commit is committed as soon as it is, and lands late); as fast as
/// possible, the commit waits for it as a tick waits for its content.
final class ScheduleCue: Sendable {
    /// What the cue queue made.
    enum Made: Sendable, Equatable {
        /// Not made yet.
        case preparing
        /// The player's cue (its ticket).
        case cued(Int)
        /// Nothing to cue (no content: a block's end without filler, or a plan changed meanwhile).
        case nothing

        var ticket: Int? { if case .cued(let t) = self { t } else { nil } }
    }

    /// What the cue queue does with a cue once made, by what came to it first.
    enum Then: Sendable, Equatable {
        /// Nothing yet: the commit takes it.
        case keep
        /// Its commit came before: committed now.
        case commit
        /// Called off before (a plan changed): cancelled now.
        case cancel
    }

    private struct State: HasWaiters {
        var made = Made.preparing
        var committed = false
        var dropped = false
        var waiters = Waiters()
    }
    private let state = Mutex(State())
    /// A filler's cue after a block that could not go on air (`fillerNextTick`): a later one replaces it.
    let isFiller: Bool

    init(isFiller: Bool = false) { self.isFiller = isFiller }

    /// What has been made so far, without waiting or committing.
    var made: Made { state.withLock { $0.made } }

    /// On the cue queue: the cue is made. Says what to do with it (`Then`).
    func made(_ made: Made) -> Then {
        state.withLock { s in
            s.made = made
            s.waiters.wakeAll()
            return s.dropped ? .cancel : s.committed ? .commit : .keep
        }
    }

    /// At its commit (on the timeline): what has been made, waited for up to `wait` seconds
    /// (0 in realtime); still being made, it is committed once it is (`made(_:)` says so).
    func commit(wait: TimeInterval) -> Made {
        if wait > 0 { state.wait(until: MonotonicInstant.now.addingTimeInterval(wait)) { $0.made == .preparing } }
        return state.withLock { s in
            s.committed = true
            return s.made
        }
    }

    /// Called off (a plan changed before its commit): returns the player's cue to cancel,
    /// if made; one made later is cancelled then.
    func drop() -> Int? {
        state.withLock { s in
            s.dropped = true
            return s.made.ticket
        }
    }
}

import Foundation

/// The cue the player's deck keeps (docs/design.md, Switching on the frame; The player's
/// deck), a pure value: the one on its way (its ticket, the tick it lands on, whether it is
/// ready and committed, its session once opened), the tickets so far, and how the last few
/// ended. Its methods take what happens (asked, opened, ready, committed, a tick, failed,
/// called off) and return what the player does: the cue to land, the one to retire and
/// settle (`MediaPlayer+Cue` executes them). Sessions are told apart by identity only.
struct DeckCue<Session: AnyObject & Sendable>: Sendable {
    /// A cue on its way.
    struct Pending: Sendable, DeckPending {
        let ticket: Int
        var session: Session?
        let playlist: Playlist
        /// What the player goes on with once `playlist` is over (`DeckCourse.followOn`).
        let then: Playlist?
        /// The output tick it is to land on.
        let tick: UInt64
        /// The tick it lands on once committed and ready: `tick`, or later when it was not
        /// ready by then (what plays sounds again meanwhile, and fades out before it lands).
        fileprivate(set) var landsAt: UInt64
        /// Told how the cue ended (landed, failed, cancelled), on the player's queue.
        let onSettled: (@Sendable (MediaPlayer.CueOutcome) -> Void)?
        /// Its first picture and sound are in hand.
        fileprivate(set) var ready = false
        /// `commitCue` was called: it lands the moment it is ready.
        fileprivate(set) var committed = false
        /// `commitCueAtItemEnd` was called: ready, it lands the moment the current item ends.
        fileprivate(set) var atItemEnd = false
    }

    /// A cue ended, by ticket.
    struct Settled: Sendable, Equatable {
        let ticket: Int
        let outcome: MediaPlayer.CueOutcome
    }

    /// How many settled cues' outcomes are kept.
    static var settledKept: Int { 8 }

    private(set) var pending: Pending?
    /// Cues asked for so far (the last one's ticket).
    private(set) var asked = 0
    /// How the last few cues ended, oldest first.
    private(set) var settled: [Settled] = []

    /// A new cue, to land on `tick`: the one on its way, if any, is called off (returned,
    /// to retire and settle as replaced). Its session is to be opened for its ticket.
    mutating func ask(_ playlist: Playlist, then: Playlist?, tick: UInt64,
                      onSettled: (@Sendable (MediaPlayer.CueOutcome) -> Void)?) -> (ticket: Int, replaced: Pending?) {
        asked += 1
        let replaced = drop(.cancelled("replaced by cue \(asked)"))
        pending = Pending(ticket: asked, session: nil, playlist: playlist, then: then, tick: tick, landsAt: tick,
                          onSettled: onSettled)
        return (asked, replaced)
    }

    /// Whether a session built for `ticket` is still awaited (else it is closed unused).
    func awaitsSession(ticket: Int) -> Bool { pending.awaitsSession(ticket: ticket) }

    /// The session built for `ticket`, taken if it is awaited.
    mutating func opened(_ session: Session, ticket: Int) -> Bool { pending.take(session, ticket: ticket) }

    /// The cued session has its first picture and sound, the player asking for tick
    /// `nextTick`. Committed and late, it lands on that tick if what plays is silent
    /// (`silent`), else `fadeTicks` later, once that has faded out again.
    mutating func ready(_ session: Session, nextTick: UInt64, silent: Bool, fadeTicks: UInt64) {
        guard let p = pending, p.session === session else { return }
        pending?.ready = true
        if p.committed, nextTick >= p.landsAt {
            pending?.landsAt = silent ? nextTick : nextTick &+ fadeTicks
        }
    }

    /// `commitCue` for `ticket`: whether it is the one on its way (now committed).
    mutating func commit(_ ticket: Int) -> Bool {
        guard pending?.ticket == ticket else { return false }
        pending?.committed = true
        return true
    }

    /// `commitCueAtItemEnd` for `ticket`.
    mutating func commitAtItemEnd(_ ticket: Int) {
        guard pending?.ticket == ticket else { return }
        pending?.atItemEnd = true
    }

    /// The current item is over: a ready cue waiting for its end lands (returned).
    mutating func landAtItemEnd() -> Pending? {
        guard let p = pending, p.atItemEnd, p.ready, p.session != nil else { return nil }
        pending = nil
        return p
    }

    /// Before tick `n`: a committed, ready cue whose tick has come lands (returned).
    mutating func landIfDue(at n: UInt64) -> Pending? {
        guard let p = pending, p.committed, p.ready, p.session != nil, n >= p.landsAt else { return nil }
        pending = nil
        return p
    }

    /// The cue on its way is called off or failed as `outcome`: returned (its session to
    /// retire, `onSettled` to tell), and noted as settled.
    mutating func drop(_ outcome: MediaPlayer.CueOutcome) -> Pending? {
        guard let p = pending else { return nil }
        pending = nil
        settle(p.ticket, outcome)
        return p
    }

    /// The cue of `ticket` ended as `outcome`.
    mutating func settle(_ ticket: Int, _ outcome: MediaPlayer.CueOutcome) {
        settled.append(Settled(ticket: ticket, outcome: outcome))
        if settled.count > Self.settledKept { settled.removeFirst() }
    }

    /// How the cue of `ticket` goes, as far as it is known.
    func outcome(of ticket: Int) -> MediaPlayer.CueOutcome {
        if let p = pending, p.ticket == ticket {
            return p.committed ? .waiting : p.ready ? .ready : .preparing
        }
        return settled.last { $0.ticket == ticket }?.outcome ?? .cancelled("no cue \(ticket) on its way")
    }

    /// Whether `ticket`'s cue is on its way and not ready yet (a wait for it goes on).
    func preparing(_ ticket: Int) -> Bool {
        pending.map { $0.ticket == ticket && !$0.ready } ?? false
    }
}

import Foundation

/// What replaces what plays on a command (docs/control.md: `load`, `next`, `previous`,
/// `seek`, `speed`, `pitch`), as the player's deck keeps it (docs/design.md, The player's
/// deck), a pure value: the one on its way (its ticket, what it becomes once ready, its
/// session once opened), the tickets so far, and the last one refused. Its methods take
/// what happens (asked, opened, ready, failed, given up) and return what the player does:
/// the session to retire, the load to adopt (`MediaPlayer+Load` executes them). Sessions
/// are told apart by identity only.
struct DeckLoad<Session: AnyObject & Sendable>: Sendable {
    /// A load on its way: the session being prepared and what becomes of the player once it is ready.
    struct Pending: Sendable, DeckPending {
        let ticket: Int
        var session: Session?
        let playlist: Playlist
        let memoryData: Data?
        let kind: LoadKind
        /// Where in its item it was opened (seconds).
        let startAt: TimeInterval
        /// The output tick the player was at when it was asked for.
        let askedAtTick: UInt64
    }

    /// A load refused, with why (the source named).
    struct Refusal: Sendable, Equatable {
        let ticket: Int
        let why: String
    }

    private(set) var pending: Pending?
    /// Loads asked for so far (the last one's ticket).
    private(set) var asked = 0
    private(set) var refused: Refusal?

    /// A new load: the one on its way before, if any, is given up (returned, its session to
    /// retire). The new one's session is to be opened for its ticket.
    mutating func ask(_ playlist: Playlist, memoryData: Data?, kind: LoadKind, startAt: TimeInterval,
                      atTick: UInt64) -> (ticket: Int, givenUp: Pending?) {
        let givenUp = giveUp()
        asked += 1
        pending = Pending(ticket: asked, session: nil, playlist: playlist, memoryData: memoryData, kind: kind,
                          startAt: startAt, askedAtTick: atTick)
        return (asked, givenUp)
    }

    /// The load on its way is given up (a later load, stop, next, previous, a cue): returned, its session to retire.
    mutating func giveUp() -> Pending? {
        defer { pending = nil }
        return pending
    }

    /// Whether a session built for `ticket` is still awaited (else it is closed unused).
    func awaitsSession(ticket: Int) -> Bool { pending.awaitsSession(ticket: ticket) }

    /// The session built for `ticket`, taken if it is awaited.
    mutating func opened(_ session: Session, ticket: Int) -> Bool { pending.take(session, ticket: ticket) }

    /// The load of `session` is ready: returned, to take over.
    mutating func ready(_ session: Session) -> Pending? {
        guard let p = pending, p.session === session else { return nil }
        pending = nil
        return p
    }

    /// The load of `ticket` failed (its session, or the open of it) with `why`: returned,
    /// its session to retire; it is the one refused now.
    mutating func failed(ticket: Int, why: String) -> Pending? {
        guard let p = pending, p.ticket == ticket else { return nil }
        pending = nil
        refused = Refusal(ticket: ticket, why: why)
        return p
    }

    /// How the load of `ticket` went as far as it is known, the player being in `phase`.
    func outcome(ticket: Int, phase: PlayerState) -> MediaPlayer.LoadOutcome {
        if pending?.ticket == ticket { return .loading }
        if let refused, refused.ticket == ticket { return .failed(refused.why) }
        return .done(phase)
    }

    /// The playlist a skip on its way goes to (two quick `next`s go two items on).
    var skipping: Playlist? { pending?.kind == .skip ? pending?.playlist : nil }
}

/// What a load on its way becomes once ready.
enum LoadKind: Sendable, Equatable {
    /// `load`: a source in place of the player's.
    case load
    /// `next`, `previous`: the item of the playlist they moved to.
    case skip
    /// The current item again, in a session of its own (seek, speed, pitch): no new track.
    case reposition
}

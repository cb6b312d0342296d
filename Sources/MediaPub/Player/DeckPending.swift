/// What the player's deck keeps on its way by ticket (a load, a cue: `DeckLoad`, `DeckCue`),
/// with its session once opened (`MediaPlayer+Open`).
protocol DeckPending {
    associatedtype Session: AnyObject
    var ticket: Int { get }
    /// nil until opened.
    var session: Session? { get set }
}

extension Optional where Wrapped: DeckPending {
    /// Whether a session built for `ticket` is still awaited (else it is closed unused).
    func awaitsSession(ticket: Int) -> Bool {
        self?.ticket == ticket && self?.session == nil
    }

    /// The session built for `ticket`, taken if it is awaited.
    mutating func take(_ session: Wrapped.Session, ticket: Int) -> Bool {
        guard awaitsSession(ticket: ticket) else { return false }
        self?.session = session
        return true
    }
}

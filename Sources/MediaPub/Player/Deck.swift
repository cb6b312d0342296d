/// The player's sequencing towards the current item's end (docs/design.md, The player's
/// deck), a pure value: from what a tick finds (the current item, the output seconds left of
/// it, its length and the next one's, and how far the next item prepared ahead is), when
/// the next item is opened ahead, when a crossfade to it begins, and when a run as fast as
/// possible waits for it. `MediaPlayer` executes the effects (`MediaPlayer+Crossfade`).
/// Items are told apart by identity only (`ObjectIdentifier` of their session).
struct Deck: Sendable, Equatable {
    /// What is on its way for the current item's end.
    enum Transition: Sendable, Equatable {
        /// Nothing yet.
        case none
        /// The next item was opened ahead of this item's end (its crossfade or gapless handover to come).
        case preparingNext(of: ObjectIdentifier)
        /// This item's crossfade was due and the next item was not ready: it begins if the next
        /// gets ready in time (with a shorter fade), and no tick waits for it any more.
        case nextLate(of: ObjectIdentifier)
    }

    /// The item prepared ahead for the playlist's next position, as a tick finds it.
    enum Next: Sendable, Equatable {
        /// None (or one for another position: an order changed since).
        case none
        /// Its pipeline is being built (`MediaPlayer+Open`).
        case opening
        /// Opened, not prerolled yet.
        case unready
        /// Prerolled: it can fade in.
        case ready
    }

    /// What a tick finds when a crossfade may begin: the current item plays, has a known length,
    /// and no other fade, segment skip or load is on its way.
    struct Candidate: Sendable, Equatable {
        let item: ObjectIdentifier
        /// The playlist's crossfade (seconds).
        let fadeSetting: Double
        /// Output seconds left of it.
        let remaining: Double
        /// Its length and the next item's (ms of media time; nil: not known yet).
        let lengthMs: Int?
        let nextLengthMs: Int?
        let next: Next
    }

    enum Effect: Sendable, Equatable {
        /// Open the next item ahead.
        case openNext
        /// The next item becomes the current one, the current fading out under it over `frames`.
        case beginCrossfade(frames: Int)
    }

    /// How long before its crossfade the next item is opened, and the output's sample rate.
    let lead: Double
    let sampleRate: Int
    private(set) var transition = Transition.none

    init(lead: Double = Deck.crossfadeLead, sampleRate: Int) {
        self.lead = lead
        self.sampleRate = sampleRate
    }

    /// How long before its crossfade the next item is opened (its preroll's lead).
    static let crossfadeLead: Double = 10

    /// The fade from the candidate to the next item: the setting, at most half of either.
    func fadeSeconds(_ c: Candidate, withNext: Bool = true) -> Double {
        [c.lengthMs, withNext ? c.nextLengthMs : nil].compactMap { $0 }.reduce(c.fadeSetting) { min($0, Double($1) / 2000) }
    }

    /// At the start of a tick: `current` is the item current now; `candidate` what the tick
    /// finds of it when a crossfade may begin (nil: none may). What was noted of an item no
    /// longer current is let go.
    mutating func tick(current: ObjectIdentifier?, _ candidate: Candidate?) -> [Effect] {
        if let noted = transition.item, noted != current { transition = .none }
        guard let c = candidate, c.item == current else { return [] }
        var effects: [Effect] = []
        if c.remaining <= c.fadeSetting + lead, transition == .none {
            transition = .preparingNext(of: c.item)
            effects.append(.openNext)
        }
        guard c.next != .none, c.remaining <= fadeSeconds(c) else { return effects }
        guard c.next == .ready else {
            transition = .nextLate(of: c.item)
            return effects
        }
        let frames = Int(c.remaining * Double(sampleRate))
        guard frames > 0 else { return effects }
        transition = .none
        return effects + [.beginCrossfade(frames: frames)]
    }

    /// As fast as possible, a tick waits for the next item (being opened or prerolled) once
    /// its crossfade is due, unless it was late for it already.
    func awaitsNext(current: ObjectIdentifier?, _ candidate: Candidate?) -> Bool {
        guard let c = candidate, c.item == current, transition != .nextLate(of: c.item),
              c.next == .opening || c.next == .unready else { return false }
        return c.remaining <= fadeSeconds(c, withNext: false)
    }
}

extension Deck.Transition {
    /// The item it is about.
    var item: ObjectIdentifier? {
        switch self {
        case .none: nil
        case .preparingNext(let item), .nextLate(let item): item
        }
    }
}

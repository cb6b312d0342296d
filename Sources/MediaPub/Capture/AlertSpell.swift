import Foundation

/// A condition of the output held over ticks (docs/presets.md, monitor): it begins on
/// the first tick it holds, is raised once it has held `ticks` ticks in a row, and is
/// cleared on the first tick it no longer holds. A pure value, told one tick at a time.
struct AlertSpell: Equatable {
    enum Change: Equatable {
        /// The condition began to hold at this tick.
        case began
        /// Held `ticks` ticks since `since`: the alert.
        case raised(since: UInt64)
        /// No longer holds after a raised spell that began at `since`.
        case cleared(since: UInt64)
    }

    /// How many ticks in a row raise it (at least 1).
    let ticks: UInt64
    /// The first tick of the spell in progress; nil while the condition does not hold.
    private(set) var since: UInt64?
    private(set) var raised = false
    /// A raised spell begun again (`restart`) owes its `cleared`: the tick it began at.
    private var owed: UInt64?

    init(ticks: UInt64) { self.ticks = max(1, ticks) }

    init(seconds: TimeInterval, tickRate: Int) {
        self.init(ticks: UInt64(max(1, (seconds * Double(tickRate)).rounded())))
    }

    /// Whether the condition holds at `tick`; what changed, if anything.
    mutating func update(_ holds: Bool, tick: UInt64) -> Change? {
        guard holds else {
            defer { since = nil; raised = false; owed = nil }
            if raised, let since { return .cleared(since: since) }
            return owed.map { .cleared(since: $0) }
        }
        guard let since else {
            since = tick
            return ticks == 1 ? raise(tick) : .began
        }
        return !raised && tick >= since &+ ticks ? raise(since) : nil
    }

    private mutating func raise(_ since: UInt64) -> Change {
        raised = true
        owed = nil
        return .raised(since: since)
    }

    /// A tick not checked (the publishing flag off): a spell not yet raised is forgotten, so
    /// what went before it does not count; a raised one waits for the content to recover.
    mutating func skip() {
        if !raised { since = nil }
    }

    /// Counts the spell again from the next tick that holds (its item was skipped): held
    /// for `ticks` more, it is raised again; ended, a raised one is cleared.
    mutating func restart() {
        if raised { owed = since }
        since = nil
        raised = false
    }
}

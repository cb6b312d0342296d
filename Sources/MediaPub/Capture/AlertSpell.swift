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

    init(ticks: UInt64) { self.ticks = max(1, ticks) }

    init(seconds: TimeInterval, tickRate: Int) {
        self.init(ticks: UInt64(max(1, (seconds * Double(tickRate)).rounded())))
    }

    /// Whether the condition holds at `tick`; what changed, if anything.
    mutating func update(_ holds: Bool, tick: UInt64) -> Change? {
        guard holds else {
            defer { since = nil; raised = false }
            if raised, let since { return .cleared(since: since) }
            return nil
        }
        guard let since else {
            since = tick
            return ticks == 1 ? raise(tick) : .began
        }
        return !raised && tick >= since &+ ticks ? raise(since) : nil
    }

    private mutating func raise(_ since: UInt64) -> Change {
        raised = true
        return .raised(since: since)
    }
}

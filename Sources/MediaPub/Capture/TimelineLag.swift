/// How far a realtime timeline is behind its schedule, and when to say so (docs/status.md,
/// `timeline`; docs/events.md, `timeline.late` and `timeline.caught_up`). A pure value, told
/// one reading a tick: the instant the tick was due and the instant it is rendered, both in
/// nanoseconds of the monotonic clock the timeline is paced on (never the wall clock, which
/// NTP may step).
///
/// Late: more than `threshold` (2 ticks) behind, without a break, for more than `hold` (1 s).
/// Caught up: back to `back` (1 tick) behind or less. The two levels keep a timeline that
/// hovers near 2 ticks from saying late and caught up in turn; the hold keeps a single slow
/// tick from saying anything.
struct TimelineLag: Equatable {
    enum Change: Equatable {
        /// Late since `since` (the instant the lag passed `threshold`), `lag` ns behind now.
        case late(lag: UInt64, since: UInt64)
        /// Back on time, after being late for `lateFor` ns, at worst `worst` ns behind.
        case caughtUp(lateFor: UInt64, worst: UInt64)
    }

    /// More than this behind (ns) is behind.
    let threshold: UInt64
    /// At or under this behind (ns), a late timeline has caught up.
    let back: UInt64
    /// Behind for more than this (ns) is late.
    let hold: UInt64
    /// When the lag passed `threshold` in the spell in progress; nil while within it.
    private(set) var behindSince: UInt64?
    /// `late` has been said, `caughtUp` not yet.
    private(set) var late = false
    /// The largest lag of the spell in progress.
    private(set) var worst: UInt64 = 0

    init(threshold: UInt64, back: UInt64, hold: UInt64) {
        self.threshold = threshold
        self.back = min(back, threshold)
        self.hold = hold
    }

    /// Late past 2 ticks for over a second, caught up within 1 tick.
    init(tickRate: Int) {
        let tick = 1_000_000_000 / UInt64(max(1, tickRate))
        self.init(threshold: 2 * tick, back: tick, hold: 1_000_000_000)
    }

    /// How far behind a tick due at `due` is when rendered at `now` (0 when early).
    static func lag(due: UInt64, now: UInt64) -> UInt64 { now > due ? now - due : 0 }

    /// One tick's reading: due at `due`, rendered at `now`. What to say, if anything.
    mutating func observe(due: UInt64, now: UInt64) -> Change? {
        let lag = Self.lag(due: due, now: now)
        if late {
            worst = max(worst, lag)
            guard lag <= back else { return nil }
            let change = Change.caughtUp(lateFor: now &- (behindSince ?? now), worst: worst)
            (late, behindSince, worst) = (false, nil, 0)
            return change
        }
        guard lag > threshold else {
            // Within the threshold before a second was up: the spell is forgotten.
            (behindSince, worst) = (nil, 0)
            return nil
        }
        // A tick held up in one go has been behind since its due time plus the threshold.
        let since = behindSince ?? (due &+ threshold)
        behindSince = since
        worst = max(worst, lag)
        guard now &- since > hold else { return nil }
        late = true
        return .late(lag: lag, since: since)
    }
}

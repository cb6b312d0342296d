import Foundation
import Synchronization

/// A realtime run's lag (docs/status.md, `timeline`): told by the capture on the timeline
/// thread each tick when that tick was due and when it is rendered (`tick`, monotonic
/// nanoseconds: `DispatchTime`'s uptime, CLOCK_MONOTONIC, the clock the timeline sleeps on).
/// It keeps the tick in progress' due instant, so status and `/metrics` read the lag as it
/// is when they ask, even while the timeline is held up; `TimelineLag` decides when to say
/// `timeline.late` and `timeline.caught_up` (docs/events.md), said through `report` (which
/// must only queue) holding no lock. A tick costs an atomic store and an uncontended lock.
final class TimelineLagWatch: Sendable {
    private let tickRate: Int
    private let report: @Sendable (Event) -> Void
    private let decision: Mutex<TimelineLag>
    /// When the tick in progress was due (monotonic ns); 0 before the first tick and after the last.
    private let due = Atomic<UInt64>(0)

    init(tickRate: Int, report: @escaping @Sendable (Event) -> Void) {
        self.tickRate = tickRate
        self.report = report
        decision = Mutex(TimelineLag(tickRate: tickRate))
    }

    /// On the timeline thread, before tick `n` is rendered: it was due at `due`, it is `now`.
    func tick(_ n: UInt64, due: UInt64, now: UInt64) {
        self.due.store(due, ordering: .relaxed)
        guard let change = decision.withLock({ $0.observe(due: due, now: now) }) else { return }
        let outputMs = Int(clamping: n &* 1000 / UInt64(max(1, tickRate)))
        switch change {
        case .late(let lag, _):
            report(.timelineLate(lagMs: Self.ms(lag), outputMs: outputMs))
        case .caughtUp(let lateFor, let worst):
            report(.timelineCaughtUp(lateForMs: Self.ms(lateFor), worstLagMs: Self.ms(worst), outputMs: outputMs))
        }
    }

    /// The timeline stopped: nothing is behind any more.
    func finish() { due.store(0, ordering: .relaxed) }

    /// How far behind the tick in progress is now, in ms (0 on time, before the first tick and after the last).
    var lagMs: Int {
        let due = due.load(ordering: .relaxed)
        guard due > 0 else { return 0 }
        return Self.ms(TimelineLag.lag(due: due, now: DispatchTime.now().uptimeNanoseconds))
    }

    private static func ms(_ ns: UInt64) -> Int { Int(clamping: ns / 1_000_000) }
}

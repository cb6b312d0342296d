import Dispatch
import Foundation

/// An instant of the monotonic clock (CLOCK_MONOTONIC: `DispatchTime`'s uptime, the clock
/// the output timeline sleeps on). Every duration is timed on it: watchdogs, deadlines,
/// backoffs, stalls, rates, timeouts, `Waiters`' waits. A step of the wall clock (NTP, set
/// by hand) neither fires them nor hides a real stall. `Date` is for wall-clock instants
/// only: the programme, event stamps, file names, times shown (docs/design.md, Threads and
/// queues). Its API is `Date`'s, so that timing a duration reads the same.
public struct MonotonicInstant: Comparable, Hashable, Sendable {
    /// Nanoseconds on the monotonic clock (from an arbitrary origin: the machine's boot).
    public let nanoseconds: Int64

    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// Now, on the monotonic clock.
    public static var now: MonotonicInstant {
        MonotonicInstant(nanoseconds: Int64(clamping: DispatchTime.now().uptimeNanoseconds))
    }

    /// `seconds` later (earlier when negative).
    /// Saturates: an endless wait (`.infinity`) is the far future, never a wrapped past.
    public func addingTimeInterval(_ seconds: TimeInterval) -> MonotonicInstant {
        let delta = seconds * 1e9
        let ns: Int64 = delta.isNaN ? 0 : delta >= 9.2e18 ? .max : delta <= -9.2e18 ? .min : Int64(delta.rounded())
        let (sum, overflow) = nanoseconds.addingReportingOverflow(ns)
        return MonotonicInstant(nanoseconds: overflow ? (ns < 0 ? .min : .max) : sum)
    }

    /// Seconds from `other` to this instant (negative when `other` is later).
    public func timeIntervalSince(_ other: MonotonicInstant) -> TimeInterval {
        let (difference, overflow) = nanoseconds.subtractingReportingOverflow(other.nanoseconds)
        return overflow ? (Double(nanoseconds) - Double(other.nanoseconds)) / 1e9 : Double(difference) / 1e9
    }

    /// Seconds from now to this instant (negative when it is past).
    public var timeIntervalSinceNow: TimeInterval { timeIntervalSince(.now) }

    public static func + (a: MonotonicInstant, seconds: TimeInterval) -> MonotonicInstant { a.addingTimeInterval(seconds) }

    public static func - (a: MonotonicInstant, seconds: TimeInterval) -> MonotonicInstant { a.addingTimeInterval(-seconds) }

    public static func < (a: MonotonicInstant, b: MonotonicInstant) -> Bool { a.nanoseconds < b.nanoseconds }
}

/// The output times at which the encoder must start a keyframe so that rotating
/// recordings (`segment:`) are cut exactly at each boundary: every multiple of
/// each output's segment length. A pure value: the publisher asks it for each
/// picture it encodes, in order.
struct KeyframeSchedule: Sendable, Equatable {
    /// Segment lengths in nanoseconds, and the next boundary of each.
    private var periods: [UInt64]
    private var next: [UInt64]

    init(segments: [Double]) {
        periods = segments.compactMap { $0 > 0 && $0 < 1e9 ? UInt64(($0 * 1e9).rounded()) : nil }.filter { $0 > 0 }
        next = periods
    }

    var isEmpty: Bool { periods.isEmpty }

    /// True when the picture at `pts` (ns of output time) is the first at or past a
    /// boundary: it must be a keyframe. Every boundary it passes moves on past it.
    mutating func isDue(at pts: UInt64) -> Bool {
        var due = false
        for i in periods.indices where pts >= next[i] {
            due = true
            let (steps, overflow) = (pts / periods[i] + 1).multipliedReportingOverflow(by: periods[i])
            next[i] = overflow ? .max : steps
        }
        return due
    }
}

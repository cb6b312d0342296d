import CGStreamer
import CGStreamerShim

/// A GstClockTime: nanoseconds, never GST_CLOCK_TIME_NONE (an unknown time is a
/// nil `ClockTime?`). Arithmetic saturates: it never traps on outside input.
struct ClockTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    let nanoseconds: UInt64

    static let nanosecondsPerSecond: UInt64 = 1_000_000_000
    static let zero = ClockTime(nanoseconds: 0)
    static let second = ClockTime(nanoseconds: nanosecondsPerSecond)
    /// The largest time made from seconds: 2^62 ns (146 years).
    static let max = ClockTime(nanoseconds: 1 << 62)

    init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    /// From seconds, rounded; nan and negatives are zero, anything past `max` is `max`.
    init(seconds: Double) {
        let ns = (seconds * Double(ClockTime.nanosecondsPerSecond)).rounded()
        guard ns > 0 else { self = .zero; return }
        self = ns < 0x1p62 ? ClockTime(nanoseconds: UInt64(ns)) : .max
    }

    /// From milliseconds; negatives are zero.
    init(milliseconds: Int) {
        self.init(nanoseconds: UInt64(Swift.max(0, milliseconds)).multipliedReportingOverflow(by: 1_000_000).partialValue)
    }

    /// As an output's rebasing counts (`OutputTimeline`: `UInt` nanoseconds, shifted by signed amounts).
    var ns: UInt { UInt(nanoseconds) }

    /// A time GStreamer gave, nil for GST_CLOCK_TIME_NONE.
    init?(_ raw: GstClockTime) {
        guard raw != ClockTime.noneRaw else { return nil }
        nanoseconds = UInt64(raw)
    }

    /// GST_CLOCK_TIME_NONE (all bits set): only ever seen at the C boundary.
    static let noneRaw = GstClockTime.max

    var raw: GstClockTime { GstClockTime(nanoseconds) }
    var seconds: Double { Double(nanoseconds) / Double(ClockTime.nanosecondsPerSecond) }
    /// Whole milliseconds (truncated).
    var milliseconds: Int { Int(nanoseconds / 1_000_000) }

    static func < (a: ClockTime, b: ClockTime) -> Bool { a.nanoseconds < b.nanoseconds }

    static func + (a: ClockTime, b: ClockTime) -> ClockTime {
        let (sum, overflow) = a.nanoseconds.addingReportingOverflow(b.nanoseconds)
        return ClockTime(nanoseconds: overflow ? UInt64.max - 1 : sum)
    }

    /// The difference, zero when `b` is later than `a`.
    static func - (a: ClockTime, b: ClockTime) -> ClockTime {
        ClockTime(nanoseconds: a.nanoseconds > b.nanoseconds ? a.nanoseconds - b.nanoseconds : 0)
    }

    static func += (a: inout ClockTime, b: ClockTime) { a = a + b }

    /// `a` scaled by `numerator / denominator` without overflow in between (gst_util_uint64_scale).
    func scaled(by numerator: UInt64, _ denominator: UInt64) -> ClockTime {
        guard denominator > 0 else { return self }
        let (high, low) = nanoseconds.multipliedFullWidth(by: numerator)
        guard high < denominator else { return ClockTime(nanoseconds: UInt64.max - 1) }
        return ClockTime(nanoseconds: denominator.dividingFullWidth((high, low)).quotient)
    }

    /// The duration of `frames` samples at `rate` per second.
    static func ofSamples(_ frames: UInt64, rate: Int) -> ClockTime {
        ClockTime.second.scaled(by: frames, UInt64(Swift.max(1, rate)))
    }

    /// As GST_TIME_FORMAT prints it: `h:mm:ss.nnnnnnnnn`.
    var description: String {
        let ns = nanoseconds % ClockTime.nanosecondsPerSecond
        let s = nanoseconds / ClockTime.nanosecondsPerSecond
        let fraction = String(ns)
        return "\(s / 3600):" + pad(s / 60 % 60, 2) + ":" + pad(s % 60, 2) + "." + String(repeating: "0", count: 9 - fraction.count) + fraction
    }

    private func pad(_ n: UInt64, _ width: Int) -> String {
        let text = String(n)
        return String(repeating: "0", count: Swift.max(0, width - text.count)) + text
    }
}

extension Optional where Wrapped == ClockTime {
    /// The C value: GST_CLOCK_TIME_NONE for nil.
    var raw: GstClockTime { self?.raw ?? ClockTime.noneRaw }
}

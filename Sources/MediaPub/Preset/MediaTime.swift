import Foundation

/// Durations (`500ms`, `2s`, `10m`, `1h30m`, `01:30:00`, `90`) and bitrates
/// (`128k`, `2.5M`, `128000`) as written in presets and on the command line.
public enum MediaTime {
    /// The longest duration mediapub takes anywhere (`stop.after`, `--duration`,
    /// `start_at`, `ctl seek`, reconnect times...): 87600h, ten years of 365
    /// days. Anything longer is refused where it is read, so that every
    /// conversion to milliseconds, nanoseconds (GstClockTime) or ticks fits.
    public static let maxDuration: TimeInterval = 87_600 * 3600
    /// `maxDuration` as written in messages.
    public static let maxDurationText = "87600h (10 years)"

    /// Why a duration text was refused; `message` is the reason, without the text.
    public enum DurationError: Error, Equatable, Sendable, CustomStringConvertible {
        case notADuration
        case tooLong
        public var message: String {
            switch self {
            case .notADuration: return "not a duration (like 500ms, 2s, 10m, 1h30m, 01:30:00)"
            case .tooLong: return "longer than the maximum \(MediaTime.maxDurationText)"
            }
        }
        public var description: String { message }
    }

    /// The one checked reading of a duration (presets, `--set`, `--duration`,
    /// `ctl seek`): seconds in 0...`maxDuration`, or why not.
    public static func duration(_ text: String) -> Result<TimeInterval, DurationError> {
        guard let v = unboundedDuration(text) else { return .failure(.notADuration) }
        guard v.isFinite, v <= maxDuration else { return .failure(.tooLong) }
        return .success(v)
    }

    /// Seconds for a duration text, or nil when it is not one, is negative, or
    /// is longer than `maxDuration` (`duration(_:)` tells which).
    /// Forms: unit sequences `7d`, `1h30m15s`, `500ms`, `2.5s` (units d, h, m, s, ms, in
    /// that order); clock forms `01:30:00` (h:m:s) and `1:30` (m:s); a bare
    /// number is seconds.
    public static func parseDuration(_ text: String) -> TimeInterval? {
        try? duration(text).get()
    }

    private static func unboundedDuration(_ text: String) -> TimeInterval? {
        let s = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard !s.isEmpty else { return nil }
        if let v = plainNumber(s) { return v }
        if s.contains(":") { return clock(s) }

        // unit sequence
        let order = ["d": 0, "h": 1, "m": 2, "s": 3, "ms": 4]
        let scale: [String: Double] = ["d": 86400, "h": 3600, "m": 60, "s": 1, "ms": 0.001]
        var total = 0.0
        var last = -1
        var rest = Substring(s)
        while !rest.isEmpty {
            let num = rest.prefix(while: { $0.isASCII && ($0.isNumber || $0 == ".") })
            guard !num.isEmpty, let value = plainNumber(String(num)) else { return nil }
            rest = rest.dropFirst(num.count)
            let unitText = rest.prefix(while: { $0.isLetter })
            rest = rest.dropFirst(unitText.count)
            let unit = String(unitText)
            guard let rank = order[unit], rank > last, let factor = scale[unit] else { return nil }
            last = rank
            total += value * factor
        }
        return total
    }

    /// Bits per second for a bitrate text: a number with an optional k/M/G
    /// suffix (powers of 1000) and an optional `bps`/`b/s`: `128k`, `2.5M`,
    /// `128000`, `2500kbps`. Nil when not a positive-or-zero whole bitrate.
    public static func parseBitrate(_ text: String) -> Int? {
        var s = text.trimmingCharacters(in: .whitespaces)
        for suffix in ["bps", "b/s", "Bps"] where s.hasSuffix(suffix) && s.count > suffix.count {
            s.removeLast(suffix.count)
            break
        }
        var factor = 1.0
        if let c = s.last, c.isLetter {
            switch c {
            case "k", "K": factor = 1e3
            case "m", "M": factor = 1e6
            case "g", "G": factor = 1e9
            default: return nil
            }
            s.removeLast()
        }
        guard let v = plainNumber(s) else { return nil }
        let bits = (v * factor).rounded()
        guard bits < Double(Int.max) else { return nil }
        return Int(bits)
    }

    /// A duration text that `parseDuration` reads back to the same value:
    /// whole seconds as `2s`, `10m`, `1h30m`, `1m30s`; else `500ms`, `2500ms`;
    /// else decimal seconds. Infinity is written `never`.
    public static func formatDuration(_ t: TimeInterval) -> String {
        if t.isInfinite { return "never" }
        if t.isNaN { return "0s" }
        if t == t.rounded(), abs(t) < 1e15 {
            var n = Int(t)
            if n == 0 { return "0s" }
            let sign = n < 0 ? "-" : ""
            n = abs(n)
            var out = sign
            let h = n / 3600, m = (n % 3600) / 60, sec = n % 60
            if h > 0 { out += "\(h)h" }
            if m > 0 { out += "\(m)m" }
            if sec > 0 { out += "\(sec)s" }
            return out
        }
        let ms = (t * 1000).rounded()
        if abs(ms) < 1e15, ms / 1000 == t {
            return "\(Int(ms))ms"
        }
        return "\(t)s"
    }

    /// A bitrate text that `parseBitrate` reads back exactly: `2M`, `2500k`,
    /// `128k`, or plain bits.
    public static func formatBitrate(_ b: Int) -> String {
        if b != 0, b % 1_000_000 == 0 { return "\(b / 1_000_000)M" }
        if b != 0, b % 1000 == 0 { return "\(b / 1000)k" }
        return "\(b)"
    }

    // MARK: -

    /// A non-negative decimal number without exponent, sign or hex.
    static func plainNumber(_ s: String) -> Double? {
        guard !s.isEmpty, !s.hasPrefix("."), !s.hasSuffix("."),
              s.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              s.filter({ $0 == "." }).count <= 1
        else { return nil }
        return Double(s)
    }

    private static func clock(_ s: String) -> TimeInterval? {
        let parts = s.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 || parts.count == 3 else { return nil }
        var values: [Double] = []
        for (i, p) in parts.enumerated() {
            let isLast = i == parts.count - 1
            if !isLast, !p.allSatisfy({ $0.isASCII && $0.isNumber }) { return nil }
            guard let v = plainNumber(p) else { return nil }
            if i > 0, v >= 60 { return nil }
            values.append(v)
        }
        return values.reduce(0) { $0 * 60 + $1 }
    }
}

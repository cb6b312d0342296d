import Foundation

/// How a library's repeated criticals and warnings reach the log (a pure value, no
/// clock of its own): the first of a kind is shown, and while it repeats, one line a
/// `window` says how many more came. A kind is the line with its numbers taken out (a
/// pointer, a count), so a flood of one assertion is one kind. At most `capacity`
/// kinds are told apart; a new kind beyond them counts as one kind, "other".
struct LogRepeats: Equatable {
    /// What one repeated kind came to over a window: its first line, and how many more.
    struct Summary: Equatable {
        let line: String
        let more: Int

        /// As the log says it.
        var text: String { "\(line) (and \(more) more like it in the last minute)" }
    }

    private struct Kind: Equatable {
        let line: String
        /// When its window began: its first line shown, or the last summary.
        var since: MonotonicInstant
        var more: Int
    }

    let window: TimeInterval
    let capacity: Int
    private var kinds: [String: Kind] = [:]

    init(window: TimeInterval = 60, capacity: Int = 64) {
        self.window = window
        self.capacity = capacity
    }

    /// A kind beyond `capacity`.
    static let other = "other library lines"

    /// The kinds kept now (each shown once, or summarised).
    var count: Int { kinds.count }

    /// One line at `now`: true when it is to be shown (the first of its kind in its
    /// window), false when it is only counted. Call `due(at:)` first, so that a kind
    /// whose window is over is summarised before it starts again.
    mutating func note(_ line: String, at now: MonotonicInstant) -> Bool {
        var key = Self.kind(of: line)
        if kinds[key] == nil, kinds.count >= capacity {
            key = Self.other
            if kinds[key] == nil {
                // The line that makes room for "other" is shown; the oldest kind goes.
                if let oldest = kinds.min(by: { $0.value.since < $1.value.since })?.key { kinds[oldest] = nil }
                kinds[key] = Kind(line: Self.other + ", first: " + line, since: now, more: 0)
                return true
            }
        }
        guard var kind = kinds[key] else {
            kinds[key] = Kind(line: line, since: now, more: 0)
            return true
        }
        kind.more += 1
        kinds[key] = kind
        return false
    }

    /// The kinds whose window is over at `now`: each that repeated is summarised and
    /// watched for another window; each that did not is forgotten (shown again next time).
    mutating func due(at now: MonotonicInstant) -> [Summary] {
        var out: [Summary] = []
        for (key, kind) in kinds where now.timeIntervalSince(kind.since) >= window {
            if kind.more > 0 {
                out.append(Summary(line: kind.line, more: kind.more))
                kinds[key] = Kind(line: kind.line, since: now, more: 0)
            } else {
                kinds[key] = nil
            }
        }
        return out.sorted { $0.line < $1.line }
    }

    /// When the next summary is due (nil while nothing repeated).
    var nextDue: MonotonicInstant? {
        kinds.values.filter { $0.more > 0 }.map { $0.since.addingTimeInterval(window) }.min()
    }

    /// A line's kind: its runs of digits (and hex after `0x`) as `#`.
    static func kind(of line: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(line.utf8.count)
        var inNumber = false
        for c in line.utf8 {
            let digit = c >= 0x30 && c <= 0x39
            let hex = inNumber && ((c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46) || c == 0x78)
            if digit || hex {
                if !inNumber { out.append(0x23) }
                inNumber = true
            } else {
                inNumber = false
                out.append(c)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

import Foundation

/// A programme laid out on the wall clock (docs/presets.md, Schedule): which block is on air
/// at an instant, and what comes next. A pure value made from a `ScheduleConfig`.
public struct Programme: Sendable {
    public let config: ScheduleConfig

    public init(_ config: ScheduleConfig) {
        self.config = config
        longestFinish = config.blocks.reduce(0) { longest, b in
            guard b.overrun == .finish, case .duration(let d) = b.end else { return longest }
            return max(longest, min(d, MediaTime.maxDuration))
        }
    }

    /// The longest `duration` of a block that finishes its item (its end may pass the next starts).
    private let longestFinish: TimeInterval

    public var zone: ZoneRules { config.zone }

    /// The entries that are on air at some instant of `from..<to`, in start order: the one
    /// in progress at `from` (if any), then those that start before `to`.
    public func entries(from: Date, to: Date) -> [ProgrammeEntry] {
        guard to > from else { return [] }
        let first = zone.local(from).date, last = zone.local(to).date
        // What is in progress at `from` started at the latest start before it, and what ends the
        // last entry is the first start after `to`: a day either side mostly holds both. Else a
        // week (a daily block recurs within one), and as far back as a block that finishes its
        // item may last; dated blocks are all looked at.
        var starts = occurrences(from: first.adding(days: -1), to: last.adding(days: 1))
        if longestFinish > 86400 || !starts.contains(where: { $0.start <= from }) || !starts.contains(where: { $0.start >= to }) {
            let back = 8 + Int((longestFinish / 86400).rounded(.up))
            starts = occurrences(from: first.adding(days: -back), to: last.adding(days: 8))
        }
        var out: [ProgrammeEntry] = []
        for (i, s) in starts.enumerated() {
            guard s.start < to else { break }
            let next = starts[(i + 1)...].first { $0.start > s.start }?.start
            let end = end(of: s, next: next)
            if end > from, end > s.start { out.append(entry(s, end: end)) }
        }
        return out
    }

    /// The entry on air at `instant`; nil when none is (filler). Where an entry that finishes
    /// its item (`overrun: finish`) meets the next one, the later start is on air.
    public func onAir(at instant: Date) -> ProgrammeEntry? {
        entries(from: instant, to: instant.addingTimeInterval(1)).last { $0.start <= instant && instant < $0.end }
    }

    /// The next `count` entries that start after `instant`, in start order.
    public func upcoming(after instant: Date, count: Int) -> [ProgrammeEntry] {
        guard count > 0 else { return [] }
        let week = 7 * 86400.0
        var found = entries(from: instant, to: instant.addingTimeInterval(week * Double(count + 1))).filter { $0.start > instant }
        if found.count < count, let lastDated = datedStarts().last, lastDated > instant {
            found = entries(from: instant, to: lastDated.addingTimeInterval(1)).filter { $0.start > instant }
        }
        return Array(found.prefix(count))
    }

    // MARK: -

    private struct Occurrence {
        let index: Int
        let local: LocalDateTime
        let start: Date
    }

    /// Every start on the local dates `from...to` (daily blocks) and every dated block's, in
    /// start order; of two at the same instant (times in one spring-forward gap) the block
    /// written later plays.
    private func occurrences(from: LocalDate, to: LocalDate) -> [Occurrence] {
        var out: [Occurrence] = []
        for (i, block) in config.blocks.enumerated() {
            switch block.at {
            case .once(let when):
                out.append(Occurrence(index: i, local: when, start: zone.instant(when)))
            case .daily(let second):
                var day = from
                while day <= to {
                    if block.days.contains(day.weekday) {
                        let when = LocalDateTime(date: day, secondOfDay: second)
                        out.append(Occurrence(index: i, local: when, start: zone.instant(when)))
                    }
                    day = day.adding(days: 1)
                }
            }
        }
        return out.sorted { ($0.start, $0.index) < ($1.start, $1.index) }
    }

    private func datedStarts() -> [Date] {
        config.blocks.compactMap { b -> Date? in
            if case .once(let when) = b.at { return zone.instant(when) }
            return nil
        }.sorted()
    }

    /// Its own end (until, duration), cut at `next` unless it finishes its item; else `next`.
    private func end(of s: Occurrence, next: Date?) -> Date {
        let block = config.blocks[s.index]
        let own: Date?
        switch block.end {
        case .none: own = nil
        case .duration(let d): own = s.start.addingTimeInterval(d)
        case .until(let second):
            let day = second > s.local.secondOfDay ? s.local.date : s.local.date.adding(days: 1)
            own = zone.instant(LocalDateTime(date: day, secondOfDay: second))
        }
        guard let own else { return next ?? .distantFuture }
        guard let next, block.overrun == .cut else { return own }
        return min(own, next)
    }

    private func entry(_ s: Occurrence, end: Date) -> ProgrammeEntry {
        ProgrammeEntry(block: config.blocks[s.index], blockIndex: s.index, start: s.start, end: end, local: s.local,
                       startClock: zone.local(s.start))
    }
}

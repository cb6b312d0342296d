import Foundation

/// A programme's starts, indexed once per programme (docs/presets.md, Schedule): each weekday's
/// daily blocks sorted by time of day, and the dated blocks sorted by date and time. Every
/// question (the start before or after an instant, the next one after a start) is a binary
/// search and a few steps, whatever the blocks' number or durations. A pure value.
///
/// Starts are ordered by their wall time as scheduled, then by the block's place in the list.
/// A wall time's instant never decreases as the wall time grows (a time in a spring-forward gap
/// is the gap's end, a time that happens twice is its first), so this is also the order of their
/// instants; starts at one instant (times a spring-forward gap moves onto one instant) are
/// next to each other, the latest wall time last.
struct ProgrammeStarts: Sendable {
    /// One start of a block.
    struct Occurrence: Equatable, Sendable {
        let index: Int
        let local: LocalDateTime
        let start: Date

        /// Whether it comes before `other` in the programme's order.
        func precedes(_ other: Occurrence) -> Bool { (local, index) < (other.local, other.index) }
    }

    private struct Slot: Sendable {
        let second: Int
        let block: Int
    }

    let zone: ZoneRules
    /// Per weekday (`Weekday.rawValue - 1`), the daily blocks that play on it, by time then place.
    private let daily: [[Slot]]
    private let hasDaily: Bool
    /// The dated blocks' starts, in order.
    private let dated: [Occurrence]
    /// Whether two blocks are ever set for the same wall time (`validate` refuses it; a
    /// programme made otherwise may have it).
    let sharesWallTimes: Bool

    init(_ config: ScheduleConfig) {
        zone = config.zone
        var daily = [[Slot]](repeating: [], count: 7)
        var dated: [Occurrence] = []
        for (i, block) in config.blocks.enumerated() {
            switch block.at {
            case .daily(let second):
                for day in block.days { daily[day.rawValue - 1].append(Slot(second: second, block: i)) }
            case .once(let when):
                dated.append(Occurrence(index: i, local: when, start: config.zone.instant(when)))
            }
        }
        let sortedDaily = daily.map { $0.sorted { ($0.second, $0.block) < ($1.second, $1.block) } }
        let sortedDated = dated.sorted { $0.precedes($1) }
        self.daily = sortedDaily
        hasDaily = sortedDaily.contains { !$0.isEmpty }
        self.dated = sortedDated
        var shares = sortedDaily.contains { zip($0, $0.dropFirst()).contains { $0.second == $1.second } }
            || zip(sortedDated, sortedDated.dropFirst()).contains { $0.local == $1.local }
        if !shares {
            let times = Set(sortedDaily.indices.flatMap { d in sortedDaily[d].map { d * 86400 + $0.second } })
            shares = sortedDated.contains { times.contains(($0.local.date.weekday.rawValue - 1) * 86400 + $0.local.secondOfDay) }
        }
        sharesWallTimes = shares
    }

    private func slots(_ day: LocalDate) -> [Slot] { daily[day.weekday.rawValue - 1] }

    private func occurrence(_ day: LocalDate, _ slot: Slot) -> Occurrence {
        let when = LocalDateTime(date: day, secondOfDay: slot.second)
        return Occurrence(index: slot.block, local: when, start: zone.instant(when))
    }

    // MARK: - A place between two starts

    /// A place in the programme's order: every start before it precedes every start after it.
    struct Cursor: Sendable {
        fileprivate var day: LocalDate
        /// The next daily start's place in `day`'s slots (their count: the day's end).
        fileprivate var slot: Int
        /// The next dated start's place.
        fileprivate var dated: Int
    }

    /// The place just before the first start after `instant`.
    func cursor(after instant: Date) -> Cursor {
        let dated = Self.firstIndex(in: self.dated.count) { self.dated[$0].start > instant }
        // Every wall time up to the clock's at `instant` starts at or before it: the search begins that day.
        var day = zone.local(instant).date
        guard hasDaily else { return Cursor(day: day, slot: 0, dated: dated) }
        while true {
            let s = slots(day)
            let slot = Self.firstIndex(in: s.count) { occurrence(day, s[$0]).start > instant }
            if slot < s.count { return Cursor(day: day, slot: slot, dated: dated) }
            day = day.adding(days: 1)
        }
    }

    /// The first start after `cursor`, moving past it.
    func next(_ c: inout Cursor) -> Occurrence? {
        var daily: Occurrence?
        if hasDaily {
            while c.slot >= slots(c.day).count {
                c.day = c.day.adding(days: 1)
                c.slot = 0
            }
            daily = occurrence(c.day, slots(c.day)[c.slot])
        }
        let dated = c.dated < self.dated.count ? self.dated[c.dated] : nil
        if let d = daily, dated.map({ d.precedes($0) }) ?? true {
            c.slot += 1
            return d
        }
        if dated != nil { c.dated += 1 }
        return dated
    }

    /// The last start before `cursor`, moving back past it.
    func previous(_ c: inout Cursor) -> Occurrence? {
        var daily: Occurrence?
        if hasDaily {
            while c.slot == 0 {
                c.day = c.day.adding(days: -1)
                c.slot = slots(c.day).count
            }
            daily = occurrence(c.day, slots(c.day)[c.slot - 1])
        }
        let dated = c.dated > 0 ? self.dated[c.dated - 1] : nil
        if let d = daily, dated.map({ $0.precedes(d) }) ?? true {
            c.slot -= 1
            return d
        }
        if dated != nil { c.dated -= 1 }
        return dated
    }

    /// The block `index`'s last start at or before `instant` (a daily block's within the week
    /// before, a dated block's own).
    func last(of index: Int, block: ScheduleBlock, atOrBefore instant: Date) -> Occurrence? {
        switch block.at {
        case .once(let when):
            let start = zone.instant(when)
            return start <= instant ? Occurrence(index: index, local: when, start: start) : nil
        case .daily(let second):
            let today = zone.local(instant).date
            for back in -1...8 {
                let day = today.adding(days: -back)
                guard block.days.contains(day.weekday) else { continue }
                let o = occurrence(day, Slot(second: second, block: index))
                if o.start <= instant { return o }
            }
            return nil
        }
    }

    /// The block's start before `o` (nil for a dated block, or none within the week before).
    func previous(of o: Occurrence, block: ScheduleBlock) -> Occurrence? {
        guard case .daily = block.at else { return nil }
        return last(of: o.index, block: block, atOrBefore: o.start.addingTimeInterval(-1))
    }

    /// The first of `0..<count` where `after` holds (it holds from some place on), else `count`.
    private static func firstIndex(in count: Int, where after: (Int) -> Bool) -> Int {
        var lo = 0, hi = count
        while lo < hi {
            let mid = (lo + hi) / 2
            if after(mid) { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }
}

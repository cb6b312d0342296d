import Foundation

/// A programme laid out on the wall clock (docs/presets.md, Schedule): which block is on air
/// at an instant, and what comes next. A pure value made from a `ScheduleConfig`, its starts
/// indexed once (`ProgrammeStarts`): what is on air is found by searching, never by walking
/// days, so a question costs the same whatever the blocks' durations.
public struct Programme: Sendable {
    public let config: ScheduleConfig
    private let starts: ProgrammeStarts
    /// The blocks that finish their item and have an end of their own: one of them may be on
    /// air under a later start's end (its end may pass the next starts).
    private let finishing: [Int]

    public init(_ config: ScheduleConfig) {
        self.config = config
        starts = ProgrammeStarts(config)
        finishing = config.blocks.indices.filter { config.blocks[$0].overrun == .finish && config.blocks[$0].end != nil }
    }

    public var zone: ZoneRules { config.zone }

    /// The entries that are in progress at `from` or start before `to`, in start order: the
    /// one on air at `from`, any block finishing its item whose own end is after `from` (its
    /// latest start), then those that start before `to`. Of starts at one instant (times a
    /// spring-forward gap moves there), only the latest wall time plays, and is listed.
    public func entries(from: Date, to: Date) -> [ProgrammeEntry] {
        guard to > from else { return [] }
        return inProgress(at: from) + starting(after: from) { start, _ in start < to }
    }

    /// The entry on air at `instant`; nil when none is (filler). Where an entry that finishes
    /// its item (`overrun: finish`) meets the next one, the later start is on air.
    public func onAir(at instant: Date) -> ProgrammeEntry? {
        inProgress(at: instant).last
    }

    /// The next `count` entries that start after `instant`, in start order.
    public func upcoming(after instant: Date, count: Int) -> [ProgrammeEntry] {
        return count > 0 ? starting(after: instant) { _, found in found < count } : []
    }

    // MARK: -

    private typealias Occurrence = ProgrammeStarts.Occurrence

    /// The entries that start after `instant`, in start order, while `more(start, found so far)`.
    private func starting(after instant: Date, while more: (Date, Int) -> Bool) -> [ProgrammeEntry] {
        var out: [ProgrammeEntry] = []
        var c = starts.cursor(after: instant)
        var s = nextPlaying(&c)
        while let current = s, more(current.start, out.count) {
            s = nextPlaying(&c)
            let end = end(of: current, next: s?.start)
            if end > current.start { out.append(entry(current, end: end)) }
        }
        return out
    }

    /// The entries in progress at `instant`, in start order, the one on air last: the latest
    /// start at or before it, if it has not ended, and the latest start of each block that
    /// finishes its item, while its own end is ahead. No other can be: a block that does not
    /// finish its item ends by the next start, and a block's earlier starts end before its later.
    private func inProgress(at instant: Date) -> [ProgrammeEntry] {
        var c = starts.cursor(after: instant)
        var after = c
        let next = nextPlaying(&after)
        var found: [ProgrammeEntry] = []
        if let latest = previousPlaying(&c) {
            let end = end(of: latest, next: next?.start)
            if end > instant, end > latest.start { found.append(entry(latest, end: end)) }
        }
        for i in finishing {
            let block = config.blocks[i]
            var o = starts.last(of: i, block: block, atOrBefore: instant)
            // One that another start at its instant displaces never plays: its start before may
            // (a block that shares its wall time with a later one on every day of a week never does).
            var steps = 0
            while let d = o, !plays(d) {
                steps += 1
                o = steps > 7 ? nil : starts.previous(of: d, block: block)
            }
            guard let o, !found.contains(where: { $0.blockIndex == i && $0.local == o.local }) else { continue }
            let end = end(of: o, next: nil)
            if end > instant, end > o.start { found.append(entry(o, end: end)) }
        }
        return found.sorted { ($0.local, $0.blockIndex) < ($1.local, $1.blockIndex) }
    }

    /// The next start that plays (the last of those at one instant), moving past all of them.
    private func nextPlaying(_ c: inout ProgrammeStarts.Cursor) -> Occurrence? {
        guard var o = starts.next(&c) else { return nil }
        while true {
            var ahead = c
            guard let n = starts.next(&ahead), n.start == o.start else { return o }
            o = n
            c = ahead
        }
    }

    /// The last start before the cursor that plays, moving back past all those at its instant.
    private func previousPlaying(_ c: inout ProgrammeStarts.Cursor) -> Occurrence? {
        guard let o = starts.previous(&c) else { return nil }
        while true {
            var back = c
            guard let p = starts.previous(&back), p.start == o.start else { return o }
            c = back
        }
    }

    /// Whether `o` plays: no other start at its instant comes after it in the programme's order.
    private func plays(_ o: Occurrence) -> Bool {
        // Only a time the clocks skip, or a wall time two blocks share, meets another start.
        guard starts.sharesWallTimes || zone.local(o.start).local != o.local else { return true }
        var c = starts.cursor(after: o.start)
        return previousPlaying(&c) == o
    }

    /// The blocks displaced by `o` (set for its instant, earlier in the programme's order).
    private func displaced(by o: Occurrence) -> [Int] {
        guard starts.sharesWallTimes || zone.local(o.start).local != o.local || isTransition(o.start) else { return [] }
        var c = starts.cursor(after: o.start)
        _ = starts.previous(&c)
        var out: [Int] = []
        while let p = starts.previous(&c), p.start == o.start { out.append(p.index) }
        return out.reversed()
    }

    /// Whether the zone's offset changes at `instant` (a start there may have others moved onto it).
    private func isTransition(_ instant: Date) -> Bool {
        zone.utcOffset(at: instant) != zone.utcOffset(at: instant.addingTimeInterval(-1))
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
                       startClock: zone.local(s.start), displaced: displaced(by: s).map { config.blocks[$0].id })
    }
}

import Foundation

/// A clock-time programme (docs/presets.md, Schedule): blocks that start at wall-clock times
/// in a zone on one player, and filler whenever no block plays. Made by the preset loader
/// (`schedule:`) or `ScheduleConfig.load` (a programme file alone); checked in full.
public struct ScheduleConfig: Equatable, Sendable {
    /// The programme file, absolute, when the preset says `schedule: { file: … }`: read again on reload.
    public var file: String?
    /// The zone's name as written; nil: the system's zone.
    public var timezone: String?
    /// The zone the block times are read in.
    public var zone: ZoneRules
    /// The player the blocks play on. In a preset: always set (the video player, else the
    /// first, when not written); in a programme file read alone: as written.
    public var player: String?
    /// What plays whenever no block does; nil: nothing is scheduled between blocks.
    public var filler: PlaylistConfig?
    /// In the order written; ids unique, no two starting at the same instant.
    public var blocks: [ScheduleBlock]

    public init(file: String? = nil, timezone: String? = nil, zone: ZoneRules = .utc, player: String? = nil,
                filler: PlaylistConfig? = nil, blocks: [ScheduleBlock] = []) {
        self.file = file
        self.timezone = timezone
        self.zone = zone
        self.player = player
        self.filler = filler
        self.blocks = blocks
    }
}

/// One block of a programme: when it starts, how long it lasts and what it plays.
public struct ScheduleBlock: Equatable, Sendable {
    /// When a block starts, as a wall clock in the programme's zone shows it.
    public enum Start: Equatable, Sendable {
        /// Every day (of `days`) at this second of the day.
        case daily(secondOfDay: Int)
        /// Once, at this date and time.
        case once(LocalDateTime)
    }

    /// How a block's end is given; without one it lasts until the next block.
    public enum End: Equatable, Sendable {
        /// The next time the clock shows this second of the day after the start.
        case until(secondOfDay: Int)
        case duration(TimeInterval)
    }

    /// What happens when the next block's time comes while this one has more to play.
    public enum Overrun: String, Equatable, Sendable, CaseIterable {
        /// The next block starts on time.
        case cut
        /// The item in progress ends first.
        case finish
    }

    public var id: String
    public var at: Start
    /// The days a daily block plays on (all seven when not written); unused for a dated block.
    public var days: Set<Weekday>
    public var end: End?
    /// Exactly one of `source` and `playlist` is set, resolved as a player's.
    public var source: String?
    public var playlist: PlaylistConfig?
    /// The player's levels while the block plays (0...200 %); nil: the player's own.
    public var publishVolume: Int?
    public var playVolume: Int?
    public var overrun: Overrun

    public init(id: String, at: Start, days: Set<Weekday> = Set(Weekday.allCases), end: End? = nil,
                source: String? = nil, playlist: PlaylistConfig? = nil, publishVolume: Int? = nil,
                playVolume: Int? = nil, overrun: Overrun = .cut) {
        self.id = id
        self.at = at
        self.days = days
        self.end = end
        self.source = source
        self.playlist = playlist
        self.publishVolume = publishVolume
        self.playVolume = playVolume
        self.overrun = overrun
    }

    /// Whether the block starts on `date` (its weekday for a daily block, its date for a dated one).
    public func plays(on date: LocalDate) -> Bool {
        switch at {
        case .daily: return days.contains(date.weekday)
        case .once(let when): return when.date == date
        }
    }

    /// The second of the day the block starts at.
    public var secondOfDay: Int {
        switch at {
        case .daily(let s): return s
        case .once(let when): return when.secondOfDay
        }
    }
}

extension ScheduleBlock.Start {
    /// `07:00`, `07:00:30` (every day) or `2026-12-24 20:00[:00]` (one date), or why not.
    public static func parse(_ text: String) -> Result<ScheduleBlock.Start, ScheduleTextError> {
        let t = text.trimmingCharacters(in: .whitespaces)
        let parts = t.split(separator: " ", omittingEmptySubsequences: true)
        if parts.count == 1, !t.contains("-") {
            guard let s = ScheduleBlock.clock(t) else {
                return .failure(.init("\"\(t.clipped())\" is not a time of day (HH:MM or HH:MM:SS, from 00:00 to 23:59:59)"))
            }
            return .success(.daily(secondOfDay: s))
        }
        let form = ScheduleTextError("\"\(t.clipped())\" is not a time (HH:MM, HH:MM:SS, or YYYY-MM-DD HH:MM for one date)")
        guard parts.count == 2 else { return .failure(form) }
        let ymd = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard ymd.count == 3, ymd[0].count == 4, ymd[1].count == 2, ymd[2].count == 2,
              ymd.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let y = Int(ymd[0]), let m = Int(ymd[1]), let d = Int(ymd[2]) else { return .failure(form) }
        guard let date = LocalDate(year: y, month: m, day: d) else {
            return .failure(.init("\"\(t.clipped())\": there is no \(parts[0]) in the calendar"))
        }
        guard let s = ScheduleBlock.clock(String(parts[1])) else {
            return .failure(.init("\"\(t.clipped())\": \(parts[1]) is not a time of day (HH:MM or HH:MM:SS, from 00:00 to 23:59:59)"))
        }
        return .success(.once(LocalDateTime(date: date, secondOfDay: s)))
    }

    /// As written back: `07:00:30`, `2026-12-24 20:00:00`.
    public var text: String {
        switch self {
        case .daily(let s): return LocalDateTime.clock(s)
        case .once(let when): return when.description
        }
    }
}

extension ScheduleBlock {
    /// Seconds of the day for `HH:MM` or `HH:MM:SS` (00:00 to 23:59:59), else nil.
    public static func clock(_ text: String) -> Int? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3,
              parts.allSatisfy({ (1...2).contains($0.count) && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              parts.dropFirst().allSatisfy({ $0.count == 2 }) else { return nil }
        let v = parts.compactMap { Int($0) }
        return LocalDateTime.secondOfDay(hour: v[0], minute: v[1], second: v.count == 3 ? v[2] : 0)
    }

    /// The days `mon`, `mon-fri` (a range; `sat-mon` wraps), comma-separated, or why not.
    public static func days(_ tokens: [String]) -> Result<Set<Weekday>, ScheduleTextError> {
        var out = Set<Weekday>()
        for token in tokens.flatMap({ $0.split(separator: ",") }).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let ends = token.split(separator: "-", omittingEmptySubsequences: false).map { Weekday(name: String($0)) }
            guard (1...2).contains(ends.count), let first = ends[0], let last = ends[ends.count - 1] else {
                return .failure(.init("\"\(token.clipped())\" is not a day or a range of days (mon..sun, like mon-fri)"))
            }
            var d = first
            while true {
                out.insert(d)
                if d == last { break }
                d = Weekday(rawValue: d.rawValue % 7 + 1)!
            }
        }
        return out.isEmpty ? .failure(.init("no days given (mon..sun, like mon-fri)")) : .success(out)
    }

    /// `mon-fri`, `mon, wed, sat-sun`: the days as written back (runs of three or more as ranges).
    public static func daysText(_ days: Set<Weekday>) -> String {
        let sorted = days.sorted()
        var runs: [[Weekday]] = []
        for d in sorted {
            if let last = runs.last?.last, last.rawValue + 1 == d.rawValue { runs[runs.count - 1].append(d) } else { runs.append([d]) }
        }
        return runs.map { $0.count >= 3 ? "\($0[0].name)-\($0[$0.count - 1].name)" : $0.map(\.name).joined(separator: ", ") }
            .joined(separator: ", ")
    }
}

/// Why a programme's time, date or days cannot be read; `message` says it.
public struct ScheduleTextError: Error, Equatable, Sendable {
    public var message: String
    init(_ message: String) { self.message = message }
}

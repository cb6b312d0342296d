import Foundation

/// A day of the week, Monday first (docs/presets.md, Schedule: `days`).
public enum Weekday: Int, CaseIterable, Comparable, Sendable {
    case mon = 1, tue, wed, thu, fri, sat, sun

    public var name: String { ["mon", "tue", "wed", "thu", "fri", "sat", "sun"][rawValue - 1] }

    public init?(name: String) {
        guard let d = Weekday.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
        self = d
    }

    public static func < (a: Weekday, b: Weekday) -> Bool { a.rawValue < b.rawValue }
}

/// A date of the proleptic Gregorian calendar, as a wall clock shows it (no zone).
public struct LocalDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// nil for a date that does not exist (2026-02-30, month 13).
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month),
              day >= 1, day <= LocalDate.daysIn(month: month, year: year) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `days` days after 1970-01-01.
    public init(daysSinceEpoch days: Int) {
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        year = yoe + era * 400 + (m <= 2 ? 1 : 0)
        month = m
        day = d
    }

    /// Days since 1970-01-01 (negative before).
    public var daysSinceEpoch: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = month > 2 ? month - 3 : month + 9
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    public var weekday: Weekday {
        // 1970-01-01 was a Thursday.
        let r = ((daysSinceEpoch + 3) % 7 + 7) % 7
        return Weekday(rawValue: r + 1)!
    }

    public func adding(days: Int) -> LocalDate { LocalDate(daysSinceEpoch: daysSinceEpoch + days) }

    /// `2026-03-29`
    public var description: String {
        String(format: "%04d-%02d-%02d", year, month, day)
    }

    public static func < (a: LocalDate, b: LocalDate) -> Bool { a.daysSinceEpoch < b.daysSinceEpoch }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

/// A date and a time of day as a wall clock shows them, to the second (no zone).
public struct LocalDateTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let date: LocalDate
    /// Seconds since the day's midnight, 0..<86400.
    public let secondOfDay: Int

    public init(date: LocalDate, secondOfDay: Int) {
        let extra = secondOfDay >= 0 ? secondOfDay / 86400 : (secondOfDay - 86399) / 86400
        self.date = extra == 0 ? date : date.adding(days: extra)
        self.secondOfDay = secondOfDay - extra * 86400
    }

    /// nil for a time that does not exist on a clock (25:00, 12:60).
    public init?(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int = 0) {
        guard let date = LocalDate(year: year, month: month, day: day),
              let s = LocalDateTime.secondOfDay(hour: hour, minute: minute, second: second) else { return nil }
        self.init(date: date, secondOfDay: s)
    }

    public var hour: Int { secondOfDay / 3600 }
    public var minute: Int { secondOfDay % 3600 / 60 }
    public var second: Int { secondOfDay % 60 }

    /// Seconds since 1970-01-01 00:00:00 of this wall time read as if it were UTC.
    var wallSeconds: Int64 { Int64(date.daysSinceEpoch) * 86400 + Int64(secondOfDay) }

    init(wallSeconds s: Int64) {
        let days = s >= 0 ? s / 86400 : (s - 86399) / 86400
        self.init(date: LocalDate(daysSinceEpoch: Int(days)), secondOfDay: Int(s - days * 86400))
    }

    /// `2026-03-29 02:30:00`
    public var description: String { "\(date) \(LocalDateTime.clock(secondOfDay))" }

    public static func < (a: LocalDateTime, b: LocalDateTime) -> Bool { a.wallSeconds < b.wallSeconds }

    /// Seconds since midnight for a clock time, nil when it does not exist (24:00, 12:60).
    public static func secondOfDay(hour: Int, minute: Int, second: Int) -> Int? {
        guard (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second) else { return nil }
        return hour * 3600 + minute * 60 + second
    }

    /// `07:00:30` for a second of the day.
    public static func clock(_ secondOfDay: Int) -> String {
        String(format: "%02d:%02d:%02d", secondOfDay / 3600, secondOfDay % 3600 / 60, secondOfDay % 60)
    }
}

import Foundation

/// "2026-12-02T02:52:52.123Z": ISO 8601 in UTC with milliseconds (truncated, as
/// Foundation's `ISO8601FormatStyle` gives them), worked out from the Unix time
/// alone. No time zone and no calendar are looked up, so no ICU data is loaded:
/// `ISO8601FormatStyle` opened ICU's time zone resources at the first event,
/// some 2.5 MiB of the binary's pages resident from then on.
enum UTCTimestamp {
    static func string(_ date: Date) -> String {
        let t = date.timeIntervalSince1970
        // Years 0001..9999 (a clock that far off is clamped, never trapped on).
        let clamped = t.isFinite ? min(max(t, -62_135_596_800), 253_402_300_799.9995) : 0
        let whole = clamped.rounded(.down)
        let milliseconds = min(999, Int((clamped - whole) * 1000))
        let seconds = Int(whole)
        let days = seconds >= 0 ? seconds / 86_400 : -((-seconds + 86_399) / 86_400)
        let ofDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
            + pad(ofDay / 3600, 2) + ":" + pad(ofDay / 60 % 60, 2) + ":" + pad(ofDay % 60, 2)
            + "." + pad(milliseconds, 3) + "Z"
    }

    /// Days since 1970-01-01 to the proleptic Gregorian date (Howard Hinnant's
    /// `civil_from_days`: 400-year eras, years starting in March).
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shifted + 2) / 5 + 1
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}

import Foundation

/// "2026-12-02T02:52:52.123Z": ISO 8601 in UTC with milliseconds (truncated, as
/// Foundation's `ISO8601FormatStyle` gives them), from the Unix time by gmtime_r.
/// No time zone database and no calendar are looked up, so no ICU data is loaded:
/// `ISO8601FormatStyle` opened ICU's time zone resources at the first event,
/// some 2.5 MiB of the binary's pages resident from then on.
enum UTCTimestamp {
    static func string(_ date: Date) -> String {
        let t = date.timeIntervalSince1970
        // Years 0001..9999 (a clock that far off is clamped, never trapped on).
        let clamped = t.isFinite ? min(max(t, -62_135_596_800), 253_402_300_799.9995) : 0
        let whole = clamped.rounded(.down)
        let milliseconds = min(999, Int((clamped - whole) * 1000))
        var seconds = time_t(whole)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return "1970-01-01T00:00:00.000Z" }
        return pad(Int(parts.tm_year) + 1900, 4) + "-" + pad(Int(parts.tm_mon) + 1, 2) + "-" + pad(Int(parts.tm_mday), 2)
            + "T" + pad(Int(parts.tm_hour), 2) + ":" + pad(Int(parts.tm_min), 2) + ":" + pad(Int(parts.tm_sec), 2)
            + "." + pad(milliseconds, 3) + "Z"
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}

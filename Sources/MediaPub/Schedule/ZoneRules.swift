import CGStreamer
import Foundation

/// A time zone's rules, read from the system's time-zone database (docs/presets.md,
/// Schedule: time zones): the TZif file `<tzdir>/<name>`, tzdir being `$TZDIR`, else
/// `/usr/share/zoneinfo`, kept current by the `tzdata` package as for cron. Read through
/// GLib's GTimeZone, never through rules built into the program.
public struct ZoneRules: Sendable, Equatable, CustomStringConvertible {
    /// Why a zone cannot be had; `message` names it.
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// The zone's name as given (`Europe/Paris`), `UTC`, or the path of a file read as it is.
    public let name: String
    /// The TZif file read; nil for UTC without a file.
    public let file: String?
    private let zone: GZone

    public var description: String { name }

    public static func == (a: ZoneRules, b: ZoneRules) -> Bool { a.name == b.name && a.file == b.file }

    /// The folder zone names are looked up in: `$TZDIR`, else `/usr/share/zoneinfo`.
    public static func databaseFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let dir = environment["TZDIR"], !dir.isEmpty { return dir }
        return "/usr/share/zoneinfo"
    }

    /// The zone `name` (an IANA name such as `Europe/Paris`) from the database in `tzdir`.
    public static func named(_ name: String, tzdir: String) throws(Failure) -> ZoneRules {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard !name.isEmpty, !name.hasPrefix("/"), !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }),
              name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_+-/".contains($0)) }) else {
            throw Failure(message: "\"\(name.clipped())\" is not a time-zone name (like Europe/Paris)")
        }
        let path = (tzdir.hasSuffix("/") ? tzdir : tzdir + "/") + name
        return try file(path, name: name, unknown: "unknown time zone \"\(name)\" (no such zone in \(tzdir))")
    }

    /// UTC, needing no file.
    public static let utc = ZoneRules(name: "UTC", file: nil, zone: GZone(g_time_zone_new_utc()))

    /// The system's zone: `$TZ` when set (a name, `:Name`, or a file's path; empty is UTC),
    /// else the zone `/etc/localtime` links to (or that file itself), else UTC.
    public static func system(environment: [String: String] = ProcessInfo.processInfo.environment,
                              localtime: String = "/etc/localtime") throws(Failure) -> ZoneRules {
        let tzdir = databaseFolder(environment: environment)
        if var tz = environment["TZ"] {
            if tz.hasPrefix(":") { tz.removeFirst() }
            if tz.isEmpty || tz == "UTC" && !FileManager.default.fileExists(atPath: tzdir + "/UTC") { return utc }
            if tz.hasPrefix("/") { return try file(tz, name: tz, unknown: "TZ names \(tz), which is not a time-zone file") }
            do { return try named(tz, tzdir: tzdir) } catch {
                throw Failure(message: "TZ=\(tz.clipped()): \(error.message)")
            }
        }
        guard FileManager.default.fileExists(atPath: localtime) else { return utc }
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: localtime),
           let r = target.range(of: "zoneinfo/"), let zone = try? named(String(target[r.upperBound...]), tzdir: tzdir) {
            return zone
        }
        return try file(localtime, name: localtime, unknown: "\(localtime) is not a time-zone file")
    }

    private static func file(_ path: String, name: String, unknown: String) throws(Failure) -> ZoneRules {
        // GLib gives UTC for a file it cannot read: the file is checked here first.
        guard case .success(let head) = BoundedFile.contents(path, limit: 8 << 20), head.starts(with: Array("TZif".utf8)) else {
            throw Failure(message: unknown)
        }
        guard let tz = g_time_zone_new_identifier(path) else { throw Failure(message: unknown) }
        return ZoneRules(name: name, file: path, zone: GZone(tz))
    }

    private init(name: String, file: String?, zone: GZone) {
        self.name = name
        self.file = file
        self.zone = zone
    }

    // MARK: - Reading the rules

    /// The offset from UTC, in seconds, in force at `instant`.
    public func utcOffset(at instant: Date) -> Int { offset(Self.seconds(instant)) }

    /// Whole seconds since 1970 (rounded down), within ±10^12 s (some 30,000 years) whatever the date.
    private static func seconds(_ instant: Date) -> Int64 {
        let s = instant.timeIntervalSince1970
        return s.isFinite ? Int64(min(max(s, -1e12), 1e12).rounded(.down)) : 0
    }

    private func offset(_ t: Int64) -> Int {
        let i = g_time_zone_find_interval(zone.pointer, G_TIME_TYPE_UNIVERSAL, gint64(t))
        return i < 0 ? 0 : Int(g_time_zone_get_offset(zone.pointer, i))
    }

    /// The wall time the zone's clocks show at `instant` (to the second, rounded down), with its offset.
    public func local(_ instant: Date) -> ZonedTime {
        let t = Self.seconds(instant)
        let o = offset(t)
        return ZonedTime(local: LocalDateTime(wallSeconds: t + Int64(o)), utcOffset: o)
    }

    /// The instant a wall time falls on. A time in a spring-forward gap is the first instant
    /// after the gap (02:30 → 03:00, the transition itself); a time that happens twice is its
    /// first occurrence. Decided from the offsets in force around it, not from DST flags.
    public func instant(_ wall: LocalDateTime) -> Date {
        let w = wall.wallSeconds
        let offsets = Set([-2, -1, 0, 1, 2].map { offset(w + Int64($0) * 86400) })
        let valid = offsets.map { w - Int64($0) }.filter { t in w - t == Int64(offset(t)) }
        if let first = valid.min() { return Date(timeIntervalSince1970: Double(first)) }
        // A gap: before it the clocks showed less than `w`, after it more. Find the transition.
        var lo = w - Int64(offsets.max() ?? 0), hi = w - Int64(offsets.min() ?? 0)
        let before = offset(lo)
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2
            if offset(mid) == before { lo = mid } else { hi = mid }
        }
        return Date(timeIntervalSince1970: Double(hi))
    }

    /// `+02:00`, `-05:00`, `+10:30` for an offset in seconds.
    public static func offsetText(_ seconds: Int) -> String {
        let a = abs(seconds)
        let s = a % 60 == 0 ? "" : String(format: ":%02d", a % 60)
        return String(format: "%@%02d:%02d", seconds < 0 ? "-" : "+", a / 3600, a % 3600 / 60) + s
    }
}

/// A wall time with the offset from UTC in force (`ZoneRules.local`).
public struct ZonedTime: Hashable, Sendable, CustomStringConvertible {
    public let local: LocalDateTime
    /// Seconds east of UTC.
    public let utcOffset: Int

    public var date: LocalDate { local.date }
    public var weekday: Weekday { local.date.weekday }

    /// `2026-03-29 03:00:00 +02:00`
    public var description: String { "\(local) \(ZoneRules.offsetText(utcOffset))" }
}

/// Owns one reference to a GTimeZone; GTimeZone is immutable and may be read from any thread.
private final class GZone: @unchecked Sendable {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { g_time_zone_unref(pointer) }
}

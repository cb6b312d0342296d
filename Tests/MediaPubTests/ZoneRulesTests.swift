import Foundation
import XCTest
@testable import MediaPub

/// Time zones from the system's database (docs/presets.md, Schedule: time zones): wall
/// times on daylight-saving nights give the documented instants, and the rules are the
/// folder's, not the toolchain's. Pure: no media.
final class ZoneRulesTests: XCTestCase {
    private let tzdir = "/usr/share/zoneinfo"

    private func wall(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int, _ s: Int = 0) -> LocalDateTime {
        LocalDateTime(year: y, month: mo, day: d, hour: h, minute: mi, second: s)!
    }

    private func at(_ unix: Int) -> Date { Date(timeIntervalSince1970: Double(unix)) }

    func testParisSpringForwardGapStartsAtTheTransition() throws {
        let paris = try ZoneRules.named("Europe/Paris", tzdir: tzdir)
        // 02:30 does not exist on 2026-03-29: the first instant after the gap, 03:00 +02:00 (01:00 UTC).
        XCTAssertEqual(paris.instant(wall(2026, 3, 29, 2, 30)), at(1_774_746_000))
        XCTAssertEqual(paris.local(at(1_774_746_000)).description, "2026-03-29 03:00:00 +02:00")
        XCTAssertEqual(paris.instant(wall(2026, 3, 29, 1, 59, 59)), at(1_774_745_999))
        XCTAssertEqual(paris.instant(wall(2026, 3, 29, 3, 0)), at(1_774_746_000))
    }

    func testParisFallBackRepeatedHourStartsAtItsFirstOccurrence() throws {
        let paris = try ZoneRules.named("Europe/Paris", tzdir: tzdir)
        // 02:30 happens twice on 2026-10-25: at +02:00 (00:30 UTC), then at +01:00.
        XCTAssertEqual(paris.instant(wall(2026, 10, 25, 2, 30)), at(1_792_888_200))
        XCTAssertEqual(paris.local(at(1_792_888_200)).description, "2026-10-25 02:30:00 +02:00")
        XCTAssertEqual(paris.local(at(1_792_888_200 + 3600)).description, "2026-10-25 02:30:00 +01:00")
        XCTAssertEqual(paris.local(at(1_792_888_200)).weekday, .sun)
    }

    func testNewYorkBothNights() throws {
        let ny = try ZoneRules.named("America/New_York", tzdir: tzdir)
        XCTAssertEqual(ny.instant(wall(2026, 3, 8, 2, 30)), at(1_772_953_200))   // 03:00 -04:00
        XCTAssertEqual(ny.local(at(1_772_953_200)).description, "2026-03-08 03:00:00 -04:00")
        XCTAssertEqual(ny.instant(wall(2026, 11, 1, 1, 30)), at(1_793_511_000))  // 01:30 -04:00, first
        XCTAssertEqual(ny.utcOffset(at: at(1_793_511_000 + 3600)), -5 * 3600)
    }

    func testLordHoweHalfHourShift() throws {
        let lh = try ZoneRules.named("Australia/Lord_Howe", tzdir: tzdir)
        // 2026-04-05: 02:00 +11:00 becomes 01:30 +10:30; 01:45 happens twice, first at +11:00.
        XCTAssertEqual(lh.instant(wall(2026, 4, 5, 1, 45)), at(1_775_313_900))
        XCTAssertEqual(lh.local(at(1_775_313_900)).description, "2026-04-05 01:45:00 +11:00")
        XCTAssertEqual(lh.local(at(1_775_313_900 + 1800)).description, "2026-04-05 01:45:00 +10:30")
        // 2026-10-04: 02:00 +10:30 becomes 02:30 +11:00; 02:15 starts at 02:30.
        XCTAssertEqual(lh.instant(wall(2026, 10, 4, 2, 15)), at(1_791_041_400))
        XCTAssertEqual(lh.local(at(1_791_041_400)).description, "2026-10-04 02:30:00 +11:00")
    }

    /// A database folder of the test's own, made with zic, where Europe/Paris is +05:00 all
    /// year: the instants follow the folder, not rules built into the toolchain.
    func testTheRulesComeFromTheFolderGiven() throws {
        let dir = try makeTempDir("tzdb")
        let source = dir.appendingPathComponent("rules.zi")
        try "Zone Europe/Paris 5:00 - +05\n".write(to: source, atomically: true, encoding: .utf8)
        try Proc.check(Tools.path("zic"), ["-d", dir.appendingPathComponent("db").path, source.path])
        let own = try ZoneRules.named("Europe/Paris", tzdir: dir.appendingPathComponent("db").path)
        // 02:30 on 2026-03-29 exists there, at +05:00: 21:30 UTC the day before.
        XCTAssertEqual(own.instant(wall(2026, 3, 29, 2, 30)), at(1_774_746_000 - 3600 * 3 - 1800))
        XCTAssertEqual(own.local(at(1_792_888_200)).description, "2026-10-25 05:30:00 +05:00")
        // The same through $TZDIR, as a run reads it.
        let viaEnv = try ZoneRules.system(environment: ["TZ": "Europe/Paris", "TZDIR": dir.appendingPathComponent("db").path])
        XCTAssertEqual(viaEnv.utcOffset(at: at(1_792_888_200)), 5 * 3600)
    }

    func testUnknownAndMalformedNamesAreRefusedByName() throws {
        XCTAssertThrowsError(try ZoneRules.named("Europe/Atlantis", tzdir: tzdir)) { e in
            XCTAssertEqual((e as? ZoneRules.Failure)?.message,
                           "unknown time zone \"Europe/Atlantis\" (no such zone in /usr/share/zoneinfo)")
        }
        // A file that is not TZif (GLib alone would answer UTC).
        XCTAssertThrowsError(try ZoneRules.named("tzdata.zi", tzdir: tzdir))
        XCTAssertThrowsError(try ZoneRules.named("../zoneinfo/Europe/Paris", tzdir: tzdir))
        XCTAssertThrowsError(try ZoneRules.named("Europe", tzdir: tzdir))
    }

    func testTheSystemZone() throws {
        XCTAssertEqual(try ZoneRules.system(environment: ["TZ": ":America/New_York"]).name, "America/New_York")
        XCTAssertEqual(try ZoneRules.system(environment: ["TZ": ""]), .utc)
        let dir = try makeTempDir("localtime")
        let link = dir.appendingPathComponent("localtime").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/usr/share/zoneinfo/Asia/Tokyo")
        XCTAssertEqual(try ZoneRules.system(environment: [:], localtime: link).name, "Asia/Tokyo")
        XCTAssertEqual(try ZoneRules.system(environment: [:], localtime: dir.appendingPathComponent("none").path), .utc)
        XCTAssertThrowsError(try ZoneRules.system(environment: ["TZ": "Nowhere/Land"]))
    }

    func testCalendarArithmetic() {
        XCTAssertNil(LocalDate(year: 2026, month: 2, day: 29))
        XCTAssertNotNil(LocalDate(year: 2028, month: 2, day: 29))
        XCTAssertNil(LocalDateTime(year: 2026, month: 2, day: 30, hour: 1, minute: 0))
        XCTAssertNil(LocalDateTime.secondOfDay(hour: 25, minute: 0, second: 0))
        let d = LocalDate(year: 2026, month: 3, day: 29)!
        XCTAssertEqual(d.weekday, .sun)
        XCTAssertEqual(LocalDate(daysSinceEpoch: d.daysSinceEpoch), d)
        XCTAssertEqual(d.adding(days: 3).description, "2026-04-01")
        XCTAssertEqual(ZoneRules.offsetText(-5 * 3600), "-05:00")
        XCTAssertEqual(ZoneRules.offsetText(37_800), "+10:30")
    }

    /// Any instant is read without trapping: the far future, and no instant at all.
    func testInstantsFarOffAreRead() throws {
        let paris = try ZoneRules.named("Europe/Paris", tzdir: tzdir)
        XCTAssertEqual(paris.local(.distantFuture).date.year, 4001)
        XCTAssertEqual(paris.local(Date(timeIntervalSince1970: .nan)).description, "1970-01-01 01:00:00 +01:00")
        XCTAssertEqual(paris.utcOffset(at: Date(timeIntervalSince1970: .infinity)), paris.utcOffset(at: Date(timeIntervalSince1970: 1e12)))
    }
}

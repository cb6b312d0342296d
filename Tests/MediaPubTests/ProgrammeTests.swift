import Foundation
import XCTest
@testable import MediaPub

/// The programme evaluator (docs/presets.md, Schedule): blocks laid out on the wall clock of
/// their zone, across daylight-saving nights, with their ends, the block on air and the next
/// ones. Pure: no media.
final class ProgrammeTests: XCTestCase {
    private func block(_ id: String, _ at: String, days: Set<Weekday> = Set(Weekday.allCases),
                       end: ScheduleBlock.End? = nil, overrun: ScheduleBlock.Overrun = .cut) -> ScheduleBlock {
        ScheduleBlock(id: id, at: try! ScheduleBlock.Start.parse(at).get(), days: days, end: end,
                      source: "/m/\(id).mp4", overrun: overrun)
    }

    private func programme(_ zone: String, _ blocks: [ScheduleBlock]) throws -> Programme {
        Programme(ScheduleConfig(timezone: zone, zone: try ZoneRules.named(zone, tzdir: "/usr/share/zoneinfo"), blocks: blocks))
    }

    private func instant(_ p: Programme, _ text: String) -> Date {
        guard case .once(let when) = try! ScheduleBlock.Start.parse(text).get() else { fatalError(text) }
        return p.zone.instant(when)
    }

    private func listing(_ entries: [ProgrammeEntry], _ p: Programme) -> [String] {
        entries.map { "\($0.startClock) \($0.occurrenceKey) until \(p.zone.local($0.end))" }
    }

    func testParisDaylightSavingNights() throws {
        let p = try programme("Europe/Paris", [block("night", "02:30"), block("morning", "07:00")])
        let spring = p.entries(from: instant(p, "2026-03-28 12:00"), to: instant(p, "2026-03-29 12:00"))
        XCTAssertEqual(listing(spring, p), [
            "2026-03-28 07:00:00 +01:00 morning@2026-03-28 until 2026-03-29 03:00:00 +02:00",
            "2026-03-29 03:00:00 +02:00 night@2026-03-29 until 2026-03-29 07:00:00 +02:00",
            "2026-03-29 07:00:00 +02:00 morning@2026-03-29 until 2026-03-30 02:30:00 +02:00",
        ])
        XCTAssertEqual(spring[1].start, Date(timeIntervalSince1970: 1_774_746_000))
        XCTAssertEqual(spring[1].local.description, "2026-03-29 02:30:00", "scheduled for 02:30, which the clocks skip")
        let autumn = p.entries(from: instant(p, "2026-10-25 00:00"), to: instant(p, "2026-10-25 08:00"))
        XCTAssertEqual(listing(autumn, p), [
            "2026-10-24 07:00:00 +02:00 morning@2026-10-24 until 2026-10-25 02:30:00 +02:00",
            "2026-10-25 02:30:00 +02:00 night@2026-10-25 until 2026-10-25 07:00:00 +01:00",
            "2026-10-25 07:00:00 +01:00 morning@2026-10-25 until 2026-10-26 02:30:00 +01:00",
        ])
        XCTAssertEqual(autumn[1].start, Date(timeIntervalSince1970: 1_792_888_200), "the first 02:30, once")
        XCTAssertEqual(autumn[1].end.timeIntervalSince(autumn[1].start), 5.5 * 3600, "the repeated hour is in the block")
    }

    func testEndsGapsAndOverrun() throws {
        let p = try programme("America/New_York", [
            block("late", "23:00", end: .until(secondOfDay: 3600)),               // past midnight
            block("long", "10:00", end: .duration(3 * 3600)),                     // past noon: cut
            block("noon", "12:00", end: .duration(600)),
            block("keep", "15:00", end: .until(secondOfDay: 17 * 3600), overrun: .finish),
            block("tea", "16:00"),
        ])
        let day = p.entries(from: instant(p, "2026-06-01 00:30"), to: instant(p, "2026-06-01 23:30"))
        XCTAssertEqual(listing(day, p), [
            "2026-05-31 23:00:00 -04:00 late@2026-05-31 until 2026-06-01 01:00:00 -04:00",
            "2026-06-01 10:00:00 -04:00 long@2026-06-01 until 2026-06-01 12:00:00 -04:00",
            "2026-06-01 12:00:00 -04:00 noon@2026-06-01 until 2026-06-01 12:10:00 -04:00",
            "2026-06-01 15:00:00 -04:00 keep@2026-06-01 until 2026-06-01 17:00:00 -04:00",
            "2026-06-01 16:00:00 -04:00 tea@2026-06-01 until 2026-06-01 23:00:00 -04:00",
            "2026-06-01 23:00:00 -04:00 late@2026-06-01 until 2026-06-02 01:00:00 -04:00",
        ])
        XCTAssertEqual(p.onAir(at: instant(p, "2026-06-01 00:59"))?.blockID, "late")
        XCTAssertNil(p.onAir(at: instant(p, "2026-06-01 01:00")), "filler until 10:00")
        XCTAssertNil(p.onAir(at: instant(p, "2026-06-01 12:10")), "filler after noon's 10 minutes")
        XCTAssertEqual(p.onAir(at: instant(p, "2026-06-01 16:30"))?.blockID, "tea", "the later start, where keep finishes")
        XCTAssertEqual(p.onAir(at: instant(p, "2026-06-01 11:59:59"))?.occurrenceKey, "long@2026-06-01")
        XCTAssertEqual(p.upcoming(after: instant(p, "2026-06-01 12:00"), count: 3).map(\.occurrenceKey),
                       ["keep@2026-06-01", "tea@2026-06-01", "late@2026-06-01"])
    }

    func testDaysAndDates() throws {
        let p = try programme("Australia/Lord_Howe", [
            block("weekday", "06:00", days: [.mon, .tue, .wed, .thu, .fri]),
            block("xmas", "2026-12-24 20:00"),
        ])
        let week = p.entries(from: instant(p, "2026-12-21 00:00"), to: instant(p, "2026-12-28 00:00"))
        XCTAssertEqual(week.map(\.occurrenceKey), ["weekday@2026-12-18", "weekday@2026-12-21", "weekday@2026-12-22",
                                                  "weekday@2026-12-23", "weekday@2026-12-24", "xmas@2026-12-24",
                                                  "weekday@2026-12-25"])
        XCTAssertEqual(week[5].startClock.description, "2026-12-24 20:00:00 +11:00")
        XCTAssertEqual(week.last?.end, instant(p, "2026-12-28 06:00"), "Friday's runs to Monday's")
        // A dated block alone: on air from its time until nothing ends it; nothing before.
        let once = try programme("UTC", [block("only", "2026-01-01 00:00")])
        XCTAssertNil(once.onAir(at: instant(once, "2025-12-31 23:59")))
        XCTAssertEqual(once.onAir(at: instant(once, "2026-06-01 00:00"))?.end, .distantFuture)
        XCTAssertEqual(once.upcoming(after: instant(once, "2020-01-01 00:00"), count: 3).map(\.blockID), ["only"])
    }

    /// A block that finishes its item keeps its own end, days after later starts: still listed.
    func testALongBlockThatFinishesIsFoundDaysLater() throws {
        let p = try programme("UTC", [block("weekly", "00:00", days: [.mon], end: .duration(60 * 3600), overrun: .finish),
                                      block("news", "12:00")])
        let wednesday = p.entries(from: instant(p, "2026-06-03 10:00"), to: instant(p, "2026-06-03 11:00"))
        XCTAssertEqual(listing(wednesday, p), [
            "2026-06-01 00:00:00 +00:00 weekly@2026-06-01 until 2026-06-03 12:00:00 +00:00",
            "2026-06-02 12:00:00 +00:00 news@2026-06-02 until 2026-06-03 12:00:00 +00:00",
        ])
        XCTAssertEqual(p.onAir(at: instant(p, "2026-06-03 10:00"))?.blockID, "news", "the later start")
    }

    func testAYearIsExpandedInOrder() throws {
        let p = try programme("Europe/Paris", [block("a", "00:00"), block("b", "08:00", days: [.sat, .sun]), block("c", "02:30")])
        let year = p.entries(from: instant(p, "2026-01-01 00:00"), to: instant(p, "2027-01-01 00:00"))
        XCTAssertEqual(year.count, 365 * 2 + 104)
        XCTAssertEqual(year.map(\.start), year.map(\.start).sorted())
        XCTAssertTrue(zip(year, year.dropFirst()).allSatisfy { $0.end == $1.start }, "back to back, no gap, no overlap")
    }
}

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

    /// A spring-forward gap that moves a block onto another's start: the block set for the later
    /// time plays (what is on air at that instant by the clock), whichever is written first; the
    /// listing shows that one alone, naming the other as not played, and the air agrees.
    func testABlockTheGapMovesOntoAnothersStartIsListedAsNotPlayed() throws {
        let p = try programme("Europe/Berlin", [block("three", "03:00"), block("night", "02:30"), block("day", "12:00")])
        let spring = p.entries(from: instant(p, "2027-03-28 01:00"), to: instant(p, "2027-03-28 06:00"))
        XCTAssertEqual(listing(spring, p), [
            "2027-03-27 12:00:00 +01:00 day@2027-03-27 until 2027-03-28 03:00:00 +02:00",
            "2027-03-28 03:00:00 +02:00 three@2027-03-28 until 2027-03-28 12:00:00 +02:00",
        ])
        XCTAssertEqual(spring.map(\.displaced), [[], ["night"]])
        XCTAssertEqual(p.onAir(at: instant(p, "2027-03-28 03:00"))?.blockID, "three")
        XCTAssertEqual(p.upcoming(after: instant(p, "2027-03-28 01:00"), count: 2).map(\.occurrenceKey),
                       ["three@2027-03-28", "day@2027-03-28"])
        let lines = ScheduleListing.lines(p, from: instant(p, "2027-03-28 01:59"), to: instant(p, "2027-03-28 04:00"))
        XCTAssertEqual(lines.last, "2027-03-28 03:00:00 +02:00  three     until 2027-03-28 12:00:00 +02:00  source: three.mp4 "
                       + "(night not played that night: the clocks skip its time onto this start)")
        // Any other night both play, each at its own time.
        XCTAssertEqual(p.entries(from: instant(p, "2027-03-29 02:00"), to: instant(p, "2027-03-29 04:00")).map(\.occurrenceKey),
                       ["day@2027-03-28", "night@2027-03-29", "three@2027-03-29"])
    }

    /// Every question is answered by searching the programme's starts: a block finishing its item
    /// over ten years adds its latest start alone, never one per day back to its beginning (before:
    /// 3,650 entries of it were in progress, found by laying out every block's starts for ten years).
    func testAFinishingBlockOfTenYearsAddsOneEntry() throws {
        var blocks = (0..<1000).map { i in block("b\(i)", LocalDateTime.clock(60 + i * 86), end: .duration(30)) }
        blocks.append(block("long", "00:00:30", end: .duration(MediaTime.maxDuration), overrun: .finish))
        let p = try programme("Europe/Berlin", blocks)
        let from = instant(p, "2027-03-28 00:00"), to = instant(p, "2027-03-28 01:00")
        let hour = p.entries(from: from, to: to)
        XCTAssertEqual(hour.filter { $0.start < from }.map(\.occurrenceKey), ["long@2027-03-27"], "in progress: its latest start alone")
        XCTAssertEqual(hour.filter { $0.start >= from }.count, 43, "long at 00:00:30 and b0...b41 (b41 at 00:59:46)")
        XCTAssertEqual(p.onAir(at: instant(p, "2027-03-28 00:00:50"))?.occurrenceKey, "long@2027-03-28")
        XCTAssertEqual(p.onAir(at: instant(p, "2027-03-28 00:01:05"))?.occurrenceKey, "b0@2027-03-28")
        XCTAssertEqual(p.onAir(at: instant(p, "2027-03-28 00:01:40"))?.occurrenceKey, "long@2027-03-28", "back to it after b0's 30 s")
    }

    /// The searches agree with every start laid out one by one, the slow way, on random programmes
    /// around the nights the clocks change (times in the gaps and the repeated hours, blocks that
    /// finish their item, dated blocks, two blocks at one wall time).
    func testTheSearchAgreesWithEveryStartLaidOut() throws {
        var rng = SplitMix64(state: 31)
        func draw(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
        let nights: [(String, String)] = [("Europe/Berlin", "2027-03-28"), ("Europe/Berlin", "2027-10-31"),
                                          ("America/New_York", "2027-03-14"), ("America/New_York", "2027-11-07"),
                                          ("Australia/Lord_Howe", "2027-04-04"), ("Australia/Lord_Howe", "2027-10-03")]
        var compared = 0
        for round in 0..<60 {
            let (zone, night) = nights[round % nights.count]
            guard case .once(let midnight) = try ScheduleBlock.Start.parse(night + " 00:00").get() else { return XCTFail(night) }
            let day0 = midnight.date
            let times = [0, 3600, 5400, 7200, 7500, 9000, 9900, 10800, 12600, 43200, 86399]
            var blocks = [block("all", LocalDateTime.clock(times[draw(times.count)]))]
            for i in 0..<(1 + draw(7)) {
                let second = draw(3) == 0 ? draw(86400) : times[draw(times.count)]
                let start: ScheduleBlock.Start = draw(4) == 0
                    ? .once(LocalDateTime(date: day0.adding(days: draw(5) - 2), secondOfDay: second)) : .daily(secondOfDay: second)
                let ends: [ScheduleBlock.End?] = [nil, .duration(Double(60 + draw(50 * 3600))), .until(secondOfDay: times[draw(times.count)])]
                let end = ends[draw(3)]
                let days = Set(Weekday.allCases.filter { _ in draw(3) > 0 })
                blocks.append(ScheduleBlock(id: "x\(i)", at: start, days: days.isEmpty ? [.mon] : days, end: end,
                                            source: "/m/x.mp4", overrun: draw(2) == 0 ? .cut : .finish))
            }
            let p = try programme(zone, blocks)
            let all = laidOut(p, days: day0.adding(days: -12)...day0.adding(days: 12))
            let first = p.zone.instant(LocalDateTime(date: day0.adding(days: -3), secondOfDay: 0))
            for _ in 0..<30 {
                let t = first.addingTimeInterval(Double(draw(6 * 86400)))
                let expected = all.last { $0.start <= t && t < $0.end }
                XCTAssertEqual(p.onAir(at: t).map(key), expected.map(key), "on air at \(p.zone.local(t)) in \(zone), round \(round)")
                XCTAssertEqual(p.upcoming(after: t, count: 3).map(key), all.filter { $0.start > t }.prefix(3).map(key))
                let to = t.addingTimeInterval(6 * 3600)
                XCTAssertEqual(p.entries(from: t, to: to).filter { $0.start > t }.map(key),
                               all.filter { $0.start > t && $0.start < to }.map(key))
                compared += 1
            }
        }
        print("ProgrammeTests: \(compared) instants compared with every start laid out")
    }

    private func key(_ e: ProgrammeEntry) -> String { "\(e.occurrenceKey) \(e.startClock) until \(e.end.timeIntervalSince1970)" }

    /// The entries of the local dates `days`, laid out one by one: every block's starts, in order of
    /// wall time then place; of those at one instant the last plays; each ends at its own end, cut
    /// at the next start unless it finishes its item, else at the next start.
    private func laidOut(_ p: Programme, days: ClosedRange<LocalDate>) -> [ProgrammeEntry] {
        var starts: [(index: Int, local: LocalDateTime)] = []
        var day = days.lowerBound
        while day <= days.upperBound {
            for (i, b) in p.config.blocks.enumerated() where b.plays(on: day) {
                starts.append((i, LocalDateTime(date: day, secondOfDay: b.secondOfDay)))
            }
            day = day.adding(days: 1)
        }
        starts.sort { ($0.local, $0.index) < ($1.local, $1.index) }
        let timed = starts.map { (index: $0.index, local: $0.local, start: p.zone.instant($0.local)) }
        let playing = timed.indices.filter { $0 + 1 == timed.count || timed[$0 + 1].start != timed[$0].start }.map { timed[$0] }
        return playing.indices.compactMap { n in
            let s = playing[n], b = p.config.blocks[s.index]
            let next = n + 1 < playing.count ? playing[n + 1].start : nil
            var own: Date?
            switch b.end {
            case .none: own = nil
            case .duration(let d): own = s.start.addingTimeInterval(d)
            case .until(let u):
                let endDay = u > s.local.secondOfDay ? s.local.date : s.local.date.adding(days: 1)
                own = p.zone.instant(LocalDateTime(date: endDay, secondOfDay: u))
            }
            let end: Date
            if let own { end = b.overrun == .cut ? min(own, next ?? own) : own } else { end = next ?? .distantFuture }
            guard end > s.start else { return nil }
            return ProgrammeEntry(block: b, blockIndex: s.index, start: s.start, end: end, local: s.local,
                                  startClock: p.zone.local(s.start), displaced: [])
        }
    }
}

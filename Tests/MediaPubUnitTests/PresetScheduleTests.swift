import Foundation
import XCTest
@testable import MediaPub
@testable import MediaPubTestSupport

/// `schedule:` in a preset or in a programme file of its own (docs/presets.md, Schedule):
/// what it reads, and every refusal with its `file:line: key`. Pure: no media.
final class PresetScheduleTests: XCTestCase {
    typealias K = PresetTestKit

    private let players = """
        video: {}
        players:
          - id: music
            source: m.mp3
            video: false
          - id: main
            source: v.mp4
            video: true

        """

    func testAProgrammeIsReadWithItsDefaults() throws {
        let p = try K.load(players + """
            schedule:
              timezone: Europe/Paris
              filler: { dir: /tmp, mode: shuffle }
              blocks:
                - id: morning
                  at: "07:00"
                  days: [mon-fri, sun]
                  until: "09:00:30"
                  playlist: { items: [a.mp4, b.mp4], mode: shuffle }
                  publish_volume: 80
                - id: news
                  at: "12:00:15"
                  duration: 10m
                  source: news.mp4
                  overrun: finish
                - id: christmas
                  at: "2026-12-24 20:00"
                  playlist: [c.mp4]
            """.replacingOccurrences(of: "dir: /tmp, ", with: "items: [f.mp4], "))
        let s = try XCTUnwrap(p.schedule)
        XCTAssertEqual(s.player, "main", "the video player, when none is named")
        XCTAssertEqual(s.zone.name, "Europe/Paris")
        XCTAssertEqual(s.filler, PlaylistConfig(items: ["/srv/mp/f.mp4"], mode: .shuffle))
        XCTAssertEqual(s.blocks.map(\.id), ["morning", "news", "christmas"])
        XCTAssertEqual(s.blocks[0].at, .daily(secondOfDay: 7 * 3600))
        XCTAssertEqual(s.blocks[0].days, [.mon, .tue, .wed, .thu, .fri, .sun])
        XCTAssertEqual(s.blocks[0].end, .until(secondOfDay: 9 * 3600 + 30))
        XCTAssertEqual(s.blocks[0].playlist, PlaylistConfig(items: ["/srv/mp/a.mp4", "/srv/mp/b.mp4"], mode: .shuffle))
        XCTAssertEqual(s.blocks[0].publishVolume, 80)
        XCTAssertNil(s.blocks[0].playVolume)
        XCTAssertEqual(s.blocks[0].overrun, .cut)
        XCTAssertEqual(s.blocks[1].end, .duration(600))
        XCTAssertEqual(s.blocks[1].source, "/srv/mp/news.mp4")
        XCTAssertEqual(s.blocks[1].overrun, .finish)
        XCTAssertEqual(s.blocks[2].at, .once(LocalDateTime(year: 2026, month: 12, day: 24, hour: 20, minute: 0)!))
        XCTAssertEqual(s.blocks[2].days.count, 7)
        // Written back and read again, the same programme.
        XCTAssertEqual(try K.load(p.resolvedYAML(maskSecrets: false)), p)
        // Without a video player: the first.
        let audio = try K.load("players:\n  - id: a\n    source: a.mp3\nschedule:\n  blocks:\n    - {id: x, at: \"01:00\", source: a.mp3}\n")
        XCTAssertEqual(audio.schedule?.player, "a")
        XCTAssertEqual(audio.schedule?.timezone, nil)
    }

    /// One `file:line: key` each for what `validate` refuses.
    func testRefusalsNameTheirLineAndKey() {
        let cases: [(String, Int, String, String)] = [
            ("  bogus: 1\n  blocks:\n    - {id: a, at: \"01:00\", source: a.mp3}", 10, "schedule.bogus", "unknown key"),
            ("  player: nobody\n  blocks:\n    - {id: a, at: \"01:00\", source: a.mp3}", 10, "schedule.player", "unknown player \"nobody\" (players: music, main)"),
            ("  timezone: Mars/Olympus\n  blocks:\n    - {id: a, at: \"01:00\", source: a.mp3}", 10, "schedule.timezone", "unknown time zone \"Mars/Olympus\""),
            ("  blocks:\n    - {id: a, at: \"25:00\", source: a.mp3}", 11, "schedule.blocks[0].at", "\"25:00\" is not a time of day"),
            ("  blocks:\n    - {id: a, at: \"2026-02-30 10:00\", source: a.mp3}", 11, "schedule.blocks[0].at", "there is no 2026-02-30"),
            ("  blocks:\n    - {id: a, at: \"2026-02-28 10:00\", days: mon, source: a.mp3}", 11, "schedule.blocks[0].days", "days is only for"),
            ("  blocks:\n    - {id: a, at: \"10:00\", days: [mon-fry], source: a.mp3}", 11, "schedule.blocks[0].days", "\"mon-fry\" is not a day"),
            ("  blocks:\n    - {id: a, at: \"10:00\", until: \"11:00\", duration: 1h, source: a.mp3}", 11, "schedule.blocks[0].duration", "until and duration are exclusive"),
            ("  blocks:\n    - {id: a, at: \"10:00\", until: \"24:00\", source: a.mp3}", 11, "schedule.blocks[0].until", "not a time of day"),
            ("  blocks:\n    - {id: a, at: \"10:00\"}", 11, "schedule.blocks[0]", "needs a source or a playlist"),
            ("  blocks:\n    - {id: a, at: \"10:00\", source: a.mp3}\n    - {id: a, at: \"11:00\", source: a.mp3}", 12, "schedule.blocks[1].id", "duplicate block id \"a\" (also schedule.blocks[0])"),
            ("  blocks:\n    - {id: a, at: \"10:00\", days: mon-wed, source: a.mp3}\n    - {id: b, at: \"10:00:00\", days: [wed, sat], source: a.mp3}", 12, "schedule.blocks[1].at", "same time as \"a\" (schedule.blocks[0]) at 10:00:00 on wed"),
            ("  blocks:\n    - {id: a, at: \"10:00\", days: sat-sun, source: a.mp3}\n    - {id: b, at: \"2026-12-26 10:00\", source: a.mp3}", 12, "schedule.blocks[1].at", "on 2026-12-26 10:00:00"),
            ("  blocks:\n    - {id: a, at: \"2026-12-26 10:00\", source: a.mp3}\n    - {id: b, at: \"2026-12-26 10:00\", source: a.mp3}", 12, "schedule.blocks[1].at", "same time as \"a\""),
            ("  blocks: []", 10, "schedule.blocks", "needs a list of blocks"),
            ("  blocks:\n    - {at: \"10:00\", source: a.mp3}", 11, "schedule.blocks[0].id", "needs an id"),
        ]
        for (body, line, key, message) in cases {
            let probs = K.problems(players + "schedule:\n" + body + "\n")
            XCTAssertEqual(probs.map(\.key), [key], body)
            XCTAssertEqual(probs.first?.line, line, body)
            XCTAssertTrue(probs.first?.message.contains(message) == true, "\(probs.first?.message ?? "") lacks \(message)")
        }
        // Not overlaps: other days, another date's weekday, other times.
        for body in ["  blocks:\n    - {id: a, at: \"10:00\", days: mon-wed, source: a.mp3}\n    - {id: b, at: \"10:00\", days: [thu], source: a.mp3}",
                     "  blocks:\n    - {id: a, at: \"10:00\", days: sat-sun, source: a.mp3}\n    - {id: b, at: \"2026-12-24 10:00\", source: a.mp3}",
                     "  blocks:\n    - {id: a, at: \"10:00\", source: a.mp3}\n    - {id: b, at: \"10:00:01\", source: a.mp3}"] {
            XCTAssertNoThrow(try K.load(players + "schedule:\n" + body + "\n"), body)
        }
    }

    func testAProgrammeFileIsReadRelativeToThePreset() throws {
        let dir = try K.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/shows", withIntermediateDirectories: true)
        K.touch(dir + "/shows/programme.yaml", "timezone: America/New_York\nblocks:\n  - id: a\n    at: \"06:00\"\n    source: a.mp3\n")
        let p = try K.load(players + "schedule: { file: shows/programme.yaml }\n", base: dir)
        let s = try XCTUnwrap(p.schedule)
        XCTAssertEqual(s.file, dir + "/shows/programme.yaml")
        XCTAssertEqual(s.zone.name, "America/New_York")
        XCTAssertEqual(s.player, "main")
        XCTAssertEqual(s.blocks.first?.source, dir + "/a.mp3", "relative to the preset's folder")
        XCTAssertEqual(try K.load(p.resolvedYAML(maskSecrets: false), base: dir), p)
        XCTAssertTrue(p.resolvedYAML().contains("schedule:\n  file: \(dir)/shows/programme.yaml\n"), p.resolvedYAML())

        // The same file alone, as a reload reads it.
        let alone = try ScheduleConfig.load(file: dir + "/shows/programme.yaml", for: p)
        XCTAssertEqual(alone, s)

        // A broken file: its own name and line, nothing of it taken.
        K.touch(dir + "/shows/programme.yaml", "blocks:\n  - id: a\n    at: \"06:00\"\n    source: a.mp3\n  - id: b\n    at: \"25:00\"\n    source: a.mp3\n")
        XCTAssertThrowsError(try ScheduleConfig.load(file: dir + "/shows/programme.yaml", for: p)) { e in
            XCTAssertEqual((e as? PresetError)?.description,
                           "\(dir)/shows/programme.yaml:6: blocks[1].at: \"25:00\" is not a time of day (HH:MM or HH:MM:SS, from 00:00 to 23:59:59)")
        }
        let viaPreset = K.problems(players + "schedule: { file: shows/programme.yaml }\n", base: dir)
        XCTAssertEqual(viaPreset.map(\.description), ["\(dir)/shows/programme.yaml:6: blocks[1].at: \"25:00\" is not a time of day (HH:MM or HH:MM:SS, from 00:00 to 23:59:59)"])
        K.touch(dir + "/shows/programme.yaml", "player: nobody\nblocks: [{id: a, at: \"06:00\", source: a.mp3}]\n")
        XCTAssertThrowsError(try ScheduleConfig.load(file: dir + "/shows/programme.yaml", for: p)) { e in
            XCTAssertEqual((e as? PresetError)?.problems.map(\.key), ["player"])
        }
        K.touch(dir + "/shows/programme.yaml", "blocks: [{id: a, at: \"06:00\", source: a.mp3}\n")
        XCTAssertEqual((try? ScheduleConfig.load(file: dir + "/shows/programme.yaml", for: p)), nil)

        // A file and keys beside it; a file that names another; a file not there.
        K.touch(dir + "/shows/programme.yaml", "blocks: [{id: a, at: \"06:00\", source: a.mp3}]\n")
        XCTAssertEqual(K.problems(players + "schedule: { file: shows/programme.yaml, timezone: UTC }\n", base: dir).map(\.key),
                       ["schedule.timezone"])
        K.touch(dir + "/shows/programme.yaml", "file: other.yaml\nblocks: [{id: a, at: \"06:00\", source: a.mp3}]\n")
        XCTAssertEqual(K.problems(players + "schedule: { file: shows/programme.yaml }\n", base: dir).map(\.description),
                       ["\(dir)/shows/programme.yaml:1: file: a programme file cannot name another"])
        XCTAssertEqual(K.problems(players + "schedule: { file: none.yaml }\n", base: dir).map(\.description),
                       ["presets/t.yaml:9: schedule.file: cannot find \(dir)/none.yaml"])
    }

    /// `validate` looks for a block's local media as for a player's: a missing source is an
    /// error, a missing playlist item (or filler item) a warning.
    func testValidateLooksForABlocksMedia() throws {
        let dir = try K.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        K.touch(dir + "/here.mp4")
        let file = dir + "/p.yaml"
        K.touch(file, "players:\n  - source: here.mp4\nschedule:\n  filler: [gone-f.mp4, here.mp4]\n  blocks:\n"
                + "    - {id: a, at: \"01:00\", source: gone.mp4}\n    - {id: b, at: \"02:00\", playlist: [here.mp4, gone-b.mp4]}\n")
        XCTAssertThrowsError(try PresetLoader.validate(file: file, environment: [:])) { e in
            XCTAssertEqual((e as? PresetError)?.problems.map(\.description), ["\(file):6: schedule.blocks[0].source: cannot find \(dir)/gone.mp4"])
        }
        K.touch(file, "players:\n  - source: here.mp4\nschedule:\n  filler: [gone-f.mp4, here.mp4]\n  blocks:\n"
                + "    - {id: b, at: \"02:00\", playlist: [here.mp4, gone-b.mp4]}\n")
        let (preset, warnings) = try PresetLoader.validate(file: file, environment: [:])
        XCTAssertEqual(preset.schedule?.blocks.count, 1)
        XCTAssertEqual(warnings.map(\.key), ["schedule.filler[0]", "schedule.blocks[0].playlist[1]"])
        XCTAssertNoThrow(try PresetLoader.load(file: file, environment: [:]), "a run does not look")
    }

    /// A file named by many blocks is read once (10,000 blocks naming one file: 19.6 s of
    /// validate before, 1.8 s after, debug build), and every block naming a playlist file as
    /// its source is still refused at its own line.
    func testAFileManyBlocksNameIsCheckedForEachOfThem() throws {
        let dir = try K.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        K.touch(dir + "/here.mp4")
        K.touch(dir + "/list.mp4", "#EXTM3U\nhere.mp4\n")
        let file = dir + "/p.yaml"
        K.touch(file, "players:\n  - source: here.mp4\nschedule:\n  blocks:\n"
                + (0..<4).map { "    - {id: b\($0), at: \"0\($0):00\", source: \($0 % 2 == 0 ? "list" : "here").mp4}\n" }.joined())
        XCTAssertThrowsError(try PresetLoader.validate(file: file, environment: [:])) { e in
            let problems = (e as? PresetError)?.problems ?? []
            XCTAssertEqual(problems.map(\.key), ["schedule.blocks[0].source", "schedule.blocks[2].source"])
            XCTAssertEqual(problems.map(\.line), [5, 7])
            XCTAssertTrue(problems.allSatisfy { $0.message.contains("playlist") }, "\(problems)")
        }
    }

    func testDaysAndTimesAsWritten() {
        XCTAssertEqual(try ScheduleBlock.days(["sat-mon"]).get(), [.sat, .sun, .mon])
        XCTAssertEqual(try ScheduleBlock.days(["mon, wed", "fri"]).get(), [.mon, .wed, .fri])
        XCTAssertEqual(ScheduleBlock.daysText([.mon, .tue, .wed, .fri, .sat]), "mon-wed, fri, sat")
        XCTAssertEqual(ScheduleBlock.clock("7:05"), 7 * 3600 + 300)
        XCTAssertNil(ScheduleBlock.clock("07:5"))
        XCTAssertNil(ScheduleBlock.clock("12:60"))
        XCTAssertNil(ScheduleBlock.clock("24:00"))
        XCTAssertEqual(try ScheduleBlock.Start.parse("2028-02-29 23:59:59").get().text, "2028-02-29 23:59:59")
    }
}

// `mediapub schedule FILE [--from …] [--hours N]` and `validate` on a programme
// (docs/presets.md, Schedule; docs/exit-codes.md): the listing as printed, and the
// refusals with their file:line: key, exit 2.

import Foundation
import XCTest

final class ScheduleCLITests: XCTestCase {
    private let programme = """
        timezone: Europe/Paris
        filler: { items: [filler.mp4] }
        blocks:
          - id: night
            at: "02:30"
            duration: 1h
            source: news.mp4
          - id: morning
            at: "07:00"
            until: "09:00"
            playlist: { items: [a.mp4, b.mp4], mode: shuffle }

        """

    private func folder() throws -> URL {
        let dir = try makeTempDir()
        for name in ["filler.mp4", "news.mp4", "a.mp4", "b.mp4"] { _ = try writeFile(dir, name, "") }
        return dir
    }

    func testTheProgrammeIsListedWithEachStartsOffset() throws {
        let dir = try folder()
        let file = try writeFile(dir, "programme.yaml", programme)
        let r = try CLI.run(["schedule", file.path, "--from", "2026-03-29 00:00", "--hours", "10"], timeout: 30)
        XCTAssertEqual(r.status, 0, r.summary("mediapub schedule"))
        XCTAssertEqual(r.stdout, """
            # Europe/Paris, 10h from 2026-03-29 00:00:00 +01:00
            2026-03-29 00:00:00 +01:00  (filler)  until 2026-03-29 03:00:00 +02:00  filler: 1 item, loop: filler.mp4
            2026-03-29 03:00:00 +02:00  night     until 2026-03-29 04:00:00 +02:00  source: news.mp4 (set for 02:30:00, which the clocks skip that night)
            2026-03-29 04:00:00 +02:00  (filler)  until 2026-03-29 07:00:00 +02:00  filler: 1 item, loop: filler.mp4
            2026-03-29 07:00:00 +02:00  morning   until 2026-03-29 09:00:00 +02:00  playlist: 2 items, shuffle: a.mp4, b.mp4
            2026-03-29 09:00:00 +02:00  (filler)  until 2026-03-29 11:00:00 +02:00  filler: 1 item, loop: filler.mp4

            """)
        // The same programme in a preset, on its folder; a bad --from is a usage error.
        let preset = try writeFile(dir, "p.yaml", "players:\n  - source: a.mp4\nschedule: { file: programme.yaml }\n")
        let viaPreset = try CLI.run(["schedule", preset.path, "--from", "2026-10-25 02:00", "--hours", "1"], timeout: 30)
        XCTAssertEqual(viaPreset.status, 0, viaPreset.summary("mediapub schedule (preset)"))
        XCTAssertTrue(viaPreset.stdout.contains("2026-10-25 02:30:00 +02:00  night     until 2026-10-25 02:30:00 +01:00"), viaPreset.stdout)
        let bad = try CLI.run(["schedule", file.path, "--from", "tomorrow"], timeout: 30)
        XCTAssertEqual(bad.status, 2, bad.summary("bad --from"))
        XCTAssertTrue(bad.stderr.contains("--from \"tomorrow\": expected a date and time in Europe/Paris"), bad.stderr)
        let set = try CLI.run(["schedule", file.path, "--set", "timezone=UTC"], timeout: 30)
        XCTAssertEqual(set.status, 2, set.summary("--set on a programme file"))
        XCTAssertTrue(set.stderr.contains("--set:0: timezone: --set changes a preset; \(file.path) is a programme file"), set.stderr)
        // A preset without a programme: named at the line its settings begin (before: line 0).
        let none = try writeFile(dir, "none.yaml", "# no programme here\n\nname: none\nplayers:\n  - source: a.mp4\n")
        let empty = try CLI.run(["schedule", none.path], timeout: 30)
        XCTAssertEqual(empty.status, 2, empty.summary("a preset without schedule:"))
        XCTAssertEqual(empty.stderr, "mediapub: \(none.path):3: schedule: the preset has no schedule: section "
            + "(nothing to list; docs/presets.md, Schedule)\n")
    }

    func testValidateRefusesAnOverlapAndAnImpossibleTime() throws {
        let dir = try folder()
        let preset = try writeFile(dir, "p.yaml", """
            players:
              - source: a.mp4
            schedule:
              blocks:
                - {id: a, at: "10:00", days: mon-fri, source: a.mp4}
                - {id: b, at: "10:00", days: [fri, sat], source: b.mp4}
                - {id: c, at: "25:00", source: b.mp4}

            """)
        let r = try CLI.run(["validate", preset.path], timeout: 30)
        XCTAssertEqual(r.status, 2, r.summary("validate"))
        XCTAssertEqual(r.stderr.split(separator: "\n").map(String.init), [
            "mediapub: \(preset.path):6: schedule.blocks[1].at: starts at the same time as \"a\" (schedule.blocks[0]) at 10:00:00 on fri; give one of them another time",
            "mediapub: \(preset.path):7: schedule.blocks[2].at: \"25:00\" is not a time of day (HH:MM or HH:MM:SS, from 00:00 to 23:59:59)",
        ])
        // `schedule` refuses the same programme the same way.
        let listed = try CLI.run(["schedule", preset.path], timeout: 30)
        XCTAssertEqual(listed.status, 2, listed.summary("schedule"))
        XCTAssertEqual(listed.stderr, r.stderr)
    }

    /// A programme's player needs no source of its own; a block in a programme file
    /// (as in a preset) always does.
    func testTheProgrammesPlayerNeedsNoSourceButABlockInAProgrammeFileDoes() throws {
        let dir = try folder()
        let preset = try writeFile(dir, "p.yaml", """
            players:
              - id: main
            outputs: [out.mp4]
            schedule: { file: prog.yaml }

            """)
        _ = try writeFile(dir, "prog.yaml", "blocks:\n  - {id: a, at: \"10:00\", source: a.mp4}\n")
        let good = try CLI.run(["validate", preset.path], timeout: 30)
        XCTAssertEqual(good.status, 0, good.summary("validate"))
        let file = try writeFile(dir, "prog.yaml", "blocks:\n  - {id: a, at: \"10:00\"}\n")
        for args in [["validate", preset.path], ["schedule", file.path]] {
            let r = try CLI.run(args, timeout: 30)
            XCTAssertEqual(r.status, 2, r.summary(args[0]))
            XCTAssertTrue(r.stderr.contains("prog.yaml:2: blocks[0]: needs a source or a playlist"), r.summary(args[0]))
        }
    }

    /// A run with a programme keeps wall-clock time by default, even with only a file output.
    func testARunWithAProgrammeIsRealtimeUnlessToldOtherwise() throws {
        let dir = try makeTempDir()
        let preset = try writeFile(dir, "p.yaml", """
            players:
              - id: main
                source: "testsrc:"
            outputs: [out.mp4]
            schedule:
              filler: ["testsrc:"]
              blocks:
                - {id: a, at: "2026-12-24 10:00", source: "testsrc:"}

            """)
        let r = try CLI.run(["--preset", preset.path, "--duration", "1s"], timeout: 60)
        XCTAssertEqual(r.status, 0, r.summary("run"))
        XCTAssertTrue(r.stderr.contains("running p: realtime for 1s"), r.stderr)
        let fast = try CLI.run(["--preset", preset.path, "--duration", "1s", "--no-realtime"], timeout: 60)
        XCTAssertTrue(fast.stderr.contains("running p: as fast as possible for 1s"), fast.stderr)
    }
}

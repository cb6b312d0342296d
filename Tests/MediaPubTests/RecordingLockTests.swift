// Which files `keep` and `max_age` may remove (docs/presets.md, Outputs): only the
// names this output's pattern makes, field for field, and never a file being written,
// whoever writes it (a recording holds an flock on its file while it writes it).
// Plain, fast: no pipelines.

import Foundation
import XCTest
@testable import MediaPub

final class RecordingLockTests: XCTestCase {

    /// Each strftime field is exactly what strftime writes for it: `%k` a space, 1 or 2
    /// and a digit, never `important` (before: any unknown field was any text).
    func testFieldsMatchExactlyWhatTheyWrite() {
        let k = "cam-%k.mp4"
        for name in ["cam- 9.mp4", "cam-17.mp4", "cam-23-2.mp4", "cam- 0-999.mp4"] {
            XCTAssertTrue(RecordingRetention.matches(name, pattern: k), name)
        }
        for name in ["cam-important.mp4", "cam-notes.mp4", "cam-9.mp4", "cam-123.mp4", "cam-39.mp4", "cam-17-0.mp4",
                     "cam-17-.mp4", "cam-17-x.mp4", "cam-17.mkv", "cam-1 .mp4"] {
            XCTAssertFalse(RecordingRetention.matches(name, pattern: k), name)
        }
        let day = "show-%Y%m%d-%H%M%S.ts"
        XCTAssertTrue(RecordingRetention.matches("show-20261202-235960.ts", pattern: day))
        for name in ["show-2026122-235960.ts", "show-20262102-000000.ts", "show-20261202-300000.ts", "show-20261202-236000.ts"] {
            XCTAssertFalse(RecordingRetention.matches(name, pattern: day), name)
        }
        XCTAssertTrue(RecordingRetention.matches("a-2026-12-02T10:11:12+0100.mkv", pattern: "a-%FT%T%z.mkv"))
        XCTAssertTrue(RecordingRetention.matches("100%.mp4", pattern: "100%%.mp4"))
        XCTAssertFalse(RecordingRetention.matches("100x.mp4", pattern: "100%%.mp4"))
        // What the pattern itself makes, at any moment, it matches.
        for hour in 0..<24 {
            let date = Calendar.current.date(bySettingHour: hour, minute: 7, second: 9, of: Date()) ?? Date()
            for pattern in [k, day, "r-%e.%j.%I%l%u%w%U%W%V%G%g%C%y.flv"] {
                let name = OutputTarget.expand(pattern, at: date)
                XCTAssertTrue(RecordingRetention.matches(name, pattern: pattern), "\(pattern): \(name)")
                XCTAssertTrue(RecordingRetention.matches(RecordingFile.numbered(name, 12), pattern: pattern), "\(pattern): \(name)")
            }
        }
    }

    /// The lock a recording holds: others see its file held (retention leaves it), and
    /// its descriptor goes when it is released, however many files a run makes.
    func testARecordingHoldsItsFileLockedUntilReleasedAndLeaksNoDescriptor() throws {
        let dir = try makeTempDir()
        // The test process's descriptors on files of `dir` (others come and go with other threads).
        func descriptors() throws -> Int {
            try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
                .compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
                .filter { $0.hasPrefix(dir.path + "/") }.count
        }
        let file = try RecordingFile.create(dir.appendingPathComponent("rec.mp4").path)
        XCTAssertTrue(RecordingLock.isHeld(file.path))
        XCTAssertEqual(RecordingLock.remove(file.path), .held)
        XCTAssertTrue(file.isStillThere)
        file.lock.release()
        XCTAssertFalse(RecordingLock.isHeld(file.path))
        XCTAssertEqual(RecordingLock.remove(file.path), .removed)
        XCTAssertFalse(file.isStillThere)

        let before = try descriptors()
        XCTAssertEqual(before, 0)
        for i in 0..<300 {
            let made = try RecordingFile.create(dir.appendingPathComponent("seg-\(i % 7).mp4").path)
            XCTAssertTrue(RecordingLock.isHeld(made.path))
            XCTAssertEqual(try descriptors(), 1, "the lock's own descriptor")
            made.lock.release()
            made.lock.release()   // once only: a second release closes nobody else's descriptor
        }
        XCTAssertEqual(try descriptors(), before, "every file's descriptor closed")
    }

    /// Retention run 1,000 times over a folder planted with names that look like the
    /// output's, links to files and folders, a FIFO, a folder, another pattern's files
    /// and a file another run writes (locked here): only this output's unlocked files
    /// beyond `keep` ever go.
    func testRetentionRemovesOnlyThisOutputsUnlockedFilesBeyondKeep() throws {
        let dir = try makeTempDir()
        let folder = dir.appendingPathComponent("rec")
        let elsewhere = dir.appendingPathComponent("elsewhere")
        let fm = FileManager.default
        try fm.createDirectory(at: folder, withIntermediateDirectories: true)
        try fm.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let old = Date().addingTimeInterval(-86400)
        func plant(_ path: URL, age: Date = old) throws {
            try Data("keep me".utf8).write(to: path)
            try fm.setAttributes([.modificationDate: age], ofItemAtPath: path.path)
        }
        let lookAlikes = ["rec-12345.mp4", "rec-1234567.mp4", "rec-12a456.mp4", "rec-123456.mkv", "rec-123456.mp4.part",
                          "xrec-123456.mp4", "rec-123456-0.mp4", "rec-123456-.mp4", "rec-notes.mp4", "rec-306060.mp4",
                          "other-123456.mp4", "other-123456-1.mp4", "rec-%H%M%S.mp4", "rec-123456.MP4"]
        for name in lookAlikes { try plant(folder.appendingPathComponent(name)) }
        try plant(elsewhere.appendingPathComponent("rec-000001.mp4"))
        try fm.createSymbolicLink(atPath: folder.appendingPathComponent("rec-000001.mp4").path,
                                  withDestinationPath: elsewhere.appendingPathComponent("rec-000001.mp4").path)
        try fm.createSymbolicLink(atPath: folder.appendingPathComponent("rec-000002.mp4").path, withDestinationPath: elsewhere.path)
        XCTAssertEqual(mkfifo(folder.appendingPathComponent("rec-000003.mp4").path, 0o644), 0)
        try fm.createDirectory(at: folder.appendingPathComponent("rec-000004.mp4"), withIntermediateDirectories: true)
        try plant(folder.appendingPathComponent("rec-000004.mp4/rec-000004.mp4"))
        // Another run's file, being written: the oldest of the pattern's, and locked.
        let live = folder.appendingPathComponent("rec-000005.mp4")
        try plant(live, age: old.addingTimeInterval(-3600))
        let liveFD = open(live.path, O_WRONLY | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(liveFD, 0)
        defer { close(liveFD) }
        XCTAssertEqual(flock(liveFD, LOCK_EX | LOCK_NB), 0)
        // An earlier run's finished file: this output's, and beyond keep at once.
        try plant(folder.appendingPathComponent("rec-000006.mp4"), age: old.addingTimeInterval(-60))
        let planted = Set(try fm.contentsOfDirectory(atPath: folder.path)).subtracting(["rec-000006.mp4"])

        let pattern = folder.path + "/rec-%H%M%S.mp4"
        let retention = RecordingRetention(keep: 2, maxAge: nil)
        var clock = 10 * 3600
        for round in 0..<1000 {
            // This round's files are this run's; earlier rounds' count as earlier runs' (by age).
            var thisRun: [String] = []
            var made: [String] = []
            for _ in 0..<3 {
                clock += 1
                let name = String(format: "rec-%02d%02d%02d.mp4", clock / 3600 % 24, clock / 60 % 60, clock % 60)
                let file = try RecordingFile.create(folder.appendingPathComponent(name).path)
                XCTAssertEqual(file.path, folder.appendingPathComponent(name).path)
                try fm.setAttributes([.modificationDate: Date(timeIntervalSince1970: Double(1_000_000 + clock))], ofItemAtPath: file.path)
                file.lock.release()   // finished, but the last
                thisRun.append(file.path)
                made.append(name)
            }
            let current = thisRun.last
            let failures = retention.apply(pattern: pattern, thisRun: thisRun, current: current)
            XCTAssertTrue(failures.isEmpty, "\(failures)")
            let onDisk = Set(try fm.contentsOfDirectory(atPath: folder.path))
            let expected = planted.union(made.suffix(2))
            if onDisk != expected {
                XCTFail("round \(round): removed \(expected.subtracting(onDisk).sorted()), left \(onDisk.subtracting(expected).sorted())")
                break
            }
        }
        var info = stat()
        XCTAssertEqual(lstat(folder.appendingPathComponent("rec-000003.mp4").path, &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFIFO, "the FIFO is still there")
        XCTAssertTrue(fm.fileExists(atPath: elsewhere.appendingPathComponent("rec-000001.mp4").path), "a link is never followed")
        XCTAssertTrue(fm.fileExists(atPath: folder.appendingPathComponent("rec-000004.mp4/rec-000004.mp4").path))
        for name in lookAlikes {
            XCTAssertEqual(try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8), "keep me", name)
        }
    }
}

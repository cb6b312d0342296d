// `segment`, `keep`, `max_age` of a file output (docs/presets.md, Outputs): how the preset checks
// them, and which files retention picks. Plain, fast: no pipelines.

import Foundation
import XCTest
@testable import MediaPub
@testable import MediaPubTestSupport

final class RecordingRetentionTests: XCTestCase {
    private typealias K = PresetTestKit
    private let players = "players:\n  - source: \"testsrc:\"\n"

    func testSegmentKeepAndMaxAgeAreReadOnFileOutputs() throws {
        let p = try K.load(players + "outputs:\n  - url: /rec/a-%Y%m%d-%H.mp4\n    segment: 1h\n    keep: 3\n    max_age: 7d\n")
        XCTAssertEqual(p.outputs[0].segment, 3600)
        XCTAssertEqual(p.outputs[0].keep, 3)
        XCTAssertEqual(p.outputs[0].maxAge, 7 * 86400)
        XCTAssertNil(try K.load(players + "outputs:\n  - /rec/a.mp4\n").outputs[0].segment)
    }

    func testTheyAreRefusedOffFileOutputsAndOutOfRange() {
        for key in ["segment: 5s", "keep: 2", "max_age: 1d"] {
            let problems = K.problems(players + "outputs:\n  - url: rtmp://h/app/k\n    \(key)\n")
            let name = String(key.prefix { $0 != ":" })
            XCTAssertEqual(problems.map(\.key), ["outputs[0].\(name)"], "\(problems)")
            XCTAssertTrue(problems.first?.message.contains("\(name) is only for file outputs") == true, "\(problems)")
        }
        // A second FLV file of a cut recording stayed empty (splitmuxsink cannot make flvmux's
        // pads again): refused, naming the key.
        let flv = K.problems(players + "outputs:\n  - url: /rec/a-%H%M%S.flv\n    segment: 5s\n")
        XCTAssertEqual(flv.map(\.description), ["presets/t.yaml:5: outputs[0].segment: .flv files are not cut into segments: "
            + "use .mkv, .ts or .mp4"])
        for (key, value) in [("segment", "500ms"), ("keep", "0"), ("max_age", "0s")] {
            let problems = K.problems(players + "outputs:\n  - url: /rec/a.mp4\n    \(key): \(value)\n")
            XCTAssertEqual(problems.map(\.key), ["outputs[0].\(key)"], "\(problems)")
        }
    }

    func testOnlyNamesThePatternMakes() {
        let pattern = "cam-%Y%m%d-%H%M%S.mp4"
        for name in ["cam-20260101-101010.mp4", "cam-20260101-101010-3.mp4"] {
            XCTAssertTrue(RecordingRetention.matches(name, pattern: pattern), name)
        }
        for name in ["cam-20260101-101010.mkv", "cam-2026-101010.mp4", "other-20260101-101010.mp4",
                     "cam-20260101-101010.mp4.part", "xcam-20260101-101010.mp4", "cam-notes.mp4"] {
            XCTAssertFalse(RecordingRetention.matches(name, pattern: pattern), name)
        }
        XCTAssertTrue(RecordingRetention.matches("rec-12.mp4", pattern: "rec.mp4"))
        XCTAssertFalse(RecordingRetention.matches("rec2.mp4", pattern: "rec.mp4"))
        XCTAssertTrue(RecordingRetention.matches("a.b-1700000000.ts", pattern: "a.b-%s.ts"))
        XCTAssertFalse(RecordingRetention.matches("aXb-1700000000.ts", pattern: "a.b-%s.ts"))
    }

    func testKeepAndMaxAgePickTheOldestAndNeverTheCurrentFile() {
        let now = Date(timeIntervalSince1970: 1_000_000)
        func file(_ name: String, _ age: TimeInterval) -> RecordingRetention.Candidate {
            .init(name: name, modified: now.addingTimeInterval(-age))
        }
        // Earlier runs by age; this run's files newer than all of them, in the order made
        // (a file being finished can be written after the next one began).
        let files = [file("old", 300), file("older", 400), file("run1", 1), file("run2", 2), file("run3", 0)]
        let keep = RecordingRetention(keep: 2, maxAge: nil)
        XCTAssertEqual(keep.victims(files, thisRun: ["run1", "run2", "run3"], current: "run3", now: now), ["older", "old", "run1"])
        let age = RecordingRetention(keep: nil, maxAge: 350)
        XCTAssertEqual(age.victims(files, thisRun: ["run1", "run2", "run3"], current: "run3", now: now), ["older"])
        let both = RecordingRetention(keep: 1, maxAge: 350)
        XCTAssertEqual(both.victims(files, thisRun: ["run1"], current: "run1", now: now), ["older", "old", "run2", "run3"])
        XCTAssertEqual(RecordingRetention(keep: 1, maxAge: 1).victims([file("cur", 900)], thisRun: [], current: "cur", now: now), [])
        // cam-%H.mp4 cut every 5 s: cam, cam-1, cam-2, then cam and cam-1 again once
        // retention freed them. The 4th file (cam, made again) is newer than the 3rd.
        let reused = [file("cam-2", 10), file("cam", 5), file("cam-1", 0)]
        XCTAssertEqual(RecordingRetention(keep: 2, maxAge: nil).victims(reused, thisRun: ["cam", "cam-1", "cam-2", "cam", "cam-1"],
                                                                        current: "cam-1", now: now), ["cam-2"])
    }

    /// strftime fields in folders: `/rec/%Y-%m-%d/cam-%H.mp4` keeps the newest files
    /// across day folders, removes a day folder it emptied, and never follows a link,
    /// enters a folder the pattern does not make, or removes anything else.
    func testRetentionReachesAcrossStrftimeFolders() throws {
        let base = try makeTempDir()
        let fm = FileManager.default
        func make(_ path: String, age: TimeInterval) throws {
            let url = base.appendingPathComponent(path)
            try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("x".utf8).write(to: url)
            try fm.setAttributes([.modificationDate: Date().addingTimeInterval(-age)], ofItemAtPath: url.path)
        }
        try make("2026-11-28/cam-10.mp4", age: 4 * 86400)
        try make("2026-11-29/cam-10.mp4", age: 3 * 86400)
        try make("2026-11-29/notes.txt", age: 3 * 86400)
        try make("2026-11-30/cam-10.mp4", age: 2 * 86400)
        try make("2026-12-01/cam-10.mp4", age: 0)
        try make("notes/cam-10.mp4", age: 9 * 86400)            // not a folder the pattern makes
        let elsewhere = try makeTempDir()
        try Data("x".utf8).write(to: elsewhere.appendingPathComponent("cam-10.mp4"))
        try fm.setAttributes([.modificationDate: Date().addingTimeInterval(-9 * 86400)],
                             ofItemAtPath: elsewhere.appendingPathComponent("cam-10.mp4").path)
        try fm.createSymbolicLink(atPath: base.appendingPathComponent("2026-11-27").path, withDestinationPath: elsewhere.path)

        let pattern = base.path + "/%Y-%m-%d/cam-%H.mp4"
        XCTAssertEqual(RecordingRetention.split(pattern).base, base.path)
        XCTAssertEqual(RecordingRetention.split(pattern).components, ["%Y-%m-%d", "cam-%H.mp4"])
        XCTAssertEqual(RecordingRetention.split("/rec/cam-%H.mp4").base, "/rec")
        let current = base.path + "/2026-12-01/cam-10.mp4"
        let failures = RecordingRetention(keep: 2, maxAge: nil).apply(pattern: pattern, thisRun: [current], current: current)
        XCTAssertTrue(failures.isEmpty, "\(failures)")
        func exists(_ path: String) -> Bool { fm.fileExists(atPath: base.appendingPathComponent(path).path) }
        XCTAssertFalse(exists("2026-11-28"), "the oldest day's file went, and its folder it emptied")
        XCTAssertFalse(exists("2026-11-29/cam-10.mp4"))
        XCTAssertTrue(exists("2026-11-29/notes.txt"), "what the pattern does not make stays, and so does its folder")
        XCTAssertTrue(exists("2026-11-30/cam-10.mp4") && exists("2026-12-01/cam-10.mp4"), "the newest two stay")
        XCTAssertTrue(exists("notes/cam-10.mp4"), "a folder the pattern does not make is never entered")
        XCTAssertTrue(fm.fileExists(atPath: elsewhere.appendingPathComponent("cam-10.mp4").path), "a link is never followed")
    }

    /// A file of the pattern that another program writes without a lock (as ffmpeg does:
    /// a shell holds it open for writing here, its last change a day ago) is never removed,
    /// nor one another writer changed within the last segment and a minute; one another
    /// program only reads is (before: `keep` removed both, as it removed ffmpeg's file).
    func testAFileAnotherProgramWritesOrJustChangedIsNeverRemoved() throws {
        let folder = try makeTempDir()
        let fm = FileManager.default
        let now = Date()
        func plant(_ name: String, age: TimeInterval) throws -> String {
            let path = folder.appendingPathComponent(name).path
            try Data("theirs".utf8).write(to: URL(fileURLWithPath: path))
            try fm.setAttributes([.modificationDate: now.addingTimeInterval(-age)], ofItemAtPath: path)
            return path
        }
        let written = try plant("rec-000001.mp4", age: 86400)   // the oldest: first to go were it not written
        let read = try plant("rec-000002.mp4", age: 86000)
        let changed = try plant("rec-000003.mp4", age: 5 + 30)    // within segment (5 s) + a minute
        let finished = try plant("rec-000004.mp4", age: 5 + 61)   // just beyond it
        let writer = try FileHolder(written, mode: ">>")
        defer { writer.end() }
        let reader = try FileHolder(read, mode: "<")
        defer { reader.end() }
        var info = stat()
        XCTAssertEqual(stat(written, &info), 0)
        XCTAssertTrue(FileWriters.openForWriting(device: info.st_dev, inode: info.st_ino), "/proc sees the writer")
        XCTAssertEqual(stat(read, &info), 0)
        XCTAssertFalse(FileWriters.openForWriting(device: info.st_dev, inode: info.st_ino), "a reader is no writer")
        XCTAssertEqual(stat(finished, &info), 0)
        XCTAssertFalse(FileWriters.openForWriting(device: info.st_dev, inode: info.st_ino), "nobody has it open")

        let current = try RecordingFile.create(folder.appendingPathComponent("rec-101010.mp4").path)
        defer { current.lock.release() }
        let pattern = folder.path + "/rec-%H%M%S.mp4"
        let retention = RecordingRetention(keep: 1, maxAge: nil, segment: 5)
        XCTAssertTrue(retention.apply(pattern: pattern, thisRun: [current.path], current: current.path, now: now).isEmpty)
        XCTAssertTrue(fm.fileExists(atPath: written), "the file another program writes stays")
        XCTAssertTrue(fm.fileExists(atPath: changed), "the file changed 35 s ago stays")
        XCTAssertFalse(fm.fileExists(atPath: read), "a file only read goes")
        XCTAssertFalse(fm.fileExists(atPath: finished), "a file changed 66 s ago goes")
        XCTAssertTrue(fm.fileExists(atPath: current.path))
        // Once its writer is gone and it has settled, it is one of the files beyond keep.
        writer.end()
        XCTAssertTrue(retention.apply(pattern: pattern, thisRun: [current.path], current: current.path,
                                      now: now.addingTimeInterval(60)).isEmpty)
        XCTAssertFalse(fm.fileExists(atPath: written), "its writer gone, it goes")
        XCTAssertFalse(fm.fileExists(atPath: changed), "settled, it goes")
        XCTAssertEqual(try fm.contentsOfDirectory(atPath: folder.path), ["rec-101010.mp4"])
    }

    /// A writer that opens a file while a lease taken to ask about it is held breaks the
    /// lease: the kernel tells the holder with SIGIO, whose default action ends the process
    /// (before: this test process was killed, "I/O possible"). The writer's open waits
    /// until the lease goes with its descriptor, and nothing else happens.
    func testAWriterOpeningAFileWhileItsLeaseIsHeldNeverEndsTheProcess() throws {
        let path = try makeTempDir().appendingPathComponent("rec-000001.mp4").path
        try Data("theirs".utf8).write(to: URL(fileURLWithPath: path))
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(fd, 0)
        XCTAssertEqual(FileWriters.lease(fd), .held, "nobody writes it: the lease is had")
        // A shell opens it for writing: its open waits on the lease, which the kernel
        // starts breaking (SIGIO to this process), as /proc/locks then says.
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", "printf ' and theirs' >>\"$0\"", path]
        try writer.run()
        var info = stat()
        XCTAssertEqual(fstat(fd, &info), 0)
        let inode = ":\(info.st_ino) "   // /proc/locks names a file MAJOR:MINOR:INODE
        let breaking = Ports.waitUntil(timeout: 10) {
            let locks = (try? String(contentsOfFile: "/proc/locks", encoding: .utf8)) ?? ""
            return locks.split(separator: "\n").contains { $0.contains("BREAKING") && $0.contains(inode) }
        }
        XCTAssertTrue(breaking, "the writer's open broke the lease")
        close(fd)
        writer.waitUntilExit()
        XCTAssertEqual(writer.terminationStatus, 0)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "theirs and theirs")
    }
}

extension RecordingRetentionTests {
    /// Where no lease can be had (another user's file, a file system without leases), one
    /// prune reads /proc once for all its files, and not at all where leases answer (before:
    /// every descriptor of every process was read for each file, and again for each removed).
    func testOnePruneReadsProcAtMostOnce() throws {
        let folder = try makeTempDir()
        let now = Date()
        let paths = try (1...6).map { i in
            let path = folder.appendingPathComponent(String(format: "rec-%06d.mp4", i)).path
            try Data("theirs".utf8).write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes([.modificationDate: now.addingTimeInterval(-86400 + Double(i) * 10)], ofItemAtPath: path)
            return path
        }
        let writer = try FileHolder(paths[0], mode: ">>")   // the oldest, written by another program
        defer { writer.end() }
        let pattern = folder.path + "/rec-%H%M%S.mp4"
        func left() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() }

        var scans = 0
        let noLease = WriterCheck(lease: { _ in .unavailable }, scan: { scans += 1; return FileWriters.openForWriting() })
        XCTAssertTrue(RecordingRetention(keep: 2, maxAge: nil, segment: 5)
            .apply(pattern: pattern, thisRun: [], current: nil, now: now, writers: noLease).isEmpty)
        print("no lease: 6 files asked about, 3 removed, /proc read \(scans) time(s)")
        XCTAssertEqual(scans, 1)
        XCTAssertEqual(try left(), ["rec-000001.mp4", "rec-000005.mp4", "rec-000006.mp4"], "the written file stays, the newest 2 others too")

        var leasedScans = 0
        let leased = WriterCheck(scan: { leasedScans += 1; return FileWriters.openForWriting() })
        XCTAssertTrue(RecordingRetention(keep: 1, maxAge: nil, segment: 5)
            .apply(pattern: pattern, thisRun: [], current: nil, now: now, writers: leased).isEmpty)
        print("leases: /proc read \(leasedScans) time(s)")
        XCTAssertEqual(leasedScans, 0, "every file answered by its lease")
        XCTAssertEqual(try left(), ["rec-000001.mp4", "rec-000006.mp4"])
    }

    /// A run ignores SIGIO (a lease's break) only where its action is the default, which
    /// would end the process; a program mediapub is embedded in keeps its own handler
    /// (before: `signal(SIGIO, SIG_IGN)` replaced it, process-wide).
    func testSIGIOIsIgnoredOnlyWhereNothingElseHandlesIt() {
        func action() -> Int {
            var now = sigaction()
            XCTAssertEqual(sigaction(SIGIO, nil, &now), 0)
            return unsafeBitCast(now.__sigaction_handler.sa_handler, to: Int.self)
        }
        func set(_ handler: __sighandler_t?) {
            var new = sigaction()
            new.__sigaction_handler.sa_handler = handler
            sigemptyset(&new.sa_mask)
            XCTAssertEqual(sigaction(SIGIO, &new, nil), 0)
        }
        var saved = sigaction()
        XCTAssertEqual(sigaction(SIGIO, nil, &saved), 0)
        defer { sigaction(SIGIO, &saved, nil) }
        let theirs: __sighandler_t = { _ in }
        set(theirs)
        XCTAssertFalse(FileWriters.ignoreSIGIOIfUnhandled(), "a handler is there: left alone")
        XCTAssertEqual(action(), unsafeBitCast(theirs, to: Int.self), "the embedding program's handler stays")
        set(nil)   // SIG_DFL: SIGIO would end the process
        XCTAssertTrue(FileWriters.ignoreSIGIOIfUnhandled(), "nobody handles it: ignored")
        XCTAssertEqual(action(), unsafeBitCast(SIG_IGN, to: Int.self))
    }
}

/// Another program holding a file open (`>>` for writing, `<` for reading) without a lock,
/// from when it is made until `end()`: a shell that waits on its standard input.
private final class FileHolder {
    let process = Process()
    let input = Pipe()
    let output = Pipe()

    init(_ path: String, mode: String) throws {
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exec 3\(mode)\"$0\" && echo open && read x", path]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        // Its own word that the file is open (a blocking read of its first line).
        let said = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        guard said.hasPrefix("open") else { throw HarnessError("the shell did not open \(path): \(said)") }
    }

    private var ended = false

    /// Its standard input closes: it reads the end and exits, closing the file.
    func end() {
        guard !ended else { return }
        ended = true
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

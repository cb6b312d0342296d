// README, Recordings never overwrite: an output path that names something mediapub did not create (a
// folder, an earlier recording) is left untouched; mediapub removes only files
// it wrote in this run. Checked byte for byte, the new recording with ffprobe.

import Foundation
import XCTest
@testable import MediaPub

final class RecordingSafetyTests: XCTestCase {

    /// Bytes that are no media at all: a run that opened the file would change them.
    private func plantFile(_ url: URL) throws -> Data {
        let bytes = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try bytes.write(to: url)
        return bytes
    }

    private func warnings(_ events: URL) throws -> [String] {
        try EventLog.read(events).filter { $0["event"] as? String == "warning" }.compactMap { $0["message"] as? String }
    }

    func testAnEarlierRecordingIsNeitherTruncatedNorRemovedAndTheNewOneGoesBesideIt() throws {
        let dir = try makeTempDir()
        let earlier = dir.appendingPathComponent("rec.mp4")
        let planted = try plantFile(earlier)
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: [earlier.path]))

        let r = try CLI.run(["--preset", preset.path, "--no-realtime", "--duration", "1s", "--events", events.path], timeout: 60)
        XCTAssertEqual(r.status, 0, r.summary("recording beside an earlier one"))
        XCTAssertEqual(try Data(contentsOf: earlier), planted, "the earlier recording is untouched")
        let beside = dir.appendingPathComponent("rec-1.mp4")
        let p = try assertH264AAC(beside.path)
        XCTAssertEqual(p.duration ?? 0, 1, accuracy: 0.2, p.rawJSON)
        let said = "\(earlier.path) exists already and is left as it is: recording to \(beside.path) instead"
        XCTAssertEqual(try warnings(events), [said])
        XCTAssertTrue(r.stderr.contains("warn: \(said)"), r.stderr)

        // A second run takes the next free name; neither earlier file changes.
        let first = try Data(contentsOf: beside)
        let again = try CLI.run(["--preset", preset.path, "--no-realtime", "--duration", "1s"], timeout: 60)
        XCTAssertEqual(again.status, 0, again.summary("second run"))
        XCTAssertEqual(try Data(contentsOf: earlier), planted)
        XCTAssertEqual(try Data(contentsOf: beside), first)
        _ = try assertH264AAC(dir.appendingPathComponent("rec-2.mp4").path)
    }

    func testARunThatFailsBeforeWritingRemovesOnlyItsOwnEmptyFile() throws {
        let dir = try makeTempDir()
        let earlier = dir.appendingPathComponent("rec.mp4")
        let planted = try plantFile(earlier)
        // Nothing playable: the run ends with exit 1 before a byte is recorded.
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: dir.appendingPathComponent("missing.mp4").path,
                                                                   outputs: [earlier.path]))
        let r = try CLI.run(["--preset", preset.path, "--no-realtime"], timeout: 60)
        XCTAssertEqual(r.status, 1, r.summary("nothing playable"))
        XCTAssertEqual(try Data(contentsOf: earlier), planted, "the earlier recording is untouched")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), ["rec.mp4", "t.yaml"],
                       "the run's own empty file is gone, nothing else")
    }

    func testAFolderAtTheOutputPathIsLeftWhole() throws {
        let dir = try makeTempDir()
        let folder = dir.appendingPathComponent("d.mp4")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("sub"), withIntermediateDirectories: true)
        let inside = folder.appendingPathComponent("sub/keep.txt")
        let planted = try plantFile(inside)
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: ["file://\(folder.path)"]))

        let r = try CLI.run(["--preset", preset.path, "--no-realtime", "--duration", "1s", "--events", events.path], timeout: 60)
        XCTAssertEqual(r.status, 0, r.summary("a folder at the output path"))
        XCTAssertEqual(try Data(contentsOf: inside), planted, "the folder and its contents are untouched")
        let beside = dir.appendingPathComponent("d-1.mp4")
        _ = try assertH264AAC(beside.path)
        XCTAssertEqual(try warnings(events),
                       ["\(folder.path) exists already and is left as it is: recording to \(beside.path) instead"])
    }

    func testARecordingThatCannotBeOpenedFailsAloneAndMissingFoldersAreMade() throws {
        let dir = try makeTempDir()
        try Data("not a folder".utf8).write(to: dir.appendingPathComponent("plain-file"))
        let bad = dir.appendingPathComponent("plain-file/rec.mp4")
        let good = dir.appendingPathComponent("new/folders/rec.mkv")
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: [bad.path, good.path]))
        let r = try CLI.run(["--preset", preset.path, "--no-realtime", "--duration", "2s", "--events", events.path], timeout: 60)
        XCTAssertEqual(r.status, 0, r.summary("one of two recordings cannot be opened"))
        let p = try assertH264AAC(good.path)
        XCTAssertEqual(p.duration ?? 0, 2, accuracy: 0.2, p.rawJSON)
        let failed = try EventLog.read(events).filter { $0["event"] as? String == "output.state" && $0["state"] as? String == "failed" }
        XCTAssertEqual(failed.map { $0["url"] as? String }, ["file://\(bad.path)"])
        XCTAssertEqual(failed.first?["error"] as? String, "Could not open file \"\(bad.path)\" for writing: Not a directory")
    }

    /// A full disk (as fast as possible) and a folder removed mid-run (realtime, mostly
    /// waiting), each with its own folder and, for the realtime one, its own control socket:
    /// at once, each checked as its own test was.
    func testAFullDiskAndAFolderRemovedMidRunEachInARunOfItsOwnAtOnce() {
        atOnce([("a full disk", aFullDiskHoldsUpThatRecordingAloneAndNamesIt),
                ("a folder removed mid-run", aRecordingWhoseFolderIsRemovedMidRunGoesOnInANewFile)])
    }

    private func aRecordingWhoseFolderIsRemovedMidRunGoesOnInANewFile() throws {
        let dir = try makeTempDir()
        let folder = dir.appendingPathComponent("rec")
        let out = folder.appendingPathComponent("show.mp4")
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: [out.path]))
        let mp = try startMediaPub(["--preset", preset.path, "--realtime", "--events", events.path,
                                    "--control", dir.appendingPathComponent("c.sock").path])
        func states() -> [String] {
            ((try? EventLog.read(events)) ?? []).filter { $0["event"] as? String == "output.state" }.compactMap { $0["state"] as? String }
        }
        XCTAssertTrue(Ports.waitUntil(timeout: 30) { states().contains("publishing") || !mp.isRunning }, mp.stderr)
        try FileManager.default.removeItem(at: folder)
        // Noticed, said, and recorded again: reconnecting (with why), then publishing.
        XCTAssertTrue(Ports.waitUntil(timeout: 30) { states().suffix(2) == ["reconnecting", "publishing"] || !mp.isRunning },
                      "\(states()) \(mp.stderr)")
        let said = try EventLog.read(events).last { $0["state"] as? String == "reconnecting" }
        XCTAssertEqual(said?["error"] as? String, "\(out.path) was removed while being recorded: recording to a new file")
        XCTAssertTrue(Ports.waitUntil(timeout: 30) { ((try? EventLog.read(events)) ?? []).filter { $0["event"] as? String == "player.progress" }.count >= 4 })
        mp.terminate()
        XCTAssertTrue(mp.waitForExit(timeout: 20))
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr)
        let p = try assertH264AAC(out.path)
        XCTAssertGreaterThan(p.duration ?? 0, 0.5, "the new file holds what came after: \(p.rawJSON)")
        try assertDecodesCleanly(out.path)
    }

    /// A 2 MB disk (tmpfs) fills mid-run: that recording is reconnecting, naming its file (it
    /// is retried until there is room), and stays playable up to where the disk filled; the
    /// other recording runs its full length.
    private func aFullDiskHoldsUpThatRecordingAloneAndNamesIt() throws {
        let dir = try makeTempDir()
        guard let small = try mountFullableDisk(in: dir) else { return }
        let full = small.appendingPathComponent("rec.mp4")
        let other = dir.appendingPathComponent("other.mkv")
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: "testsrc:?pattern=snow&freq=440", outputs: [full.path, other.path]))
        let r = try CLI.run(["--preset", preset.path, "--no-realtime", "--duration", "30s", "--events", events.path], timeout: 120)
        XCTAssertEqual(r.status, 0, r.summary("a recording on a disk that fills"))
        let states = try EventLog.read(events).filter { $0["event"] as? String == "output.state" && $0["output"] as? String == "0" }
        XCTAssertEqual(states.first { $0["state"] as? String == "reconnecting" }?["error"] as? String,
                       "writing \(full.path) failed: No space left on the resource.", "\(states)")
        XCTAssertEqual(states.last?["state"] as? String, "stopped", "\(states)")
        let o = try assertH264AAC(other.path)
        XCTAssertEqual(o.duration ?? 0, 30, accuracy: 0.3, "the other recording ran its full length")
        let f = try MediaProbe.probe(full.path)
        XCTAssertGreaterThan(f.duration ?? 0, 5, "what fitted on the disk plays: \(f.rawJSON)")
    }

    func testNumberedNamesKeepTheExtension() {
        XCTAssertEqual(RecordingFile.numbered("/r/rec.mp4", 1), "/r/rec-1.mp4")
        XCTAssertEqual(RecordingFile.numbered("/r/show.2026-12-01.ts", 12), "/r/show.2026-12-01-12.ts")
        XCTAssertEqual(RecordingFile.numbered("rec", 2), "rec-2")
    }
}

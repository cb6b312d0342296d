// Rotation and retention of recordings (docs/presets.md, Outputs): `segment:` cuts a file output
// into files at keyframes that join without gap or overlap; `keep:` removes the
// oldest of the output's own files and nothing else. End to end through the CLI,
// the files found through the events (`output.state` with each new file's URL).

import Foundation
import XCTest

final class RecordingRotationTests: XCTestCase {

    /// The source: a moving ball (every picture differs), keyframes every second unless told.
    private func preset(_ dir: URL, keyframes: String = "1s", outputs: String) throws -> URL {
        try writeFile(dir, "t.yaml", E2EPreset.basic(source: "testsrc:?pattern=ball&freq=440", outputs: [])
            .replacingOccurrences(of: "keyframe_interval: 1s", with: "keyframe_interval: \(keyframes)")
            .replacingOccurrences(of: "outputs:\n", with: "outputs:\n" + outputs))
    }

    /// The files the output wrote, in the order the events told them.
    private func newFiles(_ events: URL) throws -> [String] {
        var files: [String] = []
        for e in try EventLog.read(events) where e["event"] as? String == "output.state" && e["state"] as? String == "publishing" {
            if let url = e["url"] as? String, url.hasPrefix("file://"), !files.contains(url) { files.append(url) }
        }
        return files.map { String($0.dropFirst("file://".count)) }
    }

    private func count(_ path: String, stream: String) throws -> Int {
        let r = try Proc.check(try Tools.path("ffprobe"), ["-v", "error", "-select_streams", stream, "-count_packets",
                                                          "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", path])
        return Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    private func firstPacketFlags(_ path: String) throws -> String {
        let r = try Proc.check(try Tools.path("ffprobe"), ["-v", "error", "-select_streams", "v:0", "-read_intervals", "%+#1",
                                                          "-show_entries", "packet=flags", "-of", "csv=p=0", path])
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Keyframes every 2 s, segments of 5 s: the encoder starts a keyframe at each
    /// boundary, so the cuts are exact (before: at the last keyframe within 5 s, 4 s files).
    /// Matroska files cut alongside start at zero too (before: the second at 5.02 s);
    /// MPEG-TS files carry the output's time from the muxer's 3600 s (docs/presets.md).
    func testFiveSecondSegmentsJoinWithoutGapOrOverlap() throws {
        let dir = try makeTempDir()
        let events = dir.appendingPathComponent("events.jsonl")
        let whole = dir.appendingPathComponent("whole.mp4")
        // The same run records the whole too: the files together must hold exactly what it holds.
        let preset = try preset(dir, keyframes: "2s", outputs: """
              - url: \(dir.path)/seg/rec-%H%M%S.mp4
                segment: 5s
              - \(whole.path)
              - url: \(dir.path)/mkv/rec-%H%M%S.mkv
                segment: 5s
              - url: \(dir.path)/ts/rec-%H%M%S.ts
                segment: 5s

            """)
        let r = try CLI.run(["--preset", preset.path, "--no-realtime", "--duration", "23s", "--events", events.path],
                            timeout: 180)
        XCTAssertEqual(r.status, 0, r.summary("mediapub with segment: 5s"))
        let told = try newFiles(events)
        let files = told.filter { $0.contains("/seg/") }
        XCTAssertEqual(files.count, 5, "five files over 23 s: \(files)\n\(r.stderr)")
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("seg").path)
        XCTAssertEqual(Set(onDisk), Set(files.map { ($0 as NSString).lastPathComponent }), "the files told are the files written")
        XCTAssertEqual(r.stderr.components(separatedBy: "recording: new file \(dir.path)/seg/").count - 1, 5,
                       "the log tells each file once")
        for (folder, base) in [("mkv", 0.0), ("ts", 3600.0)] {
            let cut = told.filter { $0.contains("/\(folder)/") }
            XCTAssertEqual(cut.count, 5, "five .\(folder) files: \(cut)")
            for (i, file) in cut.enumerated() {
                let name = "\(folder)/" + (file as NSString).lastPathComponent
                let start = base + (folder == "ts" ? Double(i) * 5 : 0)
                XCTAssertEqual(try MediaProbe.videoPacketPTS(file).min() ?? -1, start, accuracy: 0.1, "\(name) starts at \(start) s")
                XCTAssertEqual(try MediaProbe.packetPTS(file, stream: "a:0").min() ?? -1, start, accuracy: 0.1,
                               "\(name)'s sound starts at \(start) s")
            }
        }
        let publishing = try EventLog.read(events).filter {
            $0["event"] as? String == "output.state" && $0["state"] as? String == "publishing"
                && ($0["url"] as? String ?? "").contains("/seg/")
        }
        XCTAssertEqual(publishing.count, 5, "each file is told in one output.state event, the first one too")

        let fps = 25.0
        var frames = 0, audioPackets = 0, seconds = 0.0
        for file in files {
            let name = (file as NSString).lastPathComponent
            let probe = try MediaProbe.probe(file)
            XCTAssertEqual(probe.video?.codecName, "h264", "\(name): \(probe.rawJSON)")
            XCTAssertEqual(probe.audio?.codecName, "aac", "\(name): \(probe.rawJSON)")
            XCTAssertEqual(try MediaProbe.decodeErrors(file), "", "\(name) decodes cleanly")
            XCTAssertTrue(try firstPacketFlags(file).hasPrefix("K"), "\(name) starts with a keyframe")
            let pts = try MediaProbe.videoPacketPTS(file).sorted()
            XCTAssertLessThan(pts.first ?? 1, 0.1, "\(name) starts at zero")
            let steps = zip(pts.dropFirst(), pts).map { $0 - $1 }
            XCTAssertEqual(steps.max() ?? 0, 1 / fps, accuracy: 0.002, "\(name): a picture every frame, none missing")
            XCTAssertEqual(steps.min() ?? 0, 1 / fps, accuracy: 0.002, "\(name): no picture twice")
            if file != files.last { XCTAssertEqual(pts.count, 125, "\(name): cut at the 5 s boundary") }
            frames += pts.count
            seconds += Double(pts.count) / fps
            audioPackets += try count(file, stream: "a:0")
        }
        // Cut at keyframes 5 s apart: 5, 5, 5, 5 and 3 s.
        XCTAssertEqual(seconds, 23, accuracy: 1 / fps, "the files' durations add up to the run's output time")
        XCTAssertEqual(frames, 575, "every picture of the run in exactly one file")
        XCTAssertEqual(frames, try count(whole.path, stream: "v:0"), "as many pictures as the whole recording")
        let wholeAudio = try count(whole.path, stream: "a:0")
        XCTAssertEqual(Double(audioPackets), Double(wholeAudio), accuracy: 1,
                       "sound continuous across the cuts (AAC frames: files \(audioPackets), whole \(wholeAudio))")
        XCTAssertEqual(Double(audioPackets * 1024), 23 * 44100, accuracy: 2048, "sound for the whole output time")
    }

    func testKeepLeavesTheNewestTwoAndNothingElseIsTouched() throws {
        let dir = try makeTempDir()
        let events = dir.appendingPathComponent("events.jsonl")
        let folder = dir.appendingPathComponent("seg")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // Not this output's: another name, another container, a folder and a link its pattern would match.
        let unrelated = ["notes.txt", "other-101010.mp4", "rec-101010.mkv", "rec-old.mp4"]
        for name in unrelated { try writeFile(folder, name, "keep me") }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("rec-000000.mp4"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("rec-000001.mp4").path,
                                                   withDestinationPath: dir.appendingPathComponent("events.jsonl").path)
        let preset = try preset(dir, outputs: """
              - url: \(folder.path)/rec-%H%M%S.mp4
                segment: 5s
                keep: 2

            """)
        let r = try CLI.run(["--preset", preset.path, "--no-realtime", "--duration", "23s", "--events", events.path],
                            timeout: 180)
        XCTAssertEqual(r.status, 0, r.summary("mediapub with keep: 2"))
        let files = try newFiles(events)
        XCTAssertEqual(files.count, 5, "five files written: \(files)\n\(r.stderr)")
        try assertHolds(folder, newest: Array(files.suffix(2)), besides: unrelated + ["rec-000000.mp4", "rec-000001.mp4"],
                        unchanged: unrelated, text: "keep me")
    }

    /// The folder holds the newest files told (which play) and `others`, and nothing
    /// else; `unchanged` (of `others`) still hold `text`.
    private func assertHolds(_ folder: URL, newest: [String], besides others: [String], unchanged: [String], text: String,
                             file: StaticString = #filePath, line: UInt = #line) throws {
        let onDisk = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
        XCTAssertEqual(onDisk, Set(newest.map { ($0 as NSString).lastPathComponent } + others),
                       "the newest files stay, with everything that was not this output's", file: file, line: line)
        for name in unchanged {
            XCTAssertEqual(try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8), text, name, file: file, line: line)
        }
        for recording in newest {
            XCTAssertEqual(try MediaProbe.probe(recording).video?.codecName, "h264", recording, file: file, line: line)
        }
    }

    /// The user's own files beside a rotating `%k` pattern stay (before: `%k` was any
    /// text, and `keep` took cam-important-0000.mp4 and cam-notes-1234.mp4).
    func testUserFilesBesideARotatingHourPatternSurvive() throws {
        let dir = try makeTempDir()
        let events = dir.appendingPathComponent("events.jsonl")
        let folder = dir.appendingPathComponent("cam")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let users = ["cam-important-0000.mp4", "cam-notes-1234.mp4", "cam-x-0000.mp4", "cam-123-0000.mp4", "cam-17-0000.mkv"]
        for name in users {
            let file = try writeFile(folder, name, "the user's")
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-86400)], ofItemAtPath: file.path)
        }
        let preset = try preset(dir, outputs: """
              - url: \(folder.path)/cam-%k-%M%S.mp4
                segment: 1s
                keep: 2

            """)
        let r = try CLI.run(["--preset", preset.path, "--no-realtime", "--duration", "6s", "--events", events.path], timeout: 180)
        XCTAssertEqual(r.status, 0, r.summary("mediapub with cam-%k-%M%S.mp4, segment: 1s, keep: 2"))
        let files = try newFiles(events)
        XCTAssertGreaterThanOrEqual(files.count, 5, "a file a second: \(files)\n\(r.stderr)")
        try assertHolds(folder, newest: Array(files.suffix(2)), besides: users, unchanged: users, text: "the user's")
    }

    /// A file of the pattern that another run writes (held locked here, as a recording
    /// holds its file) is never removed; an unlocked one is. The run's own locks go with
    /// its files: the descriptors it has open in the folder stay few, file after file.
    func testAFileAnotherRunWritesIsNeverRemovedAndLocksDoNotPileUp() throws {
        let dir = try makeTempDir()
        let events = dir.appendingPathComponent("events.jsonl")
        let folder = dir.appendingPathComponent("rec")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let old = Date().addingTimeInterval(-3600)
        let live = try writeFile(folder, "rec-000000.mp4", "run A writes this")
        let finished = try writeFile(folder, "rec-000001.mp4", "run A wrote this")
        for file in [live, finished] { try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: file.path) }
        let fd = open(live.path, O_WRONLY | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        XCTAssertEqual(flock(fd, LOCK_EX | LOCK_NB), 0, "run A's lock on the file it writes")
        let preset = try preset(dir, outputs: """
              - url: \(folder.path)/rec-%H%M%S.mp4
                segment: 1s
                keep: 1

            """)
        let mp = try startMediaPub(["--preset", preset.path, "--realtime", "--duration", "9s", "--events", events.path])
        defer { mp.cleanUp() }
        // At the sixth file, in the middle of the run: what the process has open in the folder.
        let sixth = EventLog.waitFor(events, of: mp, timeout: 120) { _ in ((try? self.newFiles(events)) ?? []).count >= 6 }
        XCTAssertTrue(sixth, "six files told\n\(mp.stderr)")
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(mp.pid)/fd")) ?? []
        let inFolder = fds.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(mp.pid)/fd/\($0)") }
            .filter { $0.hasPrefix(folder.path + "/") }
        XCTAssertTrue(mp.isRunning, "sampled while the run went on")
        XCTAssertFalse(inFolder.isEmpty, "the file being written is open")
        XCTAssertLessThanOrEqual(inFolder.count, 4, "the file written and the one being finished, each locked: \(inFolder)")
        XCTAssertTrue(mp.waitForExit(timeout: 120))
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr)
        XCTAssertFalse(mp.stderr.contains("recording to a new file"), mp.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: finished.path), "a finished file beyond keep goes")
        try assertHolds(folder, newest: Array(try newFiles(events).suffix(1)), besides: [live.lastPathComponent],
                        unchanged: [live.lastPathComponent], text: "run A writes this")
    }
}

// A recording on a disk that hangs (an ext4 image frozen with fsfreeze: every
// write blocks) or fills (a small tmpfs) never stalls the network outputs: in a
// paced run the recording has its own queue and is given up (a hung disk) or
// retried until there is room again (a full disk), naming its file, while RTMP
// goes on. A full disk never empties an HLS playlist.

import Foundation
import XCTest
@testable import MediaPub

final class DiskStallTests: XCTestCase {

    /// An ext4 file system of 64 MB on a loop device, mounted in `dir`; thawed and
    /// unmounted at the end whatever happens. Nil (with a failure) when it cannot be made.
    private func mountSmallDisk(in dir: URL) throws -> URL? {
        let image = dir.appendingPathComponent("disk.img")
        let mountPoint = dir.appendingPathComponent("disk")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: image.path, contents: nil),
              let handle = FileHandle(forWritingAtPath: image.path) else { XCTFail("cannot make \(image.path)"); return nil }
        try handle.truncate(atOffset: 64 << 20)
        try handle.close()
        let mkfs = try Proc.run(try Tools.path("mkfs.ext4"), ["-q", "-F", image.path], timeout: 60)
        XCTAssertEqual(mkfs.status, 0, mkfs.summary("mkfs.ext4"))
        let mount = try Proc.run(try Tools.path("mount"), ["-o", "loop", image.path, mountPoint.path], timeout: 30)
        XCTAssertEqual(mount.status, 0, mount.summary("mount -o loop (as root)"))
        guard mkfs.status == 0, mount.status == 0 else { return nil }
        addTeardownBlock {
            _ = try? Proc.run(try Tools.path("fsfreeze"), ["-u", mountPoint.path], timeout: 30)
            _ = try? Proc.run(try Tools.path("umount"), [mountPoint.path], timeout: 30)
        }
        return mountPoint
    }

    /// A disk that hangs and one that fills, each under its own run beside its own RTMP
    /// server, and a full disk under HLS and a recording, each its own process, folder
    /// and control socket, at once: the runs are realtime and mostly wait on their disk.
    /// The full disk's run is started, the hung disk's until its disk is frozen, then the
    /// HLS run is followed through (looked at all along) while the hung disk's runs to its
    /// end, then the hung disk's and the full disk's are checked: each as its own test did.
    func testAHungDiskFailsThatRecordingAloneAFullOneHoldsItUpWhileRTMPPublishesToTheEndAndNeverEmptiesThePlaylist() throws {
        let top = try makeTempDir()
        let hungDir = top.appendingPathComponent("hung"), fullDir = top.appendingPathComponent("full")
        let hlsDir = top.appendingPathComponent("hls")
        for sub in [hungDir, fullDir, hlsDir] { try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true) }
        let full = try aFullDiskHoldsUpThatRecordingAloneAndRTMPPublishesToTheEnd(in: fullDir)
        let hung = try aHungDiskFailsThatRecordingAloneAndRTMPGoesOn(in: hungDir)
        try aFullDiskNeverEmptiesThePlaylistAndOutputsStartAgainOnceThereIsRoom(in: hlsDir)
        try hung()
        try full()
    }

    /// A recording on an ext4 disk frozen once both outputs publish is given up with its
    /// file named; RTMP publishes to the end. Its run is started and its disk frozen; the
    /// rest is returned, to follow the run to its end (it ends at --duration meanwhile).
    private func aHungDiskFailsThatRecordingAloneAndRTMPGoesOn(in dir: URL) throws -> () throws -> Void {
        guard let disk = try mountSmallDisk(in: dir) else { return {} }
        let received = dir.appendingPathComponent("received")
        try FileManager.default.createDirectory(at: received, withIntermediateDirectories: true)
        let rtmp = try startRTMPServer(recordTo: received)
        let hung = disk.appendingPathComponent("rec.mkv")
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: "testsrc:?pattern=ball&freq=440",
                                                                  outputs: [rtmp.url(key: "diskKey"), hung.path],
                                                                  extra: "reconnect: {initial: 500ms, max: 1s, give_up_after: never, stall: 3s}"))
        let mp = try startMediaPub(["--preset", preset.path, "--realtime", "--duration", "10s", "--events", events.path,
                                    "--control", dir.appendingPathComponent("c.sock").path])
        func outputStates(_ id: String) -> [[String: Any]] {
            ((try? EventLog.read(events)) ?? []).filter { $0["event"] as? String == "output.state" && $0["output"] as? String == id }
        }
        XCTAssertTrue(Ports.waitUntil(timeout: 30) {
            (outputStates("0").contains { $0["state"] as? String == "publishing" } && outputStates("1").contains { $0["state"] as? String == "publishing" })
                || !mp.isRunning
        }, mp.stderr)
        let freeze = try Proc.run(try Tools.path("fsfreeze"), ["-f", disk.path], timeout: 30)
        XCTAssertEqual(freeze.status, 0, freeze.summary("fsfreeze -f"))
        return { [self] in
            // The recording is given up with its file named; the RTMP output never notices.
            XCTAssertTrue(Ports.waitUntil(timeout: 60) { outputStates("1").contains { $0["state"] as? String == "failed" } || !mp.isRunning },
                          "\(outputStates("1")) \(mp.stderr)")
            XCTAssertEqual(outputStates("1").last?["error"] as? String, "writing \(hung.path) stalled: the disk took nothing for 3s")
            // The run goes on to its end with RTMP publishing all along; only then is the disk thawed.
            let progressed = Ports.waitUntil(timeout: 60) {
                ((try? EventLog.read(events)) ?? []).contains { $0["event"] as? String == "run.state" && $0["state"] as? String == "stopping" }
            }
            XCTAssertTrue(progressed, "the run reached its end with the disk hung: \(mp.stderr)")
            _ = try Proc.run(try Tools.path("fsfreeze"), ["-u", disk.path], timeout: 30)
            XCTAssertTrue(mp.waitForExit(timeout: 30))
            XCTAssertEqual(mp.exitStatus, 0, mp.stderr)
            XCTAssertEqual(outputStates("0").compactMap { $0["state"] as? String }, ["publishing", "stopped"], "RTMP never faltered")
            let stream = try XCTUnwrap(rtmp.recordings(in: received).last, "the server recorded the stream")
            let got = try assertH264AAC(stream.path)
            XCTAssertEqual(got.duration ?? 0, 10, accuracy: 1.5, "the server got the whole run: \(got.rawJSON)")
            try assertDecodesCleanly(stream.path)
        }
    }

    /// A 2 MB tmpfs fills mid-run: that recording is reconnecting with a message naming its
    /// file (it is retried until there is room); the RTMP output publishes to the end (the
    /// server records the whole run). Its run is started; its checks are returned.
    private func aFullDiskHoldsUpThatRecordingAloneAndRTMPPublishesToTheEnd(in dir: URL) throws -> () throws -> Void {
        guard let small = try mountFullableDisk(in: dir) else { return {} }
        let received = dir.appendingPathComponent("received")
        try FileManager.default.createDirectory(at: received, withIntermediateDirectories: true)
        let rtmp = try startRTMPServer(recordTo: received)
        let full = small.appendingPathComponent("rec.mp4")
        let events = dir.appendingPathComponent("events.jsonl")
        // Incompressible pictures at 3 Mb/s fill 2 MB in about 5 s.
        let yaml = E2EPreset.basic(source: "testsrc:?pattern=snow&freq=440", outputs: [rtmp.url(key: "fullDiskKey"), full.path])
            .replacingOccurrences(of: "bitrate: 800k", with: "bitrate: 3000k")
        let preset = try writeFile(dir, "t.yaml", yaml)
        let mp = try startMediaPub(["--preset", preset.path, "--realtime", "--duration", "9s", "--events", events.path,
                                    "--control", dir.appendingPathComponent("c.sock").path])
        return { [self] in
            XCTAssertTrue(mp.waitForExit(timeout: 60), "the run ends at --duration")
            let r = mp.result()
            XCTAssertEqual(r.status, 0, r.summary("a recording on a disk that fills beside RTMP"))
            let states = try EventLog.read(events).filter { $0["event"] as? String == "output.state" }
            let recording = states.filter { $0["output"] as? String == "1" }
            XCTAssertEqual(recording.first { $0["state"] as? String == "reconnecting" }?["error"] as? String,
                           "writing \(full.path) failed: No space left on the resource.", "\(recording)")
            XCTAssertEqual(recording.last?["state"] as? String, "stopped", "\(recording)")
            XCTAssertFalse(recording.contains { $0["state"] as? String == "failed" }, "a full disk is retried: \(recording)")
            XCTAssertEqual(states.filter { $0["output"] as? String == "0" }.compactMap { $0["state"] as? String }, ["publishing", "stopped"],
                           "RTMP never faltered")
            let stream = try XCTUnwrap(rtmp.recordings(in: received).last, "the server recorded the stream")
            let got = try assertH264AAC(stream.path)
            XCTAssertEqual(got.duration ?? 0, 9, accuracy: 1.5, "the server got the whole run: \(got.rawJSON)")
            let f = try MediaProbe.probe(full.path)
            XCTAssertGreaterThan(f.duration ?? 0, 2, "what fitted on the disk plays: \(f.rawJSON)")
        }
    }

    /// HLS and a recording on a 4 MB tmpfs that a 2.5 MB file fills: when the disk is full both
    /// are reconnecting and the playlist is never emptied nor cut short; once the file is
    /// removed both start again by themselves (`publishing`), the recording in a new file
    /// beside the first. Everything written plays.
    private func aFullDiskNeverEmptiesThePlaylistAndOutputsStartAgainOnceThereIsRoom(in dir: URL) throws {
        guard let small = try mountFullableDisk(in: dir, megabytes: 4) else { return }
        let filler = small.appendingPathComponent("filler")
        XCTAssertTrue(FileManager.default.createFile(atPath: filler.path, contents: Data(count: 2_500_000)))
        let playlist = small.appendingPathComponent("hls/index.m3u8")
        let recording = small.appendingPathComponent("rec.mp4")
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: "testsrc:?pattern=snow&freq=440",
                                                                  outputs: ["hls://\(playlist.path)?segment=1s&window=3", recording.path],
                                                                  extra: "reconnect: {initial: 500ms, max: 1s, give_up_after: never}"))
        let mp = try startMediaPub(["--preset", preset.path, "--realtime", "--events", events.path,
                                    "--control", dir.appendingPathComponent("c.sock").path])
        func states(_ id: String) -> [String] {
            ((try? EventLog.read(events)) ?? []).filter { $0["event"] as? String == "output.state" && $0["output"] as? String == id }
                .compactMap { $0["state"] as? String }
        }
        // What a viewer reads at every look: once there, a whole playlist.
        var seen: [String] = []
        func look() {
            guard let text = try? String(contentsOf: playlist, encoding: .utf8) else { return }
            if !text.hasPrefix("#EXTM3U") || !(text.hasSuffix("\n") || text.hasSuffix("#EXT-X-ENDLIST")) { seen.append(text) }
        }
        XCTAssertTrue(Ports.waitUntil(timeout: 60) {
            look()
            return (states("0").contains("reconnecting") && states("1").contains("reconnecting")) || !mp.isRunning
        }, "\(states("0")) \(states("1")) \(mp.stderr)")
        try FileManager.default.removeItem(at: filler)
        XCTAssertTrue(Ports.waitUntil(timeout: 60) {
            look()
            return (states("0").suffix(from: states("0").firstIndex(of: "reconnecting") ?? 0).contains("publishing")
                && states("1").suffix(from: states("1").firstIndex(of: "reconnecting") ?? 0).contains("publishing")) || !mp.isRunning
        }, "both start again once there is room: \(states("0")) \(states("1")) \(mp.stderr)")
        XCTAssertTrue(mp.stop(), mp.stderr)
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr)
        look()
        XCTAssertEqual(seen, [], "the playlist was never empty nor cut short")
        let text = try String(contentsOf: playlist, encoding: .utf8)
        // Ended (else ffmpeg would wait for more as from an endless playlist).
        guard text.hasSuffix("#EXT-X-ENDLIST") else { return XCTFail("the playlist is ended: \(text)") }
        XCTAssertEqual(try MediaProbe.decodeErrors(playlist.path), "", "the playlist's segments play: \(text)")
        // The segments of the first start went once the playlist listed the new ones (freeing the disk).
        let listed = Set(text.split(separator: "\n").filter { $0.hasSuffix(".ts") }.map(String.init))
        let onDisk = Set(try FileManager.default.contentsOfDirectory(atPath: playlist.deletingLastPathComponent().path).filter { $0.hasSuffix(".ts") })
        let stamps = Set(onDisk.map { String($0.dropFirst("index-".count).prefix(15)) })
        XCTAssertEqual(stamps.count, 1, "only the new start's segments remain: \(onDisk.sorted())")
        XCTAssertTrue(listed.isSubset(of: onDisk), "\(listed) \(onDisk)")
        let second = small.appendingPathComponent("rec-1.mp4")
        for file in [recording, second] {
            XCTAssertGreaterThan(try MediaProbe.probe(file.path).duration ?? 0, 0, file.lastPathComponent)
        }
    }
}

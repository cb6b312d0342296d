// The control socket and `mediapub ctl` (docs/control.md), driven from outside like a user would.

import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif
@testable import MediaPub

final class ControlSocketTests: XCTestCase {

    private func ctl(_ socket: String, _ words: [String]) throws -> (status: Int32, reply: [String: Any]) {
        let r = try CLI.run(["ctl", "--socket", socket] + words, timeout: 20)
        let reply = (try? JSONSerialization.jsonObject(with: r.stdoutData)) as? [String: Any]
        return (r.status, try XCTUnwrap(reply, r.summary("ctl \(words)")))
    }

    func testStatusCommandsAndQuitOverTheSocket() throws {
        let dir = try makeTempDir()
        let socket = dir.appendingPathComponent("c.sock").path
        let out = dir.appendingPathComponent("rec.mp4")
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(name: "ctltest", source: E2EPreset.testsrc, outputs: ["file://\(out.path)"]))
        let run = try startMediaPub(["--preset", preset.path, "--realtime", "--duration", "60s", "--control", socket, "--events", events.path])
        XCTAssertTrue(Ports.waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: socket) }, "socket appears")
        let mode = try FileManager.default.attributesOfItem(atPath: socket)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600, "socket mode")
        XCTAssertTrue(EventLog.waitFor(events, of: run) { $0["event"] as? String == "output.state" && $0["state"] as? String == "publishing" },
                      "the recording is publishing: \(run.stderr)")

        let status = try ctl(socket, ["status"])
        XCTAssertEqual(status.status, 0)
        let body = try XCTUnwrap(status.reply["status"] as? [String: Any])
        XCTAssertEqual(body["name"] as? String, "ctltest")
        XCTAssertEqual(body["state"] as? String, "running")
        XCTAssertEqual(body["publishing"] as? Bool, true)
        XCTAssertGreaterThan(body["uptime_ms"] as? Int ?? 0, 0)
        let player = try XCTUnwrap((body["players"] as? [[String: Any]])?.first)
        for key in ["id", "state", "source", "index", "position_ms", "duration_ms", "speed", "pitch",
                    "publish_volume", "play_volume", "aux", "repeat", "now_playing"] {
            XCTAssertNotNil(player[key], "player status has \(key): \(player)")
        }
        XCTAssertEqual(player["state"] as? String, "playing")
        let output = try XCTUnwrap((body["outputs"] as? [[String: Any]])?.first)
        for key in ["url", "state", "bytes_sent", "bitrate_kbps", "reconnects"] {
            XCTAssertNotNil(output[key], "output status has \(key): \(output)")
        }
        XCTAssertGreaterThan(output["bytes_sent"] as? Int ?? 0, 0)

        // A bad command is refused and changes nothing.
        let bad = try ctl(socket, ["volume", "main", "900"])
        XCTAssertEqual(bad.status, 1)
        XCTAssertEqual(bad.reply["ok"] as? Bool, false)
        XCTAssertTrue((bad.reply["error"] as? String ?? "").contains("900"), "\(bad.reply)")
        let unknown = try ctl(socket, ["nosuch"])
        XCTAssertEqual(unknown.reply["ok"] as? Bool, false)
        let noPlayer = try ctl(socket, ["pause", "ghost"])
        XCTAssertTrue((noPlayer.reply["error"] as? String ?? "").contains("ghost"), "\(noPlayer.reply)")
        let after = try XCTUnwrap(try ctl(socket, ["status"]).reply["status"] as? [String: Any])
        let afterPlayer = try XCTUnwrap((after["players"] as? [[String: Any]])?.first)
        XCTAssertEqual(afterPlayer["publish_volume"] as? Int, 100, "unchanged by the refused command")

        XCTAssertEqual(try ctl(socket, ["publish", "off"]).status, 0)
        XCTAssertEqual(try ctl(socket, ["volume", "main", "40"]).status, 0)
        let changed = try XCTUnwrap(try ctl(socket, ["status"]).reply["status"] as? [String: Any])
        XCTAssertEqual(changed["publishing"] as? Bool, false)
        XCTAssertEqual((changed["players"] as? [[String: Any]])?.first?["publish_volume"] as? Int, 40)

        XCTAssertEqual(try ctl(socket, ["quit"]).status, 0)
        XCTAssertTrue(run.waitForExit(timeout: 20), "quit stops the run")
        let r = run.result()
        XCTAssertEqual(r.status, 0, r.summary("mediapub after quit"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: socket), "socket removed at exit")
        let lines = try String(contentsOf: events, encoding: .utf8).split(separator: "\n")
        XCTAssertTrue(lines.contains { $0.contains("\"event\":\"publishing\"") && $0.contains("\"publishing\":false") }, "publishing event")
        try assertDecodesCleanly(out.path)
    }

    /// `ctl load PLAYER x.wav` with a relative path: the ctl's current directory, not the preset's folder.
    func testCtlLoadOfARelativePathMeansTheCurrentDirectory() throws {
        let dir = try makeTempDir()
        let here = dir.appendingPathComponent("here")
        try FileManager.default.createDirectory(at: here, withIntermediateDirectories: true)
        try TestMedia.makeAudio(in: here, name: "x.wav", seconds: 10, ext: "wav")
        let socket = dir.appendingPathComponent("c.sock").path
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: ["null://"]))
        let run = try startMediaPub(["--preset", preset.path, "--realtime", "--duration", "30s", "--control", socket])
        XCTAssertTrue(Ports.waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: socket) }, "socket appears")

        let load = try CLI.run(["ctl", "--socket", socket, "load", "main", "./x.wav"], cwd: here, timeout: 20)
        XCTAssertEqual(load.status, 0, load.summary("ctl load"))
        let wanted = here.appendingPathComponent("x.wav").path
        var source = ""
        XCTAssertTrue(Ports.waitUntil(timeout: 10) {
            let status = try? ctl(socket, ["status"]).reply["status"] as? [String: Any]
            source = (status?["players"] as? [[String: Any]])?.first?["source"] as? String ?? ""
            return source == wanted
        }, "the player plays \(wanted), not \(source)")
        run.terminate(SIGTERM)
        XCTAssertTrue(run.waitForExit(timeout: 15))
    }

    func testCtlWithoutARunningInstanceFailsClearly() throws {
        let path = "/tmp/no-such-mediapub-\(UUID().uuidString).sock"
        let r = try CLI.run(["ctl", "--socket", path, "status"], timeout: 10)
        XCTAssertEqual(r.status, 1, r.summary("ctl"))
        XCTAssertTrue(r.stderr.contains("no-such-mediapub"), r.stderr)
        XCTAssertEqual(r.stderr.components(separatedBy: path).count - 1, 1, "the path once: \(r.stderr)")
        XCTAssertTrue(r.stderr.contains("(is mediapub running?)"), r.stderr)

        // A path no Unix socket can have: said so, without guessing that nothing runs.
        let long = "/tmp/" + String(repeating: "x", count: 200) + ".sock"
        let tooLong = try CLI.run(["ctl", "--socket", long, "status"], timeout: 10)
        XCTAssertEqual(tooLong.status, 1, tooLong.summary("ctl"))
        XCTAssertTrue(tooLong.stderr.contains("too long"), tooLong.stderr)
        XCTAssertEqual(tooLong.stderr.components(separatedBy: long).count - 1, 1, "the path once: \(tooLong.stderr)")
        XCTAssertFalse(tooLong.stderr.contains("is mediapub running"), tooLong.stderr)
    }
}

final class ControlSocketDiscoveryTests: XCTestCase {
    /// `ctl` without `--socket` finds the one instance at the default path, by the rules the run uses.
    func testCtlFindsTheDefaultSocketOfTheOneRunningInstance() throws {
        let runtime = try makeTempDir()
        let env = ["XDG_RUNTIME_DIR": runtime.path]
        let preset = try writeFile(runtime, "t.yaml", E2EPreset.basic(name: "found", source: E2EPreset.testsrc, outputs: ["null://"]))
        let run = try startMediaPub(["--preset", preset.path, "--realtime", "--duration", "20s"], env: env)
        let socket = runtime.appendingPathComponent("mediapub/found.sock").path
        XCTAssertEqual(ControlServer.defaultPath(name: "found", environment: env), socket)
        XCTAssertTrue(Ports.waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: socket) }, "socket appears")
        XCTAssertEqual(try ControlServer.discover(environment: env), socket)

        let status = try CLI.run(["ctl", "status"], env: env, timeout: 10)
        XCTAssertEqual(status.status, 0, status.summary("ctl status"))
        XCTAssertTrue(status.stdout.contains("\"name\":\"found\""), status.stdout)

        // A socket left by a crashed run (bound, never removed, nobody answers) is passed over.
        let stale = runtime.appendingPathComponent("mediapub/crashed.sock").path
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            let bytes = Array(stale.utf8)
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        close(fd)
        XCTAssertEqual(bound, 0, "stale socket made")
        XCTAssertTrue(FileManager.default.fileExists(atPath: stale))
        XCTAssertEqual(try ControlServer.discover(environment: env), socket, "the one that answers")
        let again = try CLI.run(["ctl", "status"], env: env, timeout: 10)
        XCTAssertEqual(again.status, 0, again.summary("ctl status beside a stale socket"))

        let none = try CLI.run(["ctl", "status"], env: ["XDG_RUNTIME_DIR": try makeTempDir().path], timeout: 10)
        XCTAssertEqual(none.status, 2, none.summary("ctl status, nothing running"))
        XCTAssertTrue(none.stderr.contains("no running instance found; give --socket PATH"), none.stderr)
        run.terminate(SIGTERM)
        XCTAssertTrue(run.waitForExit(timeout: 15))

        // An empty XDG_RUNTIME_DIR counts as unset, for the run and for ctl alike.
        XCTAssertEqual(ControlServer.defaultPath(name: "n", environment: ["XDG_RUNTIME_DIR": ""]), "/tmp/mediapub-n.sock")
    }
}

final class ControlSocketOwnershipTests: XCTestCase {
    /// A second instance never takes over the control socket of a running one: it
    /// does not start (exit 2), so that no instance runs without its control socket.
    func testSecondInstanceLeavesARunningInstancesSocketAlone() throws {
        let dir = try makeTempDir()
        let socket = dir.appendingPathComponent("c.sock").path
        let first = try writeFile(dir, "a.yaml", E2EPreset.basic(name: "owner", source: E2EPreset.testsrc, outputs: ["null://"]))
        let events = dir.appendingPathComponent("events.jsonl")
        let run = try startMediaPub(["--preset", first.path, "--realtime", "--duration", "20s", "--control", socket,
                                     "--events", events.path])
        XCTAssertTrue(Ports.waitUntil(timeout: 10) {
            ((try? EventLog.read(events)) ?? []).contains { $0["event"] as? String == "run.state" && $0["state"] as? String == "running" }
        }, "the first instance runs")
        let recording = dir.appendingPathComponent("second.mp4")
        let second = try CLI.run(["--preset", first.path, "--no-realtime", "--duration", "1s", "--control", socket,
                                  "--output", recording.path], timeout: 30)
        XCTAssertEqual(second.status, 2, second.summary("second instance"))
        XCTAssertEqual(second.stderr, "mediapub: error: control socket \(socket): in use by another running instance (give this one --control PATH, or use --lock)\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: recording.path), "nothing started")
        let status = try CLI.run(["ctl", "--socket", socket, "status"], timeout: 10)
        XCTAssertEqual(status.status, 0, status.summary("ctl status"))
        XCTAssertTrue(status.stdout.contains("\"name\":\"owner\""), "the first instance still answers: \(status.stdout)")
        XCTAssertTrue(status.stdout.contains("\"state\":\"running\""), status.stdout)
        run.terminate(SIGTERM)
        XCTAssertTrue(run.waitForExit(timeout: 15))
    }
}

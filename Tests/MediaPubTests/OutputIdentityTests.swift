// docs/presets.md, Outputs; docs/status.md, `outputs[]`: each output has a stable id (`id:`, else its index) used in
// status, events, metrics and `ctl reconnect`; a recording shows the file it
// writes, not its strftime pattern; a recovered output shows no stale error.

import Foundation
import XCTest
@testable import MediaPub

final class OutputIdentityTests: XCTestCase {

    private func ctl(_ socket: String, _ words: [String]) throws -> [String: Any] {
        let r = try CLI.run(["ctl", "--socket", socket] + words, timeout: 20)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.summary("ctl"))
    }

    private func outputEvents(_ events: URL, _ id: String) -> [String] {
        ((try? EventLog.read(events)) ?? [])
            .filter { $0["event"] as? String == "output.state" && $0["output"] as? String == id }
            .compactMap { $0["state"] as? String }
    }

    func testOutputsThatDifferOnlyByKeyAreToldApartEverywhere() throws {
        let dir = try makeTempDir()
        let rtmp = try startRTMPServer()
        let metricsPort = try Ports.free()
        let socket = dir.appendingPathComponent("c.sock").path
        let events = dir.appendingPathComponent("events.jsonl")
        var yaml = E2EPreset.basic(source: E2EPreset.testsrc, outputs: [])
        yaml += """
          - id: main
            url: "\(rtmp.url(key: "keyAAA111"))"
          - url: "\(rtmp.url(key: "keyBBB222"))"
          - url: "\(dir.path)/rec-%Y%m%d-%H%M%S.mkv"

        """
        let preset = try writeFile(dir, "t.yaml", yaml)
        let mp = try startMediaPub(["--preset", preset.path, "--realtime", "--control", socket, "--events", events.path,
                                    "--metrics", "127.0.0.1:\(metricsPort)"])
        XCTAssertTrue(Ports.waitUntil(timeout: 30) {
            !mp.isRunning || (outputEvents(events, "main").contains("publishing") && outputEvents(events, "1").contains("publishing"))
        }, "both RTMP outputs publishing: \(mp.stderr)")

        let status = try XCTUnwrap(try ctl(socket, ["status"])["status"] as? [String: Any])
        let outputs = try XCTUnwrap(status["outputs"] as? [[String: Any]])
        XCTAssertEqual(outputs.compactMap { $0["id"] as? String }, ["main", "1", "2"])
        let masked = "rtmp://127.0.0.1:\(rtmp.port)/live/****"
        XCTAssertEqual(outputs.prefix(2).compactMap { $0["url"] as? String }, [masked, masked])
        let file = try XCTUnwrap(outputs.last?["url"] as? String)
        XCTAssertFalse(file.contains("%"), "the file being written, not the pattern: \(file)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: String(file.dropFirst("file://".count))), file)

        let scrape = try Proc.run(try Tools.path("python3"), ["-c",
            "import urllib.request,sys; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())",
            "http://127.0.0.1:\(metricsPort)/metrics"], timeout: 15)
        let series = scrape.stdout.split(separator: "\n").filter { $0.hasPrefix("mediapub_output_bytes_sent_total{") }
            .map { $0.split(separator: " ").first.map(String.init) ?? "" }
        XCTAssertEqual(series.count, 3, scrape.stdout)
        XCTAssertEqual(Set(series).count, 3, "no duplicate series: \(series)")
        XCTAssertTrue(series.contains("mediapub_output_bytes_sent_total{output=\"main\",url=\"\(masked)\"}"), "\(series)")

        // ctl reconnect by id: only that output goes round again.
        XCTAssertEqual(try ctl(socket, ["reconnect", "main"])["ok"] as? Bool, true)
        XCTAssertTrue(Ports.waitUntil(timeout: 30) { outputEvents(events, "main").filter { $0 == "publishing" }.count >= 2 || !mp.isRunning },
                      "\(outputEvents(events, "main"))")
        XCTAssertEqual(outputEvents(events, "1").filter { $0 == "publishing" }.count, 1)
        XCTAssertEqual(Array(outputEvents(events, "main").suffix(3)), ["publishing", "reconnecting", "publishing"],
                       "the reconnect asked for is an event too")
        let unknown = try ctl(socket, ["reconnect", "nope"])
        XCTAssertEqual(unknown["ok"] as? Bool, false)
        XCTAssertEqual(unknown["error"] as? String, "reconnect: no output nope (main, 1, 2, an index or a masked URL)")

        // A command word that is an object is refused in words, not echoed as a Swift dictionary.
        let raw = try TestSocket.unix(socket)
        XCTAssertTrue(raw.send("{\"command\":[\"publish\",{\"a\":1}]}\n"))
        let reply = try XCTUnwrap(raw.readLine(timeout: 10))
        XCTAssertEqual(reply, "{\"error\":\"command words are strings or numbers, not an object\",\"ok\":false}")

        mp.terminate()
        XCTAssertTrue(mp.waitForExit(timeout: 20))
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr)
        XCTAssertFalse(mp.stderr.contains("keyAAA111") || mp.stderr.contains("keyBBB222"), mp.stderr)
        XCTAssertTrue(mp.stderr.contains("output main (\(masked)): publishing"), mp.stderr)
        _ = try assertH264AAC(String(file.dropFirst("file://".count)))
    }

    func testARecoveredOutputShowsNoStaleError() throws {
        let dir = try makeTempDir()
        let port = try Ports.free()
        let socket = dir.appendingPathComponent("c.sock").path
        let events = dir.appendingPathComponent("events.jsonl")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: ["rtmp://127.0.0.1:\(port)/live/k1"],
                                                                  extra: "reconnect: {initial: 200ms, max: 500ms, give_up_after: 1m}"))
        let mp = try startMediaPub(["--preset", preset.path, "--realtime", "--control", socket, "--events", events.path])
        // Nothing listens yet: the output fails and says why.
        XCTAssertTrue(Ports.waitUntil(timeout: 30) { outputEvents(events, "0").contains("reconnecting") || !mp.isRunning }, mp.stderr)
        let failing = try XCTUnwrap((try ctl(socket, ["status"])["status"] as? [String: Any])?["outputs"] as? [[String: Any]])
        XCTAssertNotNil(failing.first?["error"], "\(failing)")
        let server = try RTMPServer(port: port)   // the server comes up where the output keeps calling
        addTeardownBlock { server.stop() }
        XCTAssertTrue(Ports.waitUntil(timeout: 30) { outputEvents(events, "0").contains("publishing") || !mp.isRunning }, mp.stderr)
        let recovered = try XCTUnwrap((try ctl(socket, ["status"])["status"] as? [String: Any])?["outputs"] as? [[String: Any]])
        XCTAssertEqual(recovered.first?["state"] as? String, "publishing")
        XCTAssertNil(recovered.first?["error"], "a publishing output shows no old error: \(recovered)")
        mp.terminate()
        XCTAssertTrue(mp.waitForExit(timeout: 20))
    }
}

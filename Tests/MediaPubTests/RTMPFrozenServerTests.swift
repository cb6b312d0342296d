// docs/status.md, docs/presets.md (`reconnect.stall`): an RTMP output is publishing while
// the server's application reads what it is sent, not only while its kernel takes it in.
// nginx-rtmp frozen with SIGSTOP is noticed at a low bitrate (where its receive buffer
// goes on filling for minutes) as at a high one; neither is called stalled while it
// reads; and the counters status and /metrics show agree (`bytes_acked` ≤ `bytes_sent`,
// 0 and 0 for an output that never connected).

import Foundation
import XCTest
@testable import MediaPub
#if canImport(Glibc)
import Glibc
#endif

final class RTMPFrozenServerTests: XCTestCase {

    /// One run publishing to its own nginx at one bitrate.
    private struct Run {
        let label: String
        let server: RTMPServer
        let process: RunningProcess
        let events: URL
        let socket: String

        /// Its output 0's output.state events.
        var states: [[String: Any]] {
            ((try? EventLog.read(events)) ?? []).filter { $0["event"] as? String == "output.state" && $0["output"] as? String == "0" }
        }

        /// The player's last position (player.progress), in seconds.
        var position: Double {
            let last = ((try? EventLog.read(events)) ?? []).last { $0["event"] as? String == "player.progress" }
            return Double(last?["position_ms"] as? Int ?? 0) / 1000
        }
    }

    private let stall: TimeInterval = 3
    /// Media played while both servers read: ten times `stall`, the fast run past some
    /// four of nginx-rtmp's own acknowledgements (one each 5 MB), the slow run none
    /// (its TCP window alone tells that nginx reads).
    private let healthy: Double = 30

    private func start(_ label: String, videoBitrate: String, audioBitrate: String, extraOutputs: [String] = [],
                       metricsPort: UInt16? = nil, in dir: URL) throws -> Run {
        let server = try startRTMPServer()
        addTeardownBlock { kill(server.process.pid, SIGCONT) }   // never left frozen
        let events = dir.appendingPathComponent("\(label).jsonl")
        let socket = dir.appendingPathComponent("\(label).sock").path
        var yaml = E2EPreset.basic(name: label, source: "testsrc:?pattern=snow&freq=440",
                                   outputs: [server.url(key: "\(label)Key")] + extraOutputs,
                                   extra: "reconnect: {initial: 500ms, max: 1s, give_up_after: never, stall: \(Int(stall))s}")
        yaml = yaml.replacingOccurrences(of: "bitrate: 800k", with: "bitrate: \(videoBitrate)")
            .replacingOccurrences(of: "bitrate: 96k", with: "bitrate: \(audioBitrate)")
        let preset = try writeFile(dir, "\(label).yaml", yaml)
        var args = ["--preset", preset.path, "--realtime", "--events", events.path, "--control", socket]
        if let metricsPort { args += ["--metrics", "127.0.0.1:\(metricsPort)"] }
        let process = try startMediaPub(args)
        return Run(label: label, server: server, process: process, events: events, socket: socket)
    }

    /// `ctl status`'s outputs.
    private func outputs(_ run: Run) throws -> [[String: Any]] {
        let r = try CLI.run(["ctl", "--socket", run.socket, "status"], timeout: 20)
        let reply = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.summary("ctl"))
        return try XCTUnwrap((reply["status"] as? [String: Any])?["outputs"] as? [[String: Any]], r.stdout)
    }

    /// One scrape of /metrics: the values of `names`, each by output id.
    private func metrics(_ names: [String], port: UInt16) throws -> [String: [String: Double]] {
        let scrape = try Proc.run(try Tools.path("python3"), ["-c",
            "import urllib.request,sys; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())",
            "http://127.0.0.1:\(port)/metrics"], timeout: 15)
        var values: [String: [String: Double]] = [:]
        for name in names {
            for line in scrape.stdout.split(separator: "\n") where line.hasPrefix(name + "{") {
                guard let id = line.split(separator: "\"").dropFirst().first,
                      let value = line.split(separator: " ").last.flatMap({ Double($0) }) else { continue }
                values[name, default: [:]][String(id)] = value
            }
        }
        return values
    }

    /// Frozen at 100 kb/s and at 6 Mb/s, each noticed within `reconnect.stall` + 5 s
    /// (reconnecting, its error saying it stalled); over the `healthy` 30 s of media before,
    /// while both servers read, neither was ever called stalled, and every look at the
    /// counters found `bytes_acked` ≤ `bytes_sent`, and 0 and 0 for an output to a port
    /// where nothing listens. (Both runs at once: one stretch of health serves both.)
    func testAFrozenServerIsNoticedAtAnyBitrateAndAReadingOneNever() throws {
        let dir = try makeTempDir()
        let metricsPort = try Ports.free()
        let closed = "rtmp://127.0.0.1:\(try Ports.free())/live/nobodyKey"
        let slow = try start("slow", videoBitrate: "100k", audioBitrate: "32k", extraOutputs: [closed], metricsPort: metricsPort, in: dir)
        let fast = try start("fast", videoBitrate: "6000k", audioBitrate: "128k", in: dir)
        let runs = [slow, fast]
        for run in runs {
            XCTAssertTrue(EventLog.waitFor(run.events, of: run.process) {
                $0["event"] as? String == "output.state" && $0["output"] as? String == "0" && $0["state"] as? String == "publishing"
            }, "\(run.label) publishing: \(run.states) \(run.process.stderr)")
        }

        // 30 s of media while both servers read: the counters looked at as often as the events come.
        let healthyFrom = runs.map(\.position)
        var looks = 0
        var problems: [String] = []
        XCTAssertTrue(Ports.waitUntil(timeout: 120, watching: slow.events) {
            for run in runs {
                for output in (try? outputs(run)) ?? [] {
                    let id = output["id"] as? String ?? "?"
                    let sent = output["bytes_sent"] as? Int ?? -1
                    let acked = output["bytes_acked"] as? Int ?? 0
                    if acked > sent { problems.append("\(run.label) \(id): acked \(acked) > sent \(sent)") }
                    if id == "1", sent != 0 || acked != 0 { problems.append("never connected, yet sent \(sent), acked \(acked)") }
                }
            }
            if looks % 10 == 0,
               let scrape = try? metrics(["mediapub_output_bytes_sent_total", "mediapub_output_bytes_acked_total"], port: metricsPort),
               let sent = scrape["mediapub_output_bytes_sent_total"], let acked = scrape["mediapub_output_bytes_acked_total"] {
                for (id, value) in acked where value > sent[id] ?? -1 { problems.append("/metrics \(id): acked \(value) > sent \(sent[id] ?? -1)") }
                if sent["1"] != 0 || (acked["1"] ?? 0) != 0 { problems.append("/metrics: never connected, yet \(sent) \(acked)") }
            }
            looks += 1
            return zip(runs, healthyFrom).allSatisfy { $0.position >= $1 + healthy } || runs.contains { !$0.process.isRunning }
        }, "\(healthy) s of media: \(runs.map(\.position))")
        print("\(looks) looks over \(healthy) s of media")
        XCTAssertEqual(problems, [], "over \(looks) looks")
        XCTAssertGreaterThan(looks, 20)
        for run in runs {
            XCTAssertEqual(run.states.compactMap { $0["state"] as? String }, ["publishing"],
                           "\(run.label): never stalled while its server reads: \(run.states)")
            let live = try XCTUnwrap(try outputs(run).first)
            XCTAssertGreaterThan(live["bytes_acked"] as? Int ?? 0, 0, "\(live)")
        }

        // Frozen: each run notices its own server.
        let frozenAt = Date()
        for run in runs { kill(run.server.process.pid, SIGSTOP) }
        for run in runs {
            XCTAssertTrue(EventLog.waitFor(run.events, of: run.process, timeout: stall + 30) {
                $0["event"] as? String == "output.state" && $0["output"] as? String == "0" && $0["state"] as? String == "reconnecting"
            }, "\(run.label): the frozen server is noticed: \(run.states) \(run.process.stderr)")
            let noticed = try XCTUnwrap(run.states.first { $0["state"] as? String == "reconnecting" })
            XCTAssertTrue((noticed["error"] as? String)?.hasPrefix("stalled") == true, "\(run.label): \(noticed)")
            let after = try XCTUnwrap(EventLog.time(noticed)).timeIntervalSince(frozenAt)
            print("\(run.label): noticed \(after) s after the freeze")
            XCTAssertLessThanOrEqual(after, stall + 5, "\(run.label): noticed \(after) s after the freeze")
        }
        for run in runs {
            kill(run.server.process.pid, SIGCONT)
            run.process.terminate()
        }
        for run in runs {
            XCTAssertTrue(run.process.waitForExit(timeout: 20), run.label)
            XCTAssertEqual(run.process.exitStatus, 0, run.process.stderr)
        }
    }
}

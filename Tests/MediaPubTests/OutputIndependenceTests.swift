// Each output fails and reconnects on its own (docs/design.md, the frame's path): a dead RTMP
// server never stalls the recording, and a server that comes up later is reached.

import Foundation
import XCTest
@testable import MediaPub

final class OutputIndependenceTests: XCTestCase {

    /// A dead RTMP server, and an output whose sink is not installed, each its own run,
    /// folder and control socket, at once: both runs are realtime. The missing sink's run
    /// is started, the dead server's followed through, then the missing sink's checked:
    /// each as its own test did.
    func testDeadRTMPServerNeverStallsTheRecordingAndAnOutputWhoseSinkIsNotInstalledFailsForGood() throws {
        let missing = try anOutputWhoseSinkIsNotInstalledFailsForGoodAndTheRecordingGoesOn()
        try deadRTMPServerNeverStallsTheRecordingAndIsReachedOnceItComesUp()
        try missing()
    }

    private func deadRTMPServerNeverStallsTheRecordingAndIsReachedOnceItComesUp() throws {
        let dir = try makeTempDir("deadrtmp")
        let out = dir.appendingPathComponent("rec.mp4")
        let port = try Ports.free()
        let key = "indepKey93xq"
        let rtmp = "rtmp://127.0.0.1:\(port)/live/\(key)"
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: [rtmp, "file://\(out.path)"],
                                                                  extra: "reconnect: { initial: 500ms, max: 1s, give_up_after: 1m }"))
        let events = dir.appendingPathComponent("events.jsonl")
        let run = try startMediaPub(["--preset", preset.path, "--realtime", "--duration", "9s", "--events", events.path])

        // Nothing listens at first (the output says it is reconnecting); then the server comes up on that port.
        XCTAssertTrue(EventLog.waitFor(events, of: run, timeout: 20, EventLog.outputState("reconnecting", output: "0")), run.stderr)
        let server = try RTMPServer(port: port)
        addTeardownBlock { server.stop() }
        XCTAssertTrue(EventLog.waitFor(events, of: run, timeout: 20, EventLog.outputState("publishing", output: "0")), run.stderr)
        let viewer = try MediaProbe.probe(rtmp, inputOptions: ["-rw_timeout", "4000000"], timeout: 15)
        XCTAssertNotNil(viewer.video, "the RTMP output reconnected: \(viewer.rawJSON)")

        XCTAssertTrue(run.waitForExit(timeout: 30), "mediapub finishes on time")
        let r = run.result()
        XCTAssertEqual(r.status, 0, r.summary("mediapub"))
        let said = try EventLog.read(events)
        let recording = said.filter { $0["event"] as? String == "output.state" && $0["output"] as? String == "1" }.compactMap { $0["state"] as? String }
        XCTAssertTrue(recording.contains("publishing"), "the recording published: \(said)")
        XCTAssertFalse(recording.contains("reconnecting") || recording.contains("failed"), "the recording never stopped: \(said)")
        let eventText = try String(contentsOf: events, encoding: .utf8)
        XCTAssertFalse(r.stderr.contains(key) || r.stdout.contains(key) || eventText.contains(key), "stream key leaked: \(r.stderr)")

        let p = try assertH264AAC(out.path)
        XCTAssertEqual(p.duration ?? 0, 9, accuracy: 0.3, "the recording ran the whole time")
        try assertDecodesCleanly(out.path)
    }

    // MARK: an element that is not installed

    func testAMissingElementIsNamedWithItsPackageAndNotTheDescription() throws {
        let secret = "keyQ81zz"
        XCTAssertThrowsError(try Pipeline(description: "fakesrc name=a1b2 ! nosuchthing_q7 location=rtmp://h/app/\(secret) ! fakesink")) { error in
            XCTAssertEqual(error as? MediaPubError, .missingElement("nosuchthing_q7", "the GStreamer plugin that provides it"))
            XCTAssertFalse("\(error)".contains("a1b2") || "\(error)".contains(secret), "\(error)")
        }
        XCTAssertEqual(GStreamer.missing("rtmp2sink"), .missingElement("rtmp2sink", "gstreamer1.0-plugins-bad"))
        XCTAssertEqual(GStreamer.missing("mp4mux"), .missingElement("mp4mux", "gstreamer1.0-plugins-good"))
        XCTAssertEqual(GStreamer.missing("x264enc"), .missingElement("x264enc", "gstreamer1.0-plugins-ugly"))
        XCTAssertEqual(GStreamer.missing("avenc_aac"), .missingElement("avenc_aac", "gstreamer1.0-libav"))

        let pipeline = try Pipeline(description: "fakesrc ! fakesink")
        XCTAssertThrowsError(try pipeline.addBin(description: "queue name=c3d4 ! pitch_nosuch_q8")) { error in
            XCTAssertEqual(error as? MediaPubError, .missingElement("pitch_nosuch_q8", "the GStreamer plugin that provides it"))
        }
        // Other parse errors keep GStreamer's reason, without the description.
        XCTAssertThrowsError(try pipeline.addBin(description: "queue name=e5f6 ! ! fakesink")) { error in
            XCTAssertTrue("\(error)".hasPrefix("cannot build pipeline branch: "), "\(error)")
            XCTAssertFalse("\(error)".contains("e5f6"), "\(error)")
        }
    }

    func testABufferIsMadeWithItsTimestamps() throws {
        GStreamer.initialize()
        let bytes: [UInt8] = [1, 2, 3, 4]
        let ns = { (n: UInt64) in ClockTime(nanoseconds: n) }
        let buffer = bytes.withUnsafeBytes { Buffer(copying: $0, pts: ns(40_000_000), duration: ns(20_000_000)) }
        XCTAssertEqual(buffer.pts, ns(40_000_000))
        XCTAssertEqual(try buffer.map { Array($0) }, bytes)
        XCTAssertEqual(buffer.retimed(pts: ns(60_000_000), duration: nil).pts, ns(60_000_000))
        XCTAssertEqual(buffer.pts, ns(40_000_000), "retimed leaves the original alone")
    }

    /// GStreamer with every installed plugin but the one that holds `element`:
    /// the environment for a child process (no plugin is uninstalled).
    private func gstreamerWithout(_ element: String, in dir: URL) throws -> [String: String] {
        let inspect = try Proc.check(try Tools.path("gst-inspect-1.0"), [element])
        let line = try XCTUnwrap(inspect.stdout.split(separator: "\n").first { $0.contains("Filename") }, inspect.stdout)
        let file = URL(fileURLWithPath: String(line.split(separator: " ", omittingEmptySubsequences: true).last!))
        let plugins = dir.appendingPathComponent("plugins")
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path)
        where name.hasSuffix(".so") && name != file.lastPathComponent {
            try FileManager.default.createSymbolicLink(at: plugins.appendingPathComponent(name),
                                                       withDestinationURL: file.deletingLastPathComponent().appendingPathComponent(name))
        }
        return ["GST_PLUGIN_SYSTEM_PATH_1_0": plugins.path, "GST_PLUGIN_PATH_1_0": "", "GST_PLUGIN_PATH": "",
                "GST_REGISTRY_1_0": dir.appendingPathComponent("registry.bin").path]
    }

    /// Its run is started; returned: the checks once it has ended.
    private func anOutputWhoseSinkIsNotInstalledFailsForGoodAndTheRecordingGoesOn() throws -> () throws -> Void {
        let dir = try makeTempDir("missingsink")
        let env = try gstreamerWithout("rtmp2sink", in: dir)
        let out = dir.appendingPathComponent("rec.mp4")
        let events = dir.appendingPathComponent("events.jsonl")
        let rtmp = "rtmp://127.0.0.1:\(try Ports.free())/live/missingKey42"
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: [rtmp, "file://\(out.path)"],
                                                                  extra: "reconnect: { initial: 200ms, max: 500ms, give_up_after: 1m }"))
        let run = try startMediaPub(["--preset", preset.path, "--realtime", "--duration", "3s", "--events", events.path,
                                     "--control", dir.appendingPathComponent("c.sock").path], env: env)
        return { [self] in
            let exited = run.waitForExit(timeout: 90)
            let r = run.result(timedOut: !exited)
            XCTAssertEqual(r.status, 0, r.summary("mediapub"))
            XCTAssertTrue(r.stderr.contains("rtmp2sink") && r.stderr.contains("gstreamer1.0-plugins-bad"), r.stderr)
            XCTAssertFalse(r.stderr.contains("reconnecting"), "no retry brings a missing element: \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("missingKey42"), r.stderr)
            let states = try String(contentsOf: events, encoding: .utf8).split(separator: "\n")
                .compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                .filter { $0["event"] as? String == "output.state" && ($0["url"] as? String ?? "").hasPrefix("rtmp:") }
                .compactMap { $0["state"] as? String }
            XCTAssertEqual(states, ["failed"], "failed at once, and reported once (not again when the run stops)")
            let p = try assertH264AAC(out.path)
            XCTAssertEqual(p.duration ?? 0, 3, accuracy: 0.3, "the recording ran the whole time")
        }
    }
}

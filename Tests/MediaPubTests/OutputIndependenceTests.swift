// Each output fails and reconnects on its own (SPEC §1, §8): a dead RTMP
// server never stalls the recording, and a server that comes up later is reached.

import Foundation
import XCTest

final class OutputIndependenceTests: XCTestCase {

    func testDeadRTMPServerNeverStallsTheRecordingAndIsReachedOnceItComesUp() throws {
        let dir = try makeTempDir()
        let out = dir.appendingPathComponent("rec.mp4")
        let port = try Ports.free()
        let key = "indepKey93xq"
        let rtmp = "rtmp://127.0.0.1:\(port)/live/\(key)"
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: [rtmp, "file://\(out.path)"],
                                                                  extra: "reconnect: { initial: 500ms, max: 1s, give_up_after: 1m }"))
        let run = try startMediaPub(["--preset", preset.path, "--realtime", "--duration", "9s"])

        // Nothing listens for the first seconds; then the server comes up on that port.
        Thread.sleep(forTimeInterval: 2.5)
        let server = try RTMPServer(port: port)
        addTeardownBlock { server.stop() }
        Thread.sleep(forTimeInterval: 2.5)
        let viewer = try MediaProbe.probe(rtmp, inputOptions: ["-rw_timeout", "4000000"], timeout: 15)
        XCTAssertNotNil(viewer.video, "the RTMP output reconnected: \(viewer.rawJSON)")

        XCTAssertTrue(run.waitForExit(timeout: 30), "mediapub finishes on time")
        let r = run.result()
        XCTAssertEqual(r.status, 0, r.summary("mediapub"))
        XCTAssertTrue(r.stderr.contains("reconnecting"), r.stderr)
        XCTAssertFalse(r.stderr.contains(key) || r.stdout.contains(key), "stream key leaked: \(r.stderr)")

        let p = try assertH264AAC(out.path)
        XCTAssertEqual(p.duration ?? 0, 9, accuracy: 0.3, "the recording ran the whole time")
        try assertDecodesCleanly(out.path)
    }
}

// RTMP output (SPEC §5) into a real nginx-rtmp on loopback.

import Foundation
import XCTest

final class RTMPOutputTests: XCTestCase {

    func testTestsrcPublishesH264AndAACToNginxRTMP() throws {
        let dir = try makeTempDir()
        let rtmp = try startRTMPServer()
        let key = "mpkey7Qz91secret"   // distinctive, so a leak is detectable
        let url = rtmp.url(key: key)
        let preset = try writeFile(dir, "live.yaml", E2EPreset.basic(source: E2EPreset.testsrc))

        let mp = try startMediaPub(["--preset", preset.path, "--output", url, "--realtime",
                                    "--duration", "8s", "--log-level", "debug"])

        // A viewer joins mid-stream and records 4 s.
        sleep(1)
        let recording = dir.appendingPathComponent("viewer.flv")
        let viewer = try startTool("ffmpeg", ["-nostdin", "-hide_banner", "-v", "error", "-y",
                                              "-rw_timeout", "5000000", "-i", url, "-t", "4", "-c", "copy", recording.path])
        sleep(1)
        let p = try MediaProbe.probe(url, inputOptions: ["-rw_timeout", "5000000"], timeout: 20)
        XCTAssertEqual(p.video?.codecName, "h264", "live stream streams: \(p.rawJSON)\n\(mp.stderr)")
        XCTAssertEqual(p.audio?.codecName, "aac", "live stream streams: \(p.rawJSON)")
        XCTAssertEqual(p.video?.width, 640)
        XCTAssertEqual(p.video?.height, 360)

        XCTAssertTrue(viewer.waitForExit(timeout: 20), "viewer recording did not finish")
        XCTAssertTrue(mp.waitForExit(timeout: 20), "mediapub did not stop after --duration 8s")
        XCTAssertFalse(mp.exitedBySignal, "mediapub crashed: \(mp.stderr)")
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr)

        let rec = try assertH264AAC(recording.path)
        XCTAssertEqual(rec.duration ?? 0, 4, accuracy: 1.0, "viewer got a continuous stream: \(rec.rawJSON)")
        let errors = try MediaProbe.decodeErrors(recording.path)
        XCTAssertEqual(MediaProbe.errorsAfterStart(errors), [], "a viewer joining mid-stream decodes it:\n\(errors)")
        let pcm = try MediaProbe.decodePCM(recording.path)
        XCTAssertEqual(MediaProbe.dominantFrequency(pcm, rate: 16000) ?? 0, 440, accuracy: 10, "testsrc tone")

        XCTAssertFalse(mp.stderr.contains(key), "stream key leaked on stderr:\n\(mp.stderr)")
        XCTAssertFalse(mp.stdout.contains(key), "stream key leaked on stdout:\n\(mp.stdout)")
    }
}

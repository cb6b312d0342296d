// Self-checks of the test harness, with ffmpeg and gst-launch-1.0 standing in
// for mediapub. They prove on CI that nginx-rtmp, srt-live-transmit, the HTTP
// server, the process runner and the media analysis work, so a failing
// product test points at the product, not at the harness.

import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class HarnessTests: XCTestCase {

    // MARK: process runner and binary location

    func testProcessRunnerCapturesStatusOutputAndTimeout() throws {
        let r = try Proc.run("sh", ["-c", "echo out; echo err >&2; exit 3"], timeout: 10)
        XCTAssertEqual(r.status, 3)
        XCTAssertFalse(r.timedOut)
        XCTAssertEqual(r.stdout, "out\n")
        XCTAssertEqual(r.stderr, "err\n")

        let slow = try Proc.run("sleep", ["30"], timeout: 0.5)
        XCTAssertTrue(slow.timedOut, "a process over its time bound is killed")
        XCTAssertTrue(slow.signaled)

        // A signal reaches the child, and the child's own exit status is reported.
        let p = try startTool("sh", ["-c", "trap 'kill $!; exit 7' TERM; echo trapped; tail -f /dev/null & wait $!"])
        XCTAssertTrue(Ports.waitUntil(timeout: 10) { p.stdout.contains("trapped") }, "the child set its trap")
        XCTAssertTrue(p.isRunning)
        p.terminate(SIGTERM)
        XCTAssertTrue(p.waitForExit(timeout: 5))
        XCTAssertFalse(p.exitedBySignal)
        XCTAssertEqual(p.exitStatus, 7)

        let env = try Proc.run("sh", ["-c", "echo \"${MP_A:-unset}/${HOME:+home}\""],
                               env: Proc.environment(set: ["MP_A": "a"], unset: ["HOME"]), timeout: 10)
        XCTAssertEqual(env.stdout, "a/\n")
    }

    func testBinaryLocationDefaultsToPackageBuildDir() throws {
        let root = CLI.packageRoot
        XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path),
                      "package root \(root.path) must hold Package.swift")
        if let env = ProcessInfo.processInfo.environment["MEDIAPUB_BIN"], !env.isEmpty {
            XCTAssertEqual(CLI.binaryPath, env)
        } else {
            XCTAssertEqual(CLI.binaryPath, root.appendingPathComponent(".build/debug/mediapub").path)
        }
    }

    func testFreePortsAreDistinctAndBindable() throws {
        let ports = try (0..<5).map { _ in try Ports.free() }
        XCTAssertEqual(Set(ports).count, 5)
        for p in ports {
            XCTAssertGreaterThan(p, 1024)
            XCTAssertFalse(Ports.tcpAccepts(p), "nothing listens on a free port")
        }
    }

    // MARK: media generation and analysis

    func testGeneratedVideoIsAnalysedCorrectly() throws {
        let dir = try makeTempDir()
        let src = try TestMedia.makeVideo(in: dir, seconds: 4, size: "640x360", fps: 25, freq: 440)
        let p = try assertH264AAC(src.path)
        XCTAssertEqual(p.video?.width, 640)
        XCTAssertEqual(p.video?.height, 360)
        XCTAssertEqual(p.video?.avgFrameRate ?? 0, 25, accuracy: 0.1)
        XCTAssertEqual(p.audio?.sampleRate, 44100)
        XCTAssertEqual(p.audio?.channels, 2)
        XCTAssertEqual(p.duration ?? 0, 4, accuracy: 0.15)

        let pts = try MediaProbe.videoPacketPTS(src.path)
        XCTAssertEqual(pts.count, 100)
        XCTAssertEqual(pts, pts.sorted(), "no B-frames: packet PTS increase")

        try assertDecodesCleanly(src.path)

        let pcm = try MediaProbe.decodePCM(src.path, rate: 16000)
        XCTAssertEqual(Double(pcm.count), 4 * 16000, accuracy: 1600)
        XCTAssertEqual(MediaProbe.dominantFrequency(pcm, rate: 16000) ?? 0, 440, accuracy: 2)
        XCTAssertGreaterThan(MediaProbe.rmsDB(pcm), -30)
        let vol = try MediaProbe.volumeDetect(src.path)
        XCTAssertGreaterThan(vol.mean, -40)
        XCTAssertLessThanOrEqual(vol.max, 0.5)
    }

    func testGeneratedAudioStillsAndSilence() throws {
        let dir = try makeTempDir()
        let expected = ["mp3": "mp3", "wav": "pcm_s16le", "flac": "flac", "aac": "aac"]
        for (ext, codec) in expected {
            let f = try TestMedia.makeAudio(in: dir, seconds: 2, freq: 1000, ext: ext)
            let p = try MediaProbe.probe(f.path)
            XCTAssertEqual(p.audio?.codecName, codec, ext)
            XCTAssertNil(p.video, ext)
            let pcm = try MediaProbe.decodePCM(f.path, rate: 16000)
            XCTAssertEqual(MediaProbe.dominantFrequency(pcm, rate: 16000) ?? 0, 1000, accuracy: 3, ext)
        }

        let png = try TestMedia.makePNG(in: dir, color: "red", size: "320x240")
        let pp = try MediaProbe.probe(png.path)
        XCTAssertEqual(pp.video?.codecName, "png")
        XCTAssertEqual(pp.video?.width, 320)
        XCTAssertEqual(pp.video?.height, 240)

        // Negative control: silence is measured as silence.
        let silent = dir.appendingPathComponent("silence.wav")
        try Proc.check("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                                  "anullsrc=r=44100:cl=stereo", "-t", "2", silent.path])
        XCTAssertLessThan(MediaProbe.rmsDB(try MediaProbe.decodePCM(silent.path)), -100)
        XCTAssertLessThan(try MediaProbe.volumeDetect(silent.path).mean, -90)
    }

    func testDecodeErrorsAreDetectedInDamagedMedia() throws {
        let dir = try makeTempDir()
        let src = try TestMedia.makeVideo(in: dir, seconds: 4)
        let ts = dir.appendingPathComponent("copy.ts")
        try Proc.check("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", src.path, "-c", "copy", ts.path])
        try assertDecodesCleanly(ts.path)

        var bytes = try Data(contentsOf: ts)
        // Overwrite a run of TS packets in the middle with garbage (keep sync bytes out).
        let start = (bytes.count / 2 / 188) * 188
        for i in start..<min(bytes.count, start + 188 * 60) { bytes[i] = UInt8(truncatingIfNeeded: i &* 7 &+ 13) }
        let damaged = dir.appendingPathComponent("damaged.ts")
        try bytes.write(to: damaged)
        let errors = try MediaProbe.decodeErrors(damaged.path)
        XCTAssertFalse(errors.isEmpty, "damage in the middle of a stream must be reported by ffmpeg")
        XCTAssertFalse(MediaProbe.errorsAfterStart(errors).isEmpty, "mid-stream damage is not mistaken for join noise:\n\(errors)")
    }

    func testSpectrumAnalysisFindsMixedTones() {
        let rate = 16000
        let samples: [Float] = (0..<32000).map { i in
            let t = Double(i) / Double(rate)
            return Float(0.5 * sin(2 * .pi * 523.25 * t) + 0.1 * sin(2 * .pi * 3000 * t))
        }
        XCTAssertEqual(MediaProbe.dominantFrequency(samples, rate: rate) ?? 0, 523.25, accuracy: 1)
        XCTAssertEqual(MediaProbe.rmsDB(samples), 20 * log10((0.125 + 0.005).squareRoot()), accuracy: 0.2)
        XCTAssertEqual(MediaProbe.rmsDB([Float](repeating: 0, count: 100)), -200)
    }

    // MARK: RTMP (nginx + rtmp module)

    /// The RTMP relay and both SRT directions at once, each its own server, port and
    /// folder: each waits on media at wall-clock pace (6 s, 4 s, 3 s), so their waits
    /// overlap. The SRT caller is started, the RTMP publisher started and its stream
    /// probed, the GStreamer listener pulled from, then the SRT caller's recording and the
    /// RTMP publisher's end are checked: each as its own test did.
    func testRTMPServerRelaysAnFFmpegPublisherAndSRTCarriesAnFFmpegCallerAndAGStreamerListener() throws {
        let recorded = try srtListenerRecordsAnFFmpegCaller()
        let relayed = try rtmpServerRelaysAnFFmpegPublisher()
        try ffmpegCallerReadsFromAGStreamerSRTListener()
        try recorded()
        try relayed()
    }

    /// Its publisher is started and its stream probed while it publishes; returned: the
    /// checks of the publisher's end.
    private func rtmpServerRelaysAnFFmpegPublisher() throws -> () throws -> Void {
        let rtmp = try startRTMPServer()
        let url = rtmp.url(key: "harness")
        let publisher = try startTool("ffmpeg", [
            "-nostdin", "-hide_banner", "-v", "error", "-re",
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100",
            "-t", "6", "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-pix_fmt", "yuv420p",
            "-c:a", "aac", "-b:a", "96k", "-f", "flv", url,
        ])
        XCTAssertTrue(Ports.waitUntil(timeout: 20) { rtmp.errorLog.contains("publish: name='harness'") || !publisher.isRunning },
                      "nginx took the publisher: \(rtmp.errorLog)")
        let p = try MediaProbe.probe(url, inputOptions: ["-rw_timeout", "5000000"], timeout: 20)
        XCTAssertEqual(p.video?.codecName, "h264", p.rawJSON)
        XCTAssertEqual(p.audio?.codecName, "aac", p.rawJSON)
        XCTAssertEqual(p.video?.width, 320)
        return {
            XCTAssertTrue(publisher.waitForExit(timeout: 20), "publisher should finish its 6 s")
            XCTAssertEqual(publisher.exitStatus, 0, publisher.stderr)
            XCTAssertTrue(rtmp.errorLog.contains("harness") || !rtmp.errorLog.isEmpty, "nginx logs to its private error log")
        }
    }

    // MARK: HTTP (nginx)

    func testHTTPServerServesProgressiveAndHLSMedia() throws {
        let root = try makeTempDir()
        try TestMedia.makeVideo(in: root, name: "clip.mp4", seconds: 3)
        let hlsDir = root.appendingPathComponent("hls")
        try FileManager.default.createDirectory(at: hlsDir, withIntermediateDirectories: true)
        try Proc.check("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", root.appendingPathComponent("clip.mp4").path,
                                  "-c", "copy", "-f", "hls", "-hls_time", "1", "-hls_list_size", "0",
                                  hlsDir.appendingPathComponent("index.m3u8").path])
        let http = try startHTTPServer(root: root)

        let mp4 = try assertH264AAC(http.url("clip.mp4"))
        XCTAssertEqual(mp4.duration ?? 0, 3, accuracy: 0.2)
        let hls = try assertH264AAC(http.url("hls/index.m3u8"))
        XCTAssertEqual(hls.formatName, "hls")
        XCTAssertThrowsError(try MediaProbe.probe(http.url("missing.mp4")), "a 404 fails")
        XCTAssertTrue(http.accessLog.contains("GET /clip.mp4"), http.accessLog)
    }

    // MARK: SRT (srt-live-transmit, gst-launch-1.0 publisher)

    private func gstTestPublisher(sinkURI: String, seconds: Int?) -> [String] {
        let vbufs = seconds.map { ["num-buffers=\($0 * 25)"] } ?? []
        let abufs = seconds.map { ["num-buffers=\($0 * 44100 / 1024)"] } ?? []
        return ["-e", "-q",
                "mpegtsmux", "name=mux", "alignment=7", "!", "srtsink", "uri=\(sinkURI)", "latency=120",
                "videotestsrc", "is-live=true", "pattern=smpte"] + vbufs + ["!",
                "video/x-raw,width=320,height=240,framerate=25/1,format=I420", "!", "x264enc", "tune=zerolatency",
                "speed-preset=ultrafast", "key-int-max=25", "!", "h264parse", "config-interval=-1", "!", "queue", "!", "mux.",
                "audiotestsrc", "is-live=true", "freq=440"] + abufs + ["!", "audioconvert", "!",
                "audio/x-raw,rate=44100,channels=2", "!", "voaacenc", "!", "aacparse", "!", "queue", "!", "mux."]
    }

    // ffmpeg is the caller here: gst's srtsink drops the last datagrams at EOS
    // (SRT live mode closes without linger), which leaves a truncated final
    // AAC frame in the recording and would make this self-check flaky.
    // Its caller is started; returned: the checks that follow it to its end.
    private func srtListenerRecordsAnFFmpegCaller() throws -> () throws -> Void {
        let dir = try makeTempDir("srtlistener")
        let out = dir.appendingPathComponent("received.ts")
        let srt = try startSRTListener(output: out)
        let ff = try startTool("ffmpeg", [
            "-nostdin", "-hide_banner", "-v", "error", "-re",
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100",
            "-t", "4", "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-pix_fmt", "yuv420p",
            "-c:a", "aac", "-b:a", "96k", "-f", "mpegts", srt.callerURL + "&pkt_size=1316",
        ])
        return { [self] in
            XCTAssertTrue(ff.waitForExit(timeout: 30), "ffmpeg publisher did not finish")
            XCTAssertEqual(ff.exitStatus, 0, ff.stderr)
            // All it received is written once it has seen the caller go.
            XCTAssertTrue(Ports.waitUntil(timeout: 10) { srt.log.contains("SRT source disconnected") }, srt.log)
            srt.stop()
            XCTAssertTrue(srt.log.contains("Accepted SRT source connection"), srt.log)
            let p = try assertH264AAC(out.path)
            XCTAssertEqual(p.duration ?? 0, 4, accuracy: 1.0)
            let pcm = try MediaProbe.decodePCM(out.path)
            XCTAssertEqual(MediaProbe.dominantFrequency(pcm, rate: 16000) ?? 0, 440, accuracy: 3)
            let errors = try MediaProbe.decodeErrors(out.path)
            XCTAssertEqual(MediaProbe.errorsAfterStart(errors), [], errors)
        }
    }

    private func ffmpegCallerReadsFromAGStreamerSRTListener() throws {
        let dir = try makeTempDir("srtcaller")
        let port = try Ports.free()
        let gst = try startTool("gst-launch-1.0",
                                gstTestPublisher(sinkURI: "srt://127.0.0.1:\(port)?mode=listener", seconds: nil))
        XCTAssertTrue(Ports.waitForUDP(port, timeout: 10), "gst srtsink did not listen: \(gst.stderr)")
        let out = dir.appendingPathComponent("pulled.ts")
        let r = try SRTPull.record(from: "srt://127.0.0.1:\(port)?mode=caller", seconds: 3, to: out, within: 20)
        XCTAssertEqual(r.status, 0, r.summary("ffmpeg srt caller"))
        gst.stop(signal: SIGTERM, grace: 3)
        let p = try assertH264AAC(out.path)
        XCTAssertEqual(p.duration ?? 0, 3, accuracy: 1.0)
        let errors = try MediaProbe.decodeErrors(out.path)
        XCTAssertEqual(MediaProbe.errorsAfterStart(errors), [], errors)
    }
}

/// Pulls from an SRT listener with ffmpeg as the caller, retrying the connect.
enum SRTPull {
    /// `ffmpeg -i URL -t SECONDS -c copy OUT`, retried until it succeeds or
    /// `within` seconds pass. Returns the last attempt.
    static func record(from url: String, seconds: Int, to out: URL, within: TimeInterval) throws -> ProcessResult {
        let deadline = Date().addingTimeInterval(within)
        var last: ProcessResult
        repeat {
            let remaining = max(5, deadline.timeIntervalSinceNow + Double(seconds))
            last = try Proc.run("ffmpeg", ["-nostdin", "-hide_banner", "-v", "error", "-y",
                                           "-timeout", "5000000", "-i", url, "-t", "\(seconds)", "-c", "copy",
                                           "-f", "mpegts", out.path],
                                timeout: min(remaining, Double(seconds) + 15))
            if last.status == 0, !last.timedOut,
               let size = try? FileManager.default.attributesOfItem(atPath: out.path)[.size] as? Int, size > 0 {
                return last
            }
            // No pause between tries: each is paced by its own connect (ffmpeg's SRT caller
            // waits out its handshake timeout while nobody answers).
        } while Date() < deadline
        return last
    }
}

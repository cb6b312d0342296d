// RTMP output (docs/presets.md, Outputs) into a real nginx-rtmp on loopback.

import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class RTMPOutputTests: XCTestCase {

    /// Three runs, each its own nginx, folder and control socket, at once: the 8 s run that
    /// a viewer records is started and probed, and while it goes on to its end the
    /// connection's Nagle and a server that stops reading are followed through; then the
    /// 8 s run's end and its viewer's recording are checked. Each as its own test did.
    func testTestsrcPublishesH264AndAACToNginxRTMPWithNaglesAlgorithmOffAndAServerThatStopsReadingIsReconnected() throws {
        let published = try testsrcPublishesH264AndAACToNginxRTMP()
        try theRTMPConnectionHasNaglesAlgorithmOff()
        try aServerThatStopsReadingIsNoticedAndReconnected()
        try published()
    }

    /// Its run is started, a viewer joins and the stream is probed; returned: the checks of
    /// the run's end and of the viewer's recording.
    private func testsrcPublishesH264AndAACToNginxRTMP() throws -> () throws -> Void {
        let dir = try makeTempDir("testsrc")
        let rtmp = try startRTMPServer()
        let key = "mpkey7Qz91secret"   // distinctive, so a leak is detectable
        let url = rtmp.url(key: key)
        let preset = try writeFile(dir, "live.yaml", E2EPreset.basic(source: E2EPreset.testsrc))

        let events = dir.appendingPathComponent("events.jsonl")
        let mp = try startMediaPub(["--preset", preset.path, "--output", url, "--realtime",
                                    "--duration", "8s", "--log-level", "debug", "--events", events.path,
                                    "--control", dir.appendingPathComponent("c.sock").path])

        // A viewer joins mid-stream (once the server has taken data) and records 4 s.
        XCTAssertTrue(EventLog.waitFor(events, of: mp, timeout: 20, EventLog.outputState("publishing")), mp.stderr)
        let recording = dir.appendingPathComponent("viewer.flv")
        let viewer = try startTool("ffmpeg", ["-nostdin", "-hide_banner", "-v", "error", "-y",
                                              "-rw_timeout", "5000000", "-i", url, "-t", "4", "-c", "copy", recording.path])
        let p = try MediaProbe.probe(url, inputOptions: ["-rw_timeout", "5000000"], timeout: 20)
        XCTAssertEqual(p.video?.codecName, "h264", "live stream streams: \(p.rawJSON)\n\(mp.stderr)")
        XCTAssertEqual(p.audio?.codecName, "aac", "live stream streams: \(p.rawJSON)")
        XCTAssertEqual(p.video?.width, 640)
        XCTAssertEqual(p.video?.height, 360)

        return { [self] in
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

    /// The RTMP connection has Nagle's algorithm off (TCP_NODELAY, as librtmp and OBS
    /// set it): its handshake and commands are small writes that otherwise each wait
    /// for the server's delayed ACK. Read from the running process's own socket
    /// (pidfd_getfd duplicates it here), not from anything mediapub says.
    private func theRTMPConnectionHasNaglesAlgorithmOff() throws {
        let dir = try makeTempDir("nagle")
        let rtmp = try startRTMPServer()
        let preset = try writeFile(dir, "live.yaml", E2EPreset.basic(source: E2EPreset.testsrc))
        let events = dir.appendingPathComponent("events.jsonl")
        let mp = try startMediaPub(["--preset", preset.path, "--output", rtmp.url(key: "nagle"), "--realtime", "--duration", "20s",
                                    "--events", events.path, "--control", dir.appendingPathComponent("c.sock").path])
        XCTAssertTrue(EventLog.waitFor(events, of: mp, timeout: 20, EventLog.outputState("publishing")), mp.stderr)
        let script = """
        import ctypes, os, socket, sys
        pid, port = int(sys.argv[1]), int(sys.argv[2])
        libc = ctypes.CDLL(None, use_errno=True)
        pidfd = libc.syscall(434, pid, 0)  # pidfd_open
        if pidfd < 0: sys.exit("pidfd_open: " + os.strerror(ctypes.get_errno()))
        inodes = set()
        for table in ("tcp", "tcp6"):
            for line in open(f"/proc/{pid}/net/{table}").read().splitlines()[1:]:
                f = line.split()
                if int(f[2].split(":")[1], 16) == port and f[3] == "01": inodes.add(f[9])  # established, to the server
        values = []
        for fd in sorted(os.listdir(f"/proc/{pid}/fd"), key=int):
            try: target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError: continue
            if target.startswith("socket:[") and target[8:-1] in inodes:
                mine = libc.syscall(438, pidfd, int(fd), 0)  # pidfd_getfd
                if mine < 0: sys.exit("pidfd_getfd: " + os.strerror(ctypes.get_errno()))
                s = socket.socket(fileno=mine)
                values.append(s.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
                s.close()
        print(values)
        """
        let check = try Proc.check("/usr/bin/env", ["python3", "-c", script, String(mp.pid), String(rtmp.port)])
        XCTAssertEqual(check.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "[1]",
                       "one connection to the server, TCP_NODELAY on\n\(check.stderr)")
        mp.terminate()
        XCTAssertTrue(mp.waitForExit(timeout: 20))
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr)
    }

    /// A server that stops reading (nginx stopped with SIGSTOP) is noticed from its TCP
    /// acknowledgements after reconnect.stall, and the output reconnects (reason: stalled);
    /// once the server goes on, the output publishes again. Status shows the acknowledged bytes.
    private func aServerThatStopsReadingIsNoticedAndReconnected() throws {
        let dir = try makeTempDir("stopsreading")
        let rtmp = try startRTMPServer()
        let events = dir.appendingPathComponent("events.jsonl")
        let socket = dir.appendingPathComponent("c.sock").path
        var yaml = E2EPreset.basic(source: "testsrc:?pattern=snow&freq=440", outputs: [rtmp.url(key: "stallKey")],
                                   extra: "reconnect: {initial: 500ms, max: 1s, give_up_after: never, stall: 3s}")
        // Incompressible pictures at a high rate fill the server's receive buffer in seconds.
        yaml = yaml.replacingOccurrences(of: "bitrate: 800k", with: "bitrate: 6000k")
        let preset = try writeFile(dir, "t.yaml", yaml)
        let mp = try startMediaPub(["--preset", preset.path, "--realtime", "--events", events.path, "--control", socket])
        func states() -> [String] {
            ((try? EventLog.read(events)) ?? []).filter { $0["event"] as? String == "output.state" }.compactMap { $0["state"] as? String }
        }
        XCTAssertTrue(Ports.waitUntil(timeout: 30, watching: events) { states().contains("publishing") || !mp.isRunning }, mp.stderr)
        XCTAssertTrue(Ports.waitUntil(timeout: 30) {
            let r = try? CLI.run(["ctl", "--socket", socket, "status"], timeout: 20)
            let outputs = (((try? JSONSerialization.jsonObject(with: Data((r?.stdout ?? "").utf8))) as? [String: Any])?["status"] as? [String: Any])?["outputs"] as? [[String: Any]]
            return (outputs?.first?["bytes_acked"] as? Int ?? 0) > 0
        }, "status shows what the server acknowledged")

        kill(rtmp.process.pid, SIGSTOP)
        XCTAssertTrue(Ports.waitUntil(timeout: 90, watching: events) { states().last == "reconnecting" || !mp.isRunning }, "\(states()) \(mp.stderr)")
        let stalled = try EventLog.read(events).last { $0["state"] as? String == "reconnecting" }
        XCTAssertEqual(stalled?["error"] as? String, "stalled: the server read nothing for 3s")
        kill(rtmp.process.pid, SIGCONT)
        XCTAssertTrue(Ports.waitUntil(timeout: 60, watching: events) { states().last == "publishing" || !mp.isRunning }, "\(states()) \(mp.stderr)")
        mp.terminate()
        XCTAssertTrue(mp.waitForExit(timeout: 30), "the stop is bounded")
        XCTAssertEqual(mp.exitStatus, 0, mp.stderr)
    }
}

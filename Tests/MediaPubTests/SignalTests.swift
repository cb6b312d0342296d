// SIGTERM / SIGINT / SIGHUP mid-run (docs/exit-codes.md): outputs get EOS,
// files are finalised and playable, exit 0.

import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class SignalTests: XCTestCase {

    /// A realtime run recording to rec.`ext` that only a signal stops (testsrc never
    /// ends), each its own folder and control socket, started.
    private func startRecording(ext: String) throws -> (mp: RunningProcess, events: URL, rec: URL) {
        let dir = try makeTempDir("signal\(ext)")
        let rec = dir.appendingPathComponent("rec.\(ext)")
        let preset = try writeFile(dir, "rec.yaml", E2EPreset.basic(source: E2EPreset.testsrc))
        let events = dir.appendingPathComponent("events.jsonl")
        let mp = try startMediaPub(["--preset", preset.path, "--output", "file://\(rec.path)", "--realtime", "--events", events.path,
                                    "--control", dir.appendingPathComponent("c.sock").path])
        return (mp, events, rec)
    }

    /// Each run of `startRecording` is sent its signal once it has played 4 s; then each
    /// exits on its own within 10 s of it, exit 0, its file finalised and playable.
    private func recordUntilSignal(_ runs: [(signal: Int32, run: (mp: RunningProcess, events: URL, rec: URL))]) throws {
        for (signal, (mp, events, _)) in runs {
            XCTAssertTrue(EventLog.waitFor(events, of: mp, EventLog.progressed(4)), "4 s played: \(mp.stderr)")
            XCTAssertTrue(mp.isRunning, "mediapub stopped before the signal:\n\(mp.stderr)")
            mp.terminate(signal)
        }
        for (signal, (mp, _, rec)) in runs {
            let ext = rec.pathExtension
            XCTAssertTrue(mp.waitForExit(timeout: 10), "mediapub did not exit within 10 s of signal \(signal)")
            XCTAssertFalse(mp.exitedBySignal, "mediapub died of the signal instead of handling it:\n\(mp.stderr)")
            XCTAssertEqual(mp.exitStatus, 0, mp.stderr)

            let p = try assertH264AAC(rec.path)
            let duration = p.duration ?? 0
            XCTAssertTrue((2.5...6).contains(duration), "recorded \(duration) s until the signal at ~4 s: \(p.rawJSON)")
            XCTAssertEqual(p.video?.width, 640)
            let errors = try MediaProbe.decodeErrors(rec.path)
            XCTAssertEqual(errors, "", "the finalised \(ext) decodes with no errors")
            let pcm = try MediaProbe.decodePCM(rec.path)
            XCTAssertEqual(MediaProbe.dominantFrequency(pcm, rate: 16000) ?? 0, 440, accuracy: 10)
        }
    }

    /// The realtime runs that are signalled, each with its own folder and control socket:
    /// at once, each checked as its own test was.
    func testSIGTERMSIGINTAndSIGHUPEachInARunOfItsOwnAtOnce() {
        atOnce([("SIGTERM and SIGINT", sigtermFinalisesMP4AndSIGINTFinalisesMKV),
                ("SIGHUP", sighupFinalisesEveryFileAndIsIgnoredUnderNohup)])
    }

    /// SIGTERM finalises an MP4 and SIGINT an MKV: the two runs go at once (each realtime,
    /// each its own folder and control socket), each signalled once it has played 4 s.
    private func sigtermFinalisesMP4AndSIGINTFinalisesMKV() throws {
        try recordUntilSignal([(SIGTERM, try startRecording(ext: "mp4")), (SIGINT, try startRecording(ext: "mkv"))])
    }

    /// SIGHUP ends a run and is ignored by one started under `nohup`: the two runs go at
    /// once (each realtime, each its own folder and control socket); the nohup run is sent
    /// its SIGHUP once it has played 1 s, the other once it has played 3 s, then the nohup
    /// run is followed through and the other checked: each as its own test did.
    private func sighupFinalisesEveryFileAndIsIgnoredUnderNohup() throws {
        let nohup = try startUnderNohup()
        let finalised = try sighupFinalisesEveryFile(after: { try nohup.hangUp() })
        try nohup.goesOn()
        try finalised()
    }

    /// SIGHUP (the terminal closed, a `kill -HUP`) ends the run as SIGTERM does: the MP4
    /// gets its index, the HLS playlist its #EXT-X-ENDLIST, and `run.stopped` says exit 0.
    /// `first` runs once this run has started and before it has played 3 s; returned: the
    /// checks once it has been sent SIGHUP.
    private func sighupFinalisesEveryFile(after first: () throws -> Void) throws -> () throws -> Void {
        let dir = try makeTempDir("sighup")
        let rec = dir.appendingPathComponent("rec.mp4")
        let playlist = dir.appendingPathComponent("hls/index.m3u8")
        let preset = try writeFile(dir, "rec.yaml", E2EPreset.basic(source: E2EPreset.testsrc,
                                                                   outputs: ["file://\(rec.path)", "hls://\(playlist.path)?segment=1s"]))
        let events = dir.appendingPathComponent("events.jsonl")
        let mp = try startMediaPub(["--preset", preset.path, "--realtime", "--events", events.path,
                                    "--control", dir.appendingPathComponent("c.sock").path])
        try first()
        XCTAssertTrue(EventLog.waitFor(events, of: mp, EventLog.progressed(3)), "3 s played: \(mp.stderr)")
        mp.terminate(SIGHUP)
        return { [self] in
            XCTAssertTrue(mp.waitForExit(timeout: 20), "mediapub did not exit within 20 s of SIGHUP")
            XCTAssertFalse(mp.exitedBySignal, "mediapub died of SIGHUP instead of handling it:\n\(mp.stderr)")
            XCTAssertEqual(mp.exitStatus, 0, mp.stderr)
            XCTAssertTrue(mp.stderr.contains("signal SIGHUP: finishing outputs"), mp.stderr)

            let p = try assertH264AAC(rec.path)
            XCTAssertGreaterThan(p.duration ?? 0, 1.5, "the MP4 is finalised, with its duration: \(p.rawJSON)")
            XCTAssertEqual(try MediaProbe.decodeErrors(rec.path), "", "the MP4 decodes with no errors")
            let text = try String(contentsOf: playlist, encoding: .utf8)
            XCTAssertTrue(text.hasSuffix("#EXT-X-ENDLIST\n") || text.hasSuffix("#EXT-X-ENDLIST"), text)
            XCTAssertEqual(try MediaProbe.probe(playlist.path).video?.codecName, "h264", "the ended playlist plays")
            let stopped = try EventLog.read(events).last
            XCTAssertEqual(stopped?["event"] as? String, "run.stopped", "\(String(describing: stopped))")
            XCTAssertEqual(stopped?["exit_code"] as? Int, 0, "\(String(describing: stopped))")
        }
    }

    /// Started with SIGHUP ignored (`nohup`), a run goes on when the terminal closes.
    /// Started; `hangUp` sends it SIGHUP once it has played 1 s, `goesOn` checks that it
    /// plays on to 3 s and then ends on SIGTERM.
    private func startUnderNohup() throws -> (hangUp: () throws -> Void, goesOn: () throws -> Void) {
        let dir = try makeTempDir("nohup")
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc))
        let events = dir.appendingPathComponent("events.jsonl")
        let mp = try startTool("nohup", [try CLI.binary(), "--preset", preset.path, "--realtime", "--events", events.path,
                                         "--control", dir.appendingPathComponent("c.sock").path],
                               env: CLI.environment())
        return ({
            XCTAssertTrue(EventLog.waitFor(events, of: mp, EventLog.progressed(1)), "1 s played: \(mp.stderr)")
            mp.terminate(SIGHUP)
        }, {
            XCTAssertTrue(EventLog.waitFor(events, of: mp, EventLog.progressed(3)), "still playing after SIGHUP: \(mp.stderr)")
            XCTAssertTrue(mp.isRunning, "SIGHUP ended a run started with nohup: \(mp.stderr)")
            XCTAssertFalse(mp.stderr.contains("SIGHUP"), mp.stderr)
            mp.terminate()
            XCTAssertTrue(mp.waitForExit(timeout: 20))
            XCTAssertEqual(mp.exitStatus, 0, mp.stderr)
        })
    }
}

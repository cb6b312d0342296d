// Loudness to a target (docs/presets.md, audio.loudness): two items 12 dB apart are each
// brought to -23 LUFS by one gain, under a -1 dBTP ceiling, without pumping. ffmpeg's
// ebur128 filter, run on the recording and on the sources, is the judge.

import Foundation
import XCTest

final class LoudnessTests: XCTestCase {
    /// Pink noise (band-limited, as music is, so that AAC keeps it whole) at `gainDB`;
    /// `bursts`: with a 0.5 ms 2 kHz burst every 4 s, peaking at -3 dBTP, that the gain
    /// takes over the ceiling (the limiter's work).
    private func makeNoise(in dir: URL, _ name: String, seed: Int, gainDB: Double, bursts: Bool) throws -> URL {
        let out = dir.appendingPathComponent(name)
        let noise = "anoisesrc=color=pink:amplitude=0.5:duration=8:seed=\(seed):sample_rate=48000,lowpass=f=8000,volume=\(gainDB)dB"
        let burst = "aevalsrc='if(lt(mod(t\\,4)\\,0.0005)\\,0.9*sin(2*PI*2000*t)\\,0)':s=48000:d=8"
        try TestMedia.ffmpegRun(bursts
            ? ["-filter_complex", "\(noise)[n];\(burst)[b];[n][b]amix=inputs=2:normalize=0", "-ac", "2", out.path]
            : ["-f", "lavfi", "-i", noise, "-ac", "2", out.path])
        return out
    }

    func testTwoItems12dBApartAreEachBroughtToTheTargetUnderTheCeilingWithoutPumping() throws {
        let dir = try makeTempDir()
        let loud = try makeNoise(in: dir, "loud.wav", seed: 1, gainDB: 5, bursts: false)
        let quiet = try makeNoise(in: dir, "quiet.wav", seed: 2, gainDB: -7, bursts: true)
        let sources = [try FFmpegEBUR128.measure(loud.path, from: 0, to: 8), try FFmpegEBUR128.measure(quiet.path, from: 0, to: 8)]
        XCTAssertEqual(sources[0].integrated - sources[1].integrated, 12, accuracy: 1, "the sources are 12 dB apart")
        XCTAssertGreaterThan(sources[1].truePeak + (-23 - sources[1].integrated), 0, "the quiet item's bursts go over full scale at its gain")
        let out = dir.appendingPathComponent("out.m4a")
        let events = dir.appendingPathComponent("events.jsonl")
        let yaml = """
        name: loud
        audio:
          loudness: { target: -23LUFS, true_peak: -1dBTP, max_gain: 12dB }
        players:
          - playlist: { items: [loud.wav, quiet.wav], mode: once }
        outputs:
          - url: "file://\(out.path)"

        """
        let r = try runPreset(yaml, in: dir, args: ["--no-realtime", "--events", events.path])
        XCTAssertEqual(r.status, 0, r.summary("mediapub with audio.loudness"))
        for (index, source) in sources.enumerated() {
            let item = try FFmpegEBUR128.measure(out.path, from: Double(index) * 8, to: Double(index + 1) * 8)
            XCTAssertEqual(item.integrated, -23, accuracy: 1, "item \(index): integrated loudness of the recording")
            XCTAssertLessThanOrEqual(item.truePeak, -1, "item \(index): no true peak above the ceiling")
            let spread = { (s: [Double]) in (s.max() ?? 0) - (s.min() ?? 0) }
            XCTAssertFalse(item.levels.isEmpty)
            XCTAssertLessThanOrEqual(spread(item.levels), spread(source.levels) + 0.5,
                                     "item \(index): short-term loudness varies no more than in its source (no pumping)")
        }
        // player.track says each item's loudness (as measured before it began) and its gain.
        let tracks = try EventLog.read(events).filter { $0["event"] as? String == "player.track" && $0["loudness_lufs"] is Double }
        for (index, source) in sources.enumerated() {
            let said = try XCTUnwrap(tracks.last { $0["index"] as? Int == index }, "item \(index)'s player.track with its loudness")
            let lufs = try XCTUnwrap(said["loudness_lufs"] as? Double)
            XCTAssertEqual(lufs, source.integrated, accuracy: 0.5, "item \(index)'s measured loudness")
            XCTAssertEqual(try XCTUnwrap(said["gain_db"] as? Double), -23 - lufs, accuracy: 0.11, "item \(index)'s gain")
        }
    }

    /// Across a crossfade each item keeps its own gain: the loudness holds through the fade.
    func testACrossfadeBetweenItemsAtTheirOwnGainsHoldsTheTarget() throws {
        let dir = try makeTempDir()
        _ = try makeNoise(in: dir, "loud.wav", seed: 1, gainDB: 5, bursts: false)
        _ = try makeNoise(in: dir, "quiet.wav", seed: 2, gainDB: -7, bursts: false)
        let out = dir.appendingPathComponent("out.m4a")
        let yaml = """
        name: loud-xfade
        audio:
          loudness: { target: -23LUFS }
        players:
          - playlist: { items: [loud.wav, quiet.wav], mode: once, crossfade: 2s }
        outputs:
          - url: "file://\(out.path)"

        """
        let r = try runPreset(yaml, in: dir)
        XCTAssertEqual(r.status, 0, r.summary("mediapub with audio.loudness and a crossfade"))
        for (from, to) in [(0.0, 5.5), (8.5, 14.0)] {
            XCTAssertEqual(try FFmpegEBUR128.measure(out.path, from: from, to: to).integrated, -23, accuracy: 1, "\(from)..\(to) s")
        }
        let fade = try FFmpegEBUR128.measure(out.path, from: 4, to: 10, momentary: true)
        XCTAssertFalse(fade.levels.isEmpty)
        XCTAssertLessThanOrEqual(fade.levels.max() ?? 0, -21.5, "through the fade (6 to 8 s), nothing swells: \(fade.levels)")
        XCTAssertGreaterThanOrEqual(fade.levels.min() ?? 0, -24.5, "nor dips: \(fade.levels)")
    }
}

extension LoudnessTests {
    /// An `aux: false` player's sound goes nowhere (no monitor, no tap): its items are not
    /// decoded to be measured, and play at the conservative gain, until `aux on` puts it in
    /// the mix; then it is measured and moves to its own gain.
    func testAnAuxOffPlayersItemIsMeasuredOnlyOnceItsSoundIsInTheMix() throws {
        let dir = try makeTempDir()
        _ = try makeNoise(in: dir, "unheard.wav", seed: 3, gainDB: -7, bursts: false)
        _ = try makeNoise(in: dir, "music.wav", seed: 4, gainDB: 0, bursts: false)
        let judged = try FFmpegEBUR128.measure(dir.appendingPathComponent("unheard.wav").path, from: 0, to: 8).integrated
        let socket = dir.appendingPathComponent("c.sock").path
        let eventsURL = dir.appendingPathComponent("events.jsonl")
        // The unheard player comes first: it would be the first measured.
        let preset = try writeFile(dir, "p.yaml", """
        name: unheard
        audio:
          loudness: { target: -23LUFS }
        players:
          - { id: unheard, source: unheard.wav, aux: false, repeat: true }
          - { id: music, source: music.wav, repeat: true }
        outputs:
          - url: "null://"

        """)
        let mp = try startMediaPub(["--preset", preset.path, "--realtime", "--control", socket, "--events", eventsURL.path])
        defer { _ = mp.stop() }
        func tracks(_ player: String) -> [[String: Any]] {
            ((try? EventLog.read(eventsURL)) ?? []).filter { $0["event"] as? String == "player.track" && $0["player"] as? String == player }
        }
        XCTAssertTrue(EventLog.waitFor(eventsURL, of: mp) { $0["player"] as? String == "music" && $0["loudness_lufs"] is Double },
                      "the music is measured: \(mp.stderr)")
        let unheard = tracks("unheard")
        XCTAssertFalse(unheard.isEmpty)
        XCTAssertTrue(unheard.allSatisfy { !($0["loudness_lufs"] is Double) }, "not measured while nothing hears it: \(unheard)")
        // The conservative gain: -23 LUFS less an unmeasured item's assumed -9 LUFS.
        XCTAssertEqual(unheard.last?["gain_db"] as? Double, -14, "at the conservative gain")
        let reply = try CLI.run(["ctl", "--socket", socket, "aux", "unheard", "on"], timeout: 30)
        let answer = try JSONSerialization.jsonObject(with: Data(reply.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(answer?["ok"] as? Bool, true, reply.summary("ctl aux unheard on"))
        XCTAssertTrue(EventLog.waitFor(eventsURL, of: mp) { $0["player"] as? String == "unheard" && $0["loudness_lufs"] is Double },
                      "measured once in the mix: \(mp.stderr)")
        let said = try XCTUnwrap(tracks("unheard").last)
        let lufs = try XCTUnwrap(said["loudness_lufs"] as? Double)
        XCTAssertEqual(lufs, judged, accuracy: 0.5, "its measured loudness")
        XCTAssertEqual(try XCTUnwrap(said["gain_db"] as? Double), -23 - lufs, accuracy: 0.11, "its own gain")
    }
}

/// ffmpeg's EBU R 128 meter, the judge of what mediapub's loudness does.
enum FFmpegEBUR128 {
    /// What ffmpeg's `ebur128=peak=true` says of `path` from `from` to `to` seconds: the
    /// integrated loudness, the true peak, and the short-term loudness every 100 ms from 3 s
    /// on (`momentary`: the momentary loudness, from 0.4 s on; `dualMono`: a mono file's
    /// channel counted twice, as it plays on both of a stereo output).
    static func measure(_ path: String, from: Double, to: Double, momentary: Bool = false,
                        dualMono: Bool = false) throws -> (integrated: Double, truePeak: Double, levels: [Double]) {
        let meter = "ebur128=peak=true" + (dualMono ? ":dualmono=true" : "")
        let r = try Proc.check("ffmpeg", ["-nostdin", "-hide_banner", "-nostats", "-i", path, "-af",
                                          "atrim=\(from):\(to),asetpts=PTS-STARTPTS,\(meter)", "-f", "null", "-"], timeout: 120)
        func number(after label: String, in line: Substring) -> Double? {
            guard let range = line.range(of: label) else { return nil }
            return Double(line[range.upperBound...].split(separator: " ").first ?? "")
        }
        var levels: [Double] = [], integrated: Double?, peak: Double?
        for line in r.stderr.split(separator: "\n") {
            if line.contains(" t: "), let t = number(after: " t: ", in: line), t >= (momentary ? 0.4 : 3),
               let s = number(after: momentary ? " M: " : " S: ", in: line) {
                levels.append(s)
            } else if !line.contains(" t: ") {
                if let i = number(after: "I: ", in: line.drop { $0 == " " }) { integrated = i }
                if let p = number(after: "Peak: ", in: line.drop { $0 == " " }) { peak = p }
            }
        }
        return (try XCTUnwrap(integrated, r.stderr), try XCTUnwrap(peak, r.stderr), levels)
    }
}

extension LoudnessTests {
    /// The ceiling holds on what listeners decode, in every codec mediapub encodes: the limiter
    /// aims under it by what the encoders add to peaks (AAC and Opus 2 dB, MP3 0.5 dB). Loud
    /// noise, then sharp hits (an 80 Hz thump and a 2.5 kHz click, every 0.5 s), at -14 LUFS.
    func testTheCeilingHoldsOnTheDecodedSoundOfAACMP3AndOpus() throws {
        let dir = try makeTempDir()
        try TestMedia.ffmpegRun(["-f", "lavfi", "-i", "anoisesrc=color=pink:amplitude=0.5:duration=3:seed=1:sample_rate=44100,volume=6dB",
                                 "-ac", "2", "-c:a", "pcm_f32le", dir.appendingPathComponent("loud.wav").path])
        try TestMedia.ffmpegRun(["-f", "lavfi", "-i", "aevalsrc='exp(-mod(t\\,0.5)*40)*(sin(2*PI*80*t)+0.7*sin(2*PI*2500*t))':s=44100:d=3",
                                 "-ac", "2", "-c:a", "pcm_f32le", dir.appendingPathComponent("hits.wav").path])
        let outs = ["m4a", "mp3", "opus"].map { dir.appendingPathComponent("out.\($0)") }
        let yaml = """
        name: ceiling
        audio:
          sample_rate: 44100
          loudness: { target: -14LUFS, true_peak: -1dBTP }
        players:
          - playlist: { items: [loud.wav, hits.wav], mode: once }
        outputs:

        """ + outs.map { "  - url: \"file://\($0.path)\"\n" }.joined()
        let r = try runPreset(yaml, in: dir)
        XCTAssertEqual(r.status, 0, r.summary("mediapub with audio.loudness to three codecs"))
        for out in outs {
            for (from, to) in [(0.0, 3.0), (3.0, 6.0)] {
                let peak = try FFmpegEBUR128.measure(out.path, from: from, to: to).truePeak
                XCTAssertLessThanOrEqual(peak, -1, "\(out.lastPathComponent) \(from)..\(to) s: true peak of the decoded sound")
            }
        }
    }
}

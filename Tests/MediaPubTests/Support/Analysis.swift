// More verification with tools we did not write: per-frame colour from
// ffmpeg's signalstats filter, stream start times from ffprobe, and numeric
// analysis of PCM decoded by ffmpeg (Goertzel tone levels, windowed RMS,
// onsets). Also: more generated media, a slow HTTP server (python3), and the
// JSON-lines events file reader.

import Foundation
import XCTest

// MARK: - Per-frame colour (ffmpeg signalstats)

struct FrameStat {
    /// Presentation time (s) as the movie source reports it (stream start included).
    let pts: Double
    let yavg: Double
    let uavg: Double
    let vavg: Double

    /// BT.601 limited-range red: Y≈81, U≈90, V≈240.
    var looksRed: Bool { vavg > 200 && uavg < 120 && yavg < 130 }
}

extension MediaProbe {
    /// Average Y, U and V of every decoded video frame, in presentation order,
    /// measured by ffmpeg's `signalstats` filter.
    static func frameStats(_ path: String, timeout: TimeInterval = 120) throws -> [FrameStat] {
        let escaped = path.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
            .replacingOccurrences(of: ":", with: "\\:").replacingOccurrences(of: ",", with: "\\,")
        let r = try Proc.run("ffprobe", ["-v", "error", "-f", "lavfi", "-i", "movie=\(escaped),signalstats",
                                         "-show_entries",
                                         "frame=pts_time:frame_tags=lavfi.signalstats.YAVG,lavfi.signalstats.UAVG,lavfi.signalstats.VAVG",
                                         "-of", "json"], timeout: timeout)
        guard !r.timedOut, r.status == 0 else { throw HarnessError(r.summary("ffprobe signalstats \(path)")) }
        guard let root = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] else {
            throw HarnessError("signalstats output is not JSON: \(r.stdout.prefix(500))")
        }
        let frames = root["frames"] as? [[String: Any]] ?? []
        return frames.compactMap { f in
            let tags = f["tags"] as? [String: Any] ?? [:]
            func d(_ v: Any?) -> Double? { (v as? String).flatMap(Double.init) ?? (v as? NSNumber)?.doubleValue }
            guard let pts = d(f["pts_time"]), let y = d(tags["lavfi.signalstats.YAVG"]),
                  let u = d(tags["lavfi.signalstats.UAVG"]), let v = d(tags["lavfi.signalstats.VAVG"]) else { return nil }
            return FrameStat(pts: pts, yavg: y, uavg: u, vavg: v)
        }
    }

    /// `start_time` of the first stream of `type` ("audio" / "video"), 0 when absent.
    static func streamStartTime(_ path: String, type: String) throws -> Double {
        let sel = type == "audio" ? "a:0" : "v:0"
        let r = try Proc.run("ffprobe", ["-v", "error", "-select_streams", sel, "-show_entries", "stream=start_time",
                                         "-of", "csv=p=0", path], timeout: 30)
        guard !r.timedOut, r.status == 0 else { throw HarnessError(r.summary("ffprobe start_time \(path)")) }
        return Double(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    // MARK: PCM analysis

    /// Level (dBFS of a full-scale sine = 0) of the `freq` component of
    /// `samples`: a single-bin DFT (Goertzel) under a Hann window.
    static func toneLevelDB(_ samples: [Float], rate: Int, freq: Double) -> Double {
        let n = samples.count
        guard n > 16 else { return -200 }
        let w0 = 2 * Double.pi * freq / Double(rate)
        var re = 0.0, im = 0.0, wsum = 0.0
        for i in 0..<n {
            let w = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n - 1))
            let x = Double(samples[i]) * w
            re += x * cos(w0 * Double(i))
            im -= x * sin(w0 * Double(i))
            wsum += w
        }
        let amplitude = 2 * (re * re + im * im).squareRoot() / wsum
        return amplitude > 0 ? max(-200, 20 * log10(amplitude)) : -200
    }

    /// `samples[from..<to]` in seconds, clamped.
    static func slice(_ samples: [Float], rate: Int, from: Double, to: Double) -> [Float] {
        let a = max(0, min(samples.count, Int(from * Double(rate))))
        let b = max(a, min(samples.count, Int(to * Double(rate))))
        return Array(samples[a..<b])
    }

    /// RMS (dBFS) of consecutive windows of `window` seconds.
    static func windowRMSDB(_ samples: [Float], rate: Int, window: Double) -> [Double] {
        let n = max(1, Int(window * Double(rate)))
        return stride(from: 0, to: samples.count - n + 1, by: n).map { rmsDB(Array(samples[$0..<($0 + n)])) }
    }

    /// The largest sample-to-sample step of `samples` (a click is a step far above a tone's own).
    static func largestStep(_ samples: [Float]) -> Float {
        zip(samples.dropFirst(), samples).reduce(0) { max($0, abs($1.0 - $1.1)) }
    }

    /// The longest run (s) of consecutive `window`-second windows quieter than `thresholdDB`.
    static func longestQuiet(_ samples: [Float], rate: Int, window: Double, thresholdDB: Double) -> Double {
        var longest = 0, run = 0
        for level in windowRMSDB(samples, rate: rate, window: window) {
            run = level < thresholdDB ? run + 1 : 0
            longest = max(longest, run)
        }
        return Double(longest) * window
    }

    /// Times (s) where the signal's 2 ms-window RMS first rises above
    /// `thresholdDB` after at least `quiet` seconds below it.
    static func onsets(_ samples: [Float], rate: Int, thresholdDB: Double, quiet: Double) -> [Double] {
        let hop = max(1, rate / 500)
        var result: [Double] = []
        var quietSince = -Double.infinity   // the start of the signal counts as quiet
        var loud = false
        for start in stride(from: 0, to: samples.count - hop, by: hop) {
            let t = Double(start) / Double(rate)
            let level = rmsDB(Array(samples[start..<(start + hop)]))
            if level >= thresholdDB {
                if !loud && t - quietSince >= quiet { result.append(t) }
                loud = true
            } else if loud {
                loud = false
                quietSince = t
            }
        }
        return result
    }
}

// MARK: - More generated media

extension TestMedia {
    static func ffmpegRun(_ args: [String], timeout: TimeInterval = 120) throws {
        try Proc.check("ffmpeg", ["-nostdin", "-hide_banner", "-v", "error", "-y"] + args, timeout: timeout)
    }

    /// A solid-colour video with a sine tone, in the container `name`'s
    /// extension implies (mp4: H.264/AAC, flv: H.264/AAC in FLV).
    @discardableResult
    static func makeColorVideo(in dir: URL, name: String, seconds: Double, color: String, freq: Double,
                               size: String = "320x180", fps: Int = 25, sampleRate: Int = 44100,
                               pixelFormat: String = "yuv420p") throws -> URL {
        let out = dir.appendingPathComponent(name)
        try ffmpegRun([
            "-f", "lavfi", "-i", "color=c=\(color):s=\(size):r=\(fps):d=\(seconds)",
            "-f", "lavfi", "-i", "sine=frequency=\(freq):sample_rate=\(sampleRate):duration=\(seconds)",
            "-map", "0:v", "-map", "1:a",
            "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", pixelFormat, "-g", "\(fps)", "-bf", "0",
            "-c:a", "aac", "-b:a", "128k", "-ac", "2",
            "-t", "\(seconds)",
        ] + (name.hasSuffix(".mp4") ? ["-movflags", "+faststart"] : []) + [out.path])
        return out
    }

    /// A VOD HLS playlist `name` (+ 1 s MPEG-TS segments) of a solid-colour
    /// video with a tone, made by ffmpeg's hls muxer.
    @discardableResult
    static func makeHLS(in dir: URL, name: String = "index.m3u8", seconds: Double, color: String, freq: Double) throws -> URL {
        let out = dir.appendingPathComponent(name)
        try ffmpegRun([
            "-f", "lavfi", "-i", "color=c=\(color):s=320x180:r=25:d=\(seconds)",
            "-f", "lavfi", "-i", "sine=frequency=\(freq):sample_rate=44100:duration=\(seconds)",
            "-map", "0:v", "-map", "1:a",
            "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "25", "-bf", "0",
            "-c:a", "aac", "-b:a", "128k", "-ac", "2", "-t", "\(seconds)",
            "-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod",
            "-hls_segment_filename", dir.appendingPathComponent("seg%03d.ts").path, out.path,
        ])
        return out
    }

    /// A single-colour JPEG.
    @discardableResult
    static func makeJPEG(in dir: URL, name: String = "still.jpg", color: String, size: String = "320x180") throws -> URL {
        let out = dir.appendingPathComponent(name)
        try ffmpegRun(["-f", "lavfi", "-i", "color=c=\(color):s=\(size):d=1", "-frames:v", "1", "-q:v", "2", out.path])
        return out
    }

    /// A video whose picture encodes its own time: a flat grey frame with
    /// luma Y = lumaBase + lumaPerSecond * t (t = the frame's time), H.264
    /// near-lossless, 25 fps, plus a 440 Hz tone (or no sound at all). With
    /// `toneSteps` (base, step) the sound encodes its time too: a tone of
    /// base + step × ⌊t⌋ Hz, its phase continuous across each step.
    @discardableResult
    static func makeLumaClock(in dir: URL, name: String = "clock.mp4", seconds: Double,
                              lumaBase: Double, lumaPerSecond: Double, withSound: Bool = true,
                              toneSteps: (base: Double, step: Double)? = nil) throws -> URL {
        let out = dir.appendingPathComponent(name)
        // The phase is 2π ∫ f: base·t + step·(n(n-1)/2 + n(t-n)), n = ⌊t⌋.
        let tone = toneSteps.map { b, k in
            "aevalsrc=exprs='0.125*sin(2*PI*(\(b)*t+\(k)*(floor(t)*(floor(t)-1)/2+floor(t)*(t-floor(t)))))':s=44100:d=\(seconds)"
        } ?? "sine=frequency=440:sample_rate=44100:duration=\(seconds)"
        let sound = withSound
            ? ["-f", "lavfi", "-i", tone, "-map", "0:v", "-map", "1:a",
               "-c:a", "aac", "-b:a", "128k", "-ac", "2"]
            : ["-map", "0:v"]
        try ffmpegRun([
            "-f", "lavfi", "-i",
            "color=c=gray:s=320x180:r=25:d=\(seconds),format=yuv420p,geq=lum='\(lumaBase)+\(lumaPerSecond)*T':cb=128:cr=128",
        ] + sound + [
            "-c:v", "libx264", "-preset", "ultrafast", "-crf", "1", "-pix_fmt", "yuv420p", "-g", "25", "-bf", "0",
            "-t", "\(seconds)", "-movflags", "+faststart", out.path,
        ])
        return out
    }

    /// A short item for A/V sync: white for the first `flashFrames` frames,
    /// black after; a 1 kHz beep for the same time at the start, silence after.
    /// By default PCM audio (in Matroska), so no codec delay blurs the beep's
    /// position and, with `seconds` a whole number of frames, both streams end
    /// together; `audioCodec` AAC (in MP4) gives streams of unequal length.
    @discardableResult
    static func makeFlashBeepItem(in dir: URL, name: String = "item.mkv", seconds: Double = 0.5,
                                  fps: Int = 25, flashFrames: Int = 2,
                                  audioCodec: [String] = ["-c:a", "pcm_s16le"]) throws -> URL {
        let out = dir.appendingPathComponent(name)
        let flash = Double(flashFrames) / Double(fps)
        try ffmpegRun([
            "-f", "lavfi", "-i",
            "color=c=black:s=160x90:r=\(fps):d=\(seconds),format=yuv420p,geq=lum='if(lt(T\\,\(flash - 0.001))\\,235\\,16)':cb=128:cr=128",
            "-f", "lavfi", "-i",
            "sine=frequency=1000:sample_rate=48000:duration=\(seconds),volume='if(lt(t\\,\(flash))\\,1\\,0)':eval=frame",
            "-map", "0:v", "-map", "1:a",
            "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "\(fps)", "-bf", "0",
            ] + audioCodec + ["-ac", "2", "-t", "\(seconds)", out.path,
        ])
        return out
    }
}

// MARK: - A slow HTTP server (python3): first byte only after a delay

/// Serves `root` on 127.0.0.1, but holds every response `delay` seconds before
/// sending the first byte (a source that starts late).
final class SlowHTTPServer {
    let port: UInt16
    let process: RunningProcess
    let root: URL

    static let script = """
    import http.server, socketserver, sys, time, os
    port, root, delay = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
    os.chdir(root)
    class H(http.server.SimpleHTTPRequestHandler):
        def do_GET(self):
            time.sleep(delay)
            super().do_GET()
        def do_HEAD(self):
            time.sleep(delay)
            super().do_HEAD()
        def log_message(self, fmt, *args):
            sys.stderr.write("%s\\n" % (fmt % args)); sys.stderr.flush()
    class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True
        allow_reuse_address = True
    S(("127.0.0.1", port), H).serve_forever()
    """

    init(root: URL, delay: Double) throws {
        self.root = root
        let scriptURL = root.deletingLastPathComponent().appendingPathComponent("slow-http-\(UUID().uuidString.prefix(6)).py")
        try SlowHTTPServer.script.write(to: scriptURL, atomically: true, encoding: .utf8)
        var lastError = ""
        for _ in 0..<3 {
            let port = try Ports.free()
            let p = try RunningProcess(executable: "python3", arguments: [scriptURL.path, "\(port)", root.path, "\(delay)"])
            if Ports.waitUntil(timeout: 10, { Ports.tcpAccepts(port) || !p.isRunning }), p.isRunning {
                self.port = port
                self.process = p
                return
            }
            lastError = "slow HTTP server did not listen on \(port): \(p.stderr)"
            p.cleanUp()
        }
        throw HarnessError(lastError)
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }
    var log: String { process.stderr }

    func stop() {
        process.stop(signal: SIGTERM, grace: 3)
        process.cleanUp()
    }
}

extension XCTestCase {
    func startSlowHTTPServer(root: URL, delay: Double) throws -> SlowHTTPServer {
        let s = try SlowHTTPServer(root: root, delay: delay)
        addTeardownBlock { s.stop() }
        return s
    }
}

// MARK: - Events file (JSON lines)

enum EventLog {
    /// An event's own time stamp (`ts`, ISO 8601 with milliseconds).
    static func time(_ event: [String: Any]) -> Date? {
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return (event["ts"] as? String).flatMap { iso.date(from: $0) }
    }

    /// Waits until the events file holds an event `match` accepts: true then; false
    /// when `timeout` passes or `process` ends first. Woken by mediapub's writes to the
    /// file (inotify), not by a clock.
    static func waitFor(_ url: URL, of process: RunningProcess? = nil, timeout: TimeInterval = 30,
                        _ match: ([String: Any]) -> Bool) -> Bool {
        Ports.waitUntil(timeout: timeout, watching: url) {
            ((try? read(url)) ?? []).contains(where: match) || process?.isRunning == false
        } && ((try? read(url)) ?? []).contains(where: match)
    }

    /// An `output.state` event in `state`, of the output `id` (its `id:` or index) when given.
    static func outputState(_ state: String, output id: String? = nil) -> ([String: Any]) -> Bool {
        { $0["event"] as? String == "output.state" && $0["state"] as? String == state && (id == nil || $0["output"] as? String == id) }
    }

    /// A `player.progress` event at `seconds` of the player's position or later.
    static func progressed(_ seconds: Double) -> ([String: Any]) -> Bool {
        { $0["event"] as? String == "player.progress" && Double($0["position_ms"] as? Int ?? 0) >= seconds * 1000 }
    }

    static func read(_ url: URL) throws -> [[String: Any]] {
        let text = try String(contentsOf: url, encoding: .utf8)
        return try text.split(whereSeparator: \.isNewline).map { line in
            guard let obj = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw HarnessError("event line is not a JSON object: \(line)")
            }
            return obj
        }
    }
}

// MARK: - Presets for the player/capture tests

enum PlayerPreset {
    /// An audio-only preset (44.1 kHz stereo) with `players` (YAML list items,
    /// already indented by four spaces after "  - ") and one file output.
    static func audioOnly(name: String = "a", players: [String], output: URL, extra: String = "") -> String {
        preset(name: name, video: "", players: players, output: output, extra: extra)
    }

    /// A small video preset (320x180@25, keyframe 1 s, AAC 44.1 kHz stereo).
    static func video(name: String = "v", players: [String], output: URL, extra: String = "") -> String {
        preset(name: name, video: """
            video:
              size: 320x180
              fps: 25
              bitrate: 600k
              keyframe_interval: 1s
              encoder_preset: ultrafast

            """, players: players, output: output, extra: extra)
    }

    /// A tiny video preset (64x36) whose one player, `main`, plays a programme in UTC: the
    /// filler `filler.mp4` and `blocks` (YAML flow mappings, one a line).
    static func tinyProgramme(output: URL, blocks: [String]) -> String {
        video(players: ["  - id: main\n    video: true\n"], output: output, extra: """
            schedule:
              timezone: UTC
              filler: [filler.mp4]
              blocks:
            """ + blocks.map { "\n    - " + $0 }.joined())
            .replacingOccurrences(of: "size: 320x180", with: "size: 64x36")
    }

    private static func preset(name: String, video: String, players: [String], output: URL, extra: String) -> String {
        var y = "name: \(name)\n" + video + """
        audio:
          sample_rate: 44100
          channels: 2
          bitrate: 128k
        players:

        """
        for p in players { y += p.hasSuffix("\n") ? p : p + "\n" }
        y += "outputs:\n  - url: \"file://\(output.path)\"\n"
        if !extra.isEmpty { y += extra + (extra.hasSuffix("\n") ? "" : "\n") }
        return y
    }

    /// One player entry; `fields` are extra "key: value" lines.
    static func player(_ id: String, source: String, _ fields: [String] = []) -> String {
        var s = "  - id: \(id)\n    source: \"\(source)\"\n"
        for f in fields { s += "    \(f)\n" }
        return s
    }
}

// MARK: - Running a preset

extension XCTestCase {
    /// Writes `yaml` to `dir/name` and runs `mediapub --preset it ARGS` (bounded).
    func runPreset(_ yaml: String, in dir: URL, name: String = "preset.yaml", args: [String] = ["--no-realtime"],
                   timeout: TimeInterval = 90) throws -> ProcessResult {
        let preset = try writeFile(dir, name, yaml)
        return try CLI.run(["--preset", preset.path] + args, timeout: timeout)
    }
}

// MARK: - One unbroken output timeline

extension XCTestCase {
    /// The recording is one unbroken timeline: `seconds` × 25 frames,
    /// each 40 ms after the last, none backwards, and audio sample for sample.
    /// Returns the per-frame colour statistics for further checks.
    @discardableResult
    func assertUnbrokenTimeline(_ path: String, seconds: Double, fps: Double = 25,
                                file: StaticString = #filePath, line: UInt = #line) throws -> [FrameStat] {
        let stats = try MediaProbe.frameStats(path)
        XCTAssertEqual(Double(stats.count), seconds * fps, accuracy: 1, "\(seconds) s at \(fps) fps", file: file, line: line)
        let steps = zip(stats.dropFirst(), stats).map { $0.pts - $1.pts }
        let bad = steps.enumerated().filter { abs($0.element - 1 / fps) > 0.001 }
        XCTAssertTrue(bad.isEmpty, "video PTS steps other than one frame: \(bad.prefix(10))", file: file, line: line)
        let audioStart = try MediaProbe.streamStartTime(path, type: "audio")
        let pcm = try MediaProbe.decodePCM(path, rate: 44100)
        XCTAssertEqual(Double(pcm.count) / 44100 + audioStart, seconds, accuracy: 0.05,
                       "audio sample count \(pcm.count) matches \(seconds) s of output", file: file, line: line)
        return stats
    }
}

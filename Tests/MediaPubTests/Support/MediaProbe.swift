// Verification with tools we did not write: ffprobe JSON, ffmpeg decoding
// (errors, volumedetect, raw PCM), plus numeric analysis of decoded PCM.

import Foundation

struct FFProbeStream {
    let index: Int
    let codecType: String      // "video" | "audio" | ...
    let codecName: String      // "h264", "aac", ...
    let width: Int?
    let height: Int?
    let avgFrameRate: Double?  // avg_frame_rate "25/1" as 25.0
    let rFrameRate: Double?
    let sampleRate: Int?
    let channels: Int?
    let duration: Double?
    let pixFmt: String?        // "yuv420p", ...
    let profile: String?       // "High", "LC", ...
}

struct FFProbeResult {
    let formatName: String
    let duration: Double?
    let streams: [FFProbeStream]
    let rawJSON: String

    var video: FFProbeStream? { streams.first { $0.codecType == "video" } }
    var audio: FFProbeStream? { streams.first { $0.codecType == "audio" } }
    var codecNames: [String] { streams.map(\.codecName) }
}

enum MediaProbe {
    // MARK: ffprobe

    /// `ffprobe -show_format -show_streams -of json` on a path or URL.
    /// `inputOptions` go before the input (e.g. `-rw_timeout`).
    static func probe(_ input: String, inputOptions: [String] = [], timeout: TimeInterval = 30) throws -> FFProbeResult {
        let r = try Proc.run("ffprobe", ["-v", "error", "-hide_banner"] + inputOptions +
                             ["-show_format", "-show_streams", "-of", "json", input], timeout: timeout)
        guard !r.timedOut, !r.signaled, r.status == 0 else { throw HarnessError(r.summary("ffprobe \(input)")) }
        return try parse(r.stdoutData)
    }

    static func parse(_ data: Data) throws -> FFProbeResult {
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw HarnessError("ffprobe output is not a JSON object: \(String(decoding: data, as: UTF8.self))")
        }
        let format = root["format"] as? [String: Any] ?? [:]
        let streams = (root["streams"] as? [[String: Any]] ?? []).map { s in
            FFProbeStream(index: int(s["index"]) ?? -1,
                        codecType: s["codec_type"] as? String ?? "",
                        codecName: s["codec_name"] as? String ?? "",
                        width: int(s["width"]), height: int(s["height"]),
                        avgFrameRate: rational(s["avg_frame_rate"]),
                        rFrameRate: rational(s["r_frame_rate"]),
                        sampleRate: int(s["sample_rate"]), channels: int(s["channels"]),
                        duration: double(s["duration"]),
                        pixFmt: s["pix_fmt"] as? String, profile: s["profile"] as? String)
        }
        return FFProbeResult(formatName: format["format_name"] as? String ?? "",
                           duration: double(format["duration"]), streams: streams,
                           rawJSON: String(decoding: data, as: UTF8.self))
    }

    private static func int(_ v: Any?) -> Int? {
        if let n = v as? NSNumber { return n.intValue }
        if let s = v as? String { return Int(s) }
        return nil
    }

    private static func double(_ v: Any?) -> Double? {
        if let n = v as? NSNumber { return n.doubleValue }
        if let s = v as? String { return Double(s) }
        return nil
    }

    /// "30000/1001" -> 29.97; "0/0" -> nil.
    static func rational(_ v: Any?) -> Double? {
        guard let s = v as? String else { return double(v) }
        let parts = s.split(separator: "/")
        if parts.count == 2, let n = Double(parts[0]), let d = Double(parts[1]) { return d == 0 ? nil : n / d }
        return Double(s)
    }

    // MARK: ffmpeg decoding

    /// Presentation timestamps of the video packets, in file order.
    static func videoPacketPTS(_ path: String, timeout: TimeInterval = 60) throws -> [Double] {
        try packetPTS(path, stream: "v:0", timeout: timeout)
    }

    /// Presentation timestamps of one stream's packets (`v:0`, `a:0`), in file order.
    static func packetPTS(_ path: String, stream: String, timeout: TimeInterval = 60) throws -> [Double] {
        let r = try Proc.run("ffprobe", ["-v", "error", "-select_streams", stream, "-show_entries", "packet=pts_time",
                                         "-of", "csv=p=0", path], timeout: timeout)
        guard !r.timedOut, r.status == 0 else { throw HarnessError(r.summary("ffprobe packets \(path)")) }
        return r.stdout.split(whereSeparator: \.isNewline).compactMap { Double($0.trimmingCharacters(in: CharacterSet(charactersIn: " ,"))) }
    }

    /// stderr of `ffmpeg -v error -i X -f null -`: empty when it decodes cleanly.
    static func decodeErrors(_ path: String, timeout: TimeInterval = 120) throws -> String {
        let r = try Proc.run("ffmpeg", ["-nostdin", "-hide_banner", "-v", "error", "-i", path, "-f", "null", "-"], timeout: timeout)
        if r.timedOut { throw HarnessError(r.summary("ffmpeg decode \(path)")) }
        var errors = r.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
        if r.status != 0 || r.signaled {
            errors += (errors.isEmpty ? "" : "\n") + "ffmpeg exited with status \(r.status)"
        }
        return errors
    }

    /// Decoded audio, downmixed to mono float at `rate` Hz.
    static func decodePCM(_ path: String, rate: Int = 16000, timeout: TimeInterval = 120) throws -> [Float] {
        let r = try Proc.run("ffmpeg", ["-nostdin", "-hide_banner", "-v", "error", "-i", path, "-vn",
                                        "-ac", "1", "-ar", "\(rate)", "-f", "f32le", "-"], timeout: timeout)
        guard !r.timedOut, r.status == 0 else { throw HarnessError(r.summary("ffmpeg decode PCM \(path)")) }
        let data = r.stdoutData
        let count = data.count / 4
        var out = [Float](repeating: 0, count: count)
        _ = out.withUnsafeMutableBytes { data.copyBytes(to: $0, count: count * 4) }
        return out
    }

    /// `volumedetect` mean and max volume in dB.
    static func volumeDetect(_ path: String, timeout: TimeInterval = 120) throws -> (mean: Double, max: Double) {
        let r = try Proc.run("ffmpeg", ["-nostdin", "-hide_banner", "-i", path, "-vn", "-af", "volumedetect",
                                        "-f", "null", "-"], timeout: timeout)
        guard !r.timedOut, r.status == 0 else { throw HarnessError(r.summary("ffmpeg volumedetect \(path)")) }
        func value(_ key: String) -> Double? {
            for line in r.stderr.split(whereSeparator: \.isNewline) where line.contains(key) {
                let tail = line.components(separatedBy: key).last ?? ""
                let num = tail.trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init) ?? ""
                if num == "-inf" { return -Double.infinity }
                if let d = Double(num) { return d }
            }
            return nil
        }
        guard let mean = value("mean_volume:"), let max = value("max_volume:") else {
            throw HarnessError("volumedetect printed no levels for \(path):\n\(r.stderr)")
        }
        return (mean, max)
    }

    // MARK: PCM analysis

    /// RMS level in dBFS (-200 for digital silence / no samples).
    static func rmsDB(_ samples: [Float]) -> Double {
        guard !samples.isEmpty else { return -200 }
        var sum = 0.0
        for s in samples { sum += Double(s) * Double(s) }
        let rms = (sum / Double(samples.count)).squareRoot()
        return rms > 0 ? max(-200, 20 * log10(rms)) : -200
    }

    /// Frequency (Hz) of the strongest spectral peak above 20 Hz, from a
    /// Hann-windowed FFT of up to 65536 samples taken from the middle of the
    /// signal, refined by parabolic interpolation. nil when too short.
    static func dominantFrequency(_ samples: [Float], rate: Int) -> Double? {
        var n = 1
        while n * 2 <= min(samples.count, 65536) { n *= 2 }
        guard n >= 1024 else { return nil }
        let start = (samples.count - n) / 2
        var re = [Double](repeating: 0, count: n)
        var im = [Double](repeating: 0, count: n)
        for i in 0..<n {
            let w = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n - 1))
            re[i] = Double(samples[start + i]) * w
        }
        fft(&re, &im)
        let minBin = max(1, Int(20.0 * Double(n) / Double(rate)))
        var best = minBin
        var bestMag = -1.0
        var mags = [Double](repeating: 0, count: n / 2)
        for k in 0..<(n / 2) {
            mags[k] = (re[k] * re[k] + im[k] * im[k]).squareRoot()
            if k >= minBin, mags[k] > bestMag { bestMag = mags[k]; best = k }
        }
        guard bestMag > 0 else { return nil }
        var offset = 0.0
        if best > 0, best < n / 2 - 1 {
            let a = mags[best - 1], b = mags[best], c = mags[best + 1]
            let denom = a - 2 * b + c
            if denom != 0 { offset = 0.5 * (a - c) / denom }
        }
        return (Double(best) + offset) * Double(rate) / Double(n)
    }

    /// In-place iterative radix-2 FFT; count must be a power of two.
    static func fft(_ re: inout [Double], _ im: inout [Double]) {
        let n = re.count
        var j = 0
        for i in 1..<n {
            var bit = n >> 1
            while j & bit != 0 { j ^= bit; bit >>= 1 }
            j ^= bit
            if i < j { re.swapAt(i, j); im.swapAt(i, j) }
        }
        var len = 2
        while len <= n {
            let ang = -2 * Double.pi / Double(len)
            let wr = cos(ang), wi = sin(ang)
            var i = 0
            while i < n {
                var cr = 1.0, ci = 0.0
                for k in 0..<(len / 2) {
                    let ur = re[i + k], ui = im[i + k]
                    let xr = re[i + k + len / 2], xi = im[i + k + len / 2]
                    let vr = xr * cr - xi * ci
                    let vi = xr * ci + xi * cr
                    re[i + k] = ur + vr; im[i + k] = ui + vi
                    re[i + k + len / 2] = ur - vr; im[i + k + len / 2] = ui - vi
                    let ncr = cr * wr - ci * wi
                    ci = cr * wi + ci * wr
                    cr = ncr
                }
                i += len
            }
            len <<= 1
        }
    }
}

// MARK: - Assertion helpers shared by the tests

import XCTest

extension XCTestCase {
    /// ffprobe `path` and assert it has an H.264 video and an AAC audio stream.
    @discardableResult
    func assertH264AAC(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws -> FFProbeResult {
        let p = try MediaProbe.probe(path)
        XCTAssertEqual(p.video?.codecName, "h264", "video codec of \(path): \(p.rawJSON)", file: file, line: line)
        XCTAssertEqual(p.audio?.codecName, "aac", "audio codec of \(path): \(p.rawJSON)", file: file, line: line)
        if let video = p.video {
            // What every player, browser and hardware decoder takes, whatever the source was.
            XCTAssertEqual(video.pixFmt, "yuv420p", "pixel format of \(path)", file: file, line: line)
            XCTAssertTrue(["Constrained Baseline", "Baseline", "Main", "High"].contains(video.profile ?? ""),
                          "H.264 profile of \(path): \(video.profile ?? "none")", file: file, line: line)
        }
        return p
    }

    /// Assert ffmpeg decodes `path` with no error output at all.
    func assertDecodesCleanly(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let errors = try MediaProbe.decodeErrors(path)
        XCTAssertEqual(errors, "", "ffmpeg reported decode errors for \(path)", file: file, line: line)
    }
}

extension MediaProbe {
    /// Messages an H.264/AAC decoder may print when an endless stream was joined
    /// mid-GOP (before the first keyframe / parameter sets arrived).
    /// Only what the H.264 decoder prints before it has seen parameter sets
    /// and a keyframe; real damage prints other messages (e.g. "error while
    /// decoding MB", "concealing", "Packet corrupt").
    static let joinNoise = ["non-existing PPS", "non-existing SPS", "no frame!", "decode_slice_header error",
                            "SPS unavailable", "PPS unavailable", "missing picture in access unit"]

    /// Lines of `decodeErrors` output, minus the first `startAllowance` lines
    /// when those are typical join-time messages. Whatever remains is a real
    /// error in the middle of the stream.
    static func errorsAfterStart(_ errors: String, startAllowance: Int = 12) -> [String] {
        var lines = errors.split(whereSeparator: \.isNewline).map(String.init)
        var dropped = 0
        while let first = lines.first, dropped < startAllowance, joinNoise.contains(where: { first.contains($0) }) {
            lines.removeFirst()
            dropped += 1
        }
        return lines
    }
}

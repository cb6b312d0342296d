// A newcomer's first look (README): every `mediapub` command of the README's examples
// runs as written from a checkout after `make media`, `--help` names every control
// command, and the shipped channel raises no alert on its own sample media.

import Foundation
import XCTest
@testable import MediaPub

final class ReadmeExamplesTests: XCTestCase {

    /// The README's example lines that run mediapub: `VAR=value … mediapub ARGS`, as a
    /// shell splits them (quotes kept together), with the comment after `#` left out.
    private func readmeCommands() throws -> [(line: String, env: [String: String], args: [String])] {
        let readme = try String(contentsOf: CLI.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        var inBlock = false
        var commands: [(String, [String: String], [String])] = []
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") { inBlock.toggle(); continue }
            guard inBlock else { continue }
            var words = shellWords(line)
            var env: [String: String] = [:]
            while let first = words.first, let eq = first.firstIndex(of: "="), first.prefix(upTo: eq).allSatisfy({ $0.isUppercase || $0 == "_" }) {
                env[String(first[..<eq])] = String(first[first.index(after: eq)...])
                words.removeFirst()
            }
            guard words.first == "mediapub" else { continue }
            commands.append((line, env, Array(words.dropFirst())))
        }
        return commands
    }

    /// A line split as a shell splits it: words apart at spaces, "…" and '…' kept whole, `#` a comment.
    private func shellWords(_ line: String) -> [String] {
        var words: [String] = [], word = "", quote: Character?, inWord = false
        for c in line {
            if let q = quote {
                if c == q { quote = nil } else { word.append(c) }
            } else if c == "\"" || c == "'" {
                quote = c; inWord = true
            } else if c == " " {
                if inWord { words.append(word) }
                word = ""; inWord = false
            } else if c == "#" && !inWord {
                break
            } else {
                word.append(c); inWord = true
            }
        }
        if inWord { words.append(word) }
        return words
    }

    /// A fresh checkout after `make media`: the shipped presets, beside their sample media.
    private func checkout() throws -> URL {
        let media = CLI.packageRoot.appendingPathComponent("presets/media")
        guard FileManager.default.fileExists(atPath: media.appendingPathComponent("loop.mp4").path) else {
            throw HarnessError("no sample media in \(media.path): run `make media` (make test does)")
        }
        let root = try makeTempDir()
        let presets = root.appendingPathComponent("presets")
        try FileManager.default.createDirectory(at: presets, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: CLI.packageRoot.appendingPathComponent("presets").path)
        where name.hasSuffix(".yaml") {
            try FileManager.default.copyItem(at: CLI.packageRoot.appendingPathComponent("presets/\(name)"),
                                             to: presets.appendingPathComponent(name))
        }
        try FileManager.default.createSymbolicLink(at: presets.appendingPathComponent("media"), withDestinationURL: media)
        return root
    }

    /// The one recording of `pattern` (a name's prefix) under `folder`.
    private func recording(in folder: URL, prefix: String) throws -> String {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let found = names.filter { $0.hasPrefix(prefix) }
        XCTAssertEqual(found.count, 1, "one \(prefix)… in \(folder.path): \(names)")
        return folder.appendingPathComponent(try XCTUnwrap(found.first)).path
    }

    /// Each `mediapub` line of the README's examples, run from a checkout as written. What
    /// publishes to a server sends to a file instead, and a run that would last (an hour,
    /// a 24/7 channel) stops after 2 or 3 s: that is all that is changed, said line by line.
    func testEveryReadmeCommandRunsAsWritten() throws {
        let root = try checkout()
        let commands = try readmeCommands()
        var checked = 0
        for (line, env, args) in commands {
            var env = env, args = args
            let check: (ProcessResult) throws -> Void
            switch args.first {
            case "--preset" where args.contains("presets/bgm.yaml"):
                // The RTMP server a file; its hour 2 s.
                let standIn = root.appendingPathComponent("bgm-rtmp.flv")
                env["RTMP_URL"] = standIn.path
                env["BGM_DURATION"] = "2s"
                check = { _ in
                    let rec = try MediaProbe.probe(try self.recording(in: root.appendingPathComponent("out"), prefix: "bgm-"))
                    XCTAssertEqual(rec.video?.codecName, "h264", rec.rawJSON)
                    XCTAssertEqual(rec.audio?.codecName, "aac", rec.rawJSON)
                    XCTAssertEqual(rec.duration ?? 0, 2, accuracy: 0.3, rec.rawJSON)
                    XCTAssertEqual(try MediaProbe.probe(standIn.path).video?.codecName, "h264")
                }
            case "--preset" where args.contains("presets/channel.yaml"):
                // The RTMP server a file; the 24/7 channel stopped after 3 s; its black check
                // at 1 s, so that a black picture of its own media would be told in the run.
                let standIn = root.appendingPathComponent("channel-rtmp.flv")
                let events = root.appendingPathComponent("channel-events.jsonl")
                env["RTMP_URL"] = standIn.path
                args += ["--duration", "3s", "--set", "monitor.picture.black=1s", "--events", events.path]
                check = { _ in
                    let alerts = try EventLog.read(events).filter { $0["event"] as? String == "alert" }
                    XCTAssertEqual(alerts.count, 0, "no alert on the channel's own media: \(alerts)")
                    let out = try MediaProbe.probe(standIn.path)
                    XCTAssertEqual(out.video?.codecName, "h264", out.rawJSON)
                    XCTAssertEqual(out.duration ?? 0, 3, accuracy: 0.5, out.rawJSON)
                }
            case "--preset" where args.contains("presets/demo.yaml"):
                // The RTMP server (STREAM_URL) a file; its hour and a half 2 s.
                env["STREAM_URL"] = root.appendingPathComponent("stream.flv").path
                let d = try XCTUnwrap(args.firstIndex(of: "--duration"), line)
                args[d + 1] = "2s"
                check = { _ in
                    let rec = try MediaProbe.probe(try self.recording(in: root.appendingPathComponent("out"), prefix: "rec-"))
                    XCTAssertEqual(rec.video?.codecName, "h264", rec.rawJSON)
                    XCTAssertEqual(rec.duration ?? 0, 2, accuracy: 0.3, rec.rawJSON)
                }
            case "validate":
                check = { r in XCTAssertTrue(r.stdout.contains("fps: 25"), r.stdout) }
            case "probe":
                check = { r in
                    let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any], r.stdout)
                    let ms = try XCTUnwrap(json["duration_ms"] as? Int, r.stdout)
                    // The sample MP3 carries its length (a Xing header): ffprobe and mediapub agree.
                    let reference = try MediaProbe.probe(root.appendingPathComponent(args[1]).path).duration ?? 0
                    XCTAssertEqual(Double(ms) / 1000, reference, accuracy: 0.05)
                    XCTAssertEqual((json["tags"] as? [String: Any])?["title"] as? String, "Tone A", r.stdout)
                }
            case "schedule":
                check = { r in
                    let lines = r.stdout.split(separator: "\n")
                    XCTAssertEqual(lines.first, "# Europe/Paris, 24h from 2026-03-29 00:00:00 +01:00", r.stdout)
                    XCTAssertTrue(lines.contains { $0.contains("evening") && $0.contains("+02:00") }, "a block after the clocks change: \(r.stdout)")
                }
            default:
                XCTFail("a README example this test does not know: \(line)")
                continue
            }
            let r = try CLI.run(args, env: env, cwd: root, timeout: 120)
            XCTAssertEqual(r.status, 0, r.summary(line))
            do { try check(r) } catch { XCTFail("\(line): \(error)") }   // the next lines are run all the same
            checked += 1
        }
        print("README examples run: \(checked)")
        XCTAssertEqual(checked, 6, "every mediapub line of the README: \(commands.map(\.line))")
    }

    /// `--help` names every command docs/control.md lists (before: not `live` nor `overlay`).
    func testHelpNamesEveryControlCommand() throws {
        let r = try CLI.run(["--help"], timeout: 20)
        XCTAssertEqual(r.status, 0, r.summary("--help"))
        let control = try String(contentsOf: CLI.packageRoot.appendingPathComponent("docs/control.md"), encoding: .utf8)
        let commands = control.split(separator: "\n").filter { $0.hasPrefix("### `") }
            .map { $0.dropFirst(5).prefix { $0 != "`" } }
        XCTAssertGreaterThanOrEqual(commands.count, 20, "\(commands)")
        let ctl = r.stdout.components(separatedBy: "mediapub ctl").dropFirst().joined()
        for command in commands {
            let word = try NSRegularExpression(pattern: "(^|[ |(])\(NSRegularExpression.escapedPattern(for: String(command)))([ |]|$)",
                                               options: .anchorsMatchLines)
            XCTAssertNotNil(word.firstMatch(in: ctl, range: NSRange(ctl.startIndex..., in: ctl)), "--help names ctl \(command)")
        }
    }

    /// `make media`'s video is no black picture to mediapub's black check (before: a ball on
    /// black, 99.85 % black, and the shipped channel raised a black alert on it): the mean
    /// luma of every picture (made small first, which keeps its mean), by ffmpeg's
    /// signalstats, is well above its bound.
    func testSampleVideoIsNotBlack() throws {
        let media = CLI.packageRoot.appendingPathComponent("presets/media/loop.mp4")
        let r = try Proc.check(try Tools.path("ffmpeg"), ["-v", "error", "-i", media.path, "-vf",
                                                          "scale=160:90,signalstats,metadata=print:key=lavfi.signalstats.YAVG:file=-", "-f", "null", "-"])
        let means = r.stdout.split(separator: "\n").compactMap { $0.split(separator: "=").last.flatMap { Double($0) } }
        XCTAssertEqual(means.count, 300, "every picture measured")
        XCTAssertGreaterThan(means.min() ?? 0, PictureWatch.blackMean + 20, "the darkest picture's mean luma")
    }
}

// `mediapub validate FILE [--set K=V]` (README, Using it; docs/presets.md):
// exit 0 + resolved preset as YAML on stdout, or exit 2 + one line per
// problem on stderr, formatted `FILE:LINE: KEY: message`.

import Foundation
import XCTest

final class ValidateCLITests: XCTestCase {

    // MARK: helpers

    /// Writes `yaml` as `name` in a fresh temp dir and runs `mediapub validate`.
    private func validate(_ yaml: String, name: String = "preset.yaml", args: [String] = [],
                          env: [String: String] = [:], unsetEnv: [String] = []) throws -> (URL, ProcessResult) {
        let dir = try makeTempDir()
        let file = try writeFile(dir, name, yaml)
        let r = try CLI.run(["validate", file.path] + args, env: env, unsetEnv: unsetEnv, timeout: 30)
        XCTAssertFalse(r.timedOut, r.summary("mediapub validate"))
        return (file, r)
    }

    /// Asserts exit 2 and that a stderr line holds `FILE:LINE: KEY:` for one
    /// of the accepted (line, key) pairs (a `mediapub: ` prefix is fine).
    ///
    /// `fixed` is the same preset without the fault: it must validate (exit
    /// 0), which proves the reported problem is the one under test.
    private func assertProblem(_ yaml: String, fixed: String?, accept: [(line: Int, key: String)],
                               messageContains: String? = nil,
                               env: [String: String] = [:], unsetEnv: [String] = [],
                               file: StaticString = #filePath, line: UInt = #line) throws {
        if let fixed {
            let (_, ok) = try validate(fixed, env: env, unsetEnv: unsetEnv)
            XCTAssertEqual(ok.status, 0, ok.summary("control: the preset without the fault must validate"),
                           file: file, line: line)
        }
        let (preset, r) = try validate(yaml, env: env, unsetEnv: unsetEnv)
        XCTAssertEqual(r.status, 2, r.summary("validate must exit 2"), file: file, line: line)
        XCTAssertFalse(r.signaled, r.summary("validate crashed"), file: file, line: line)
        let lines = r.stderr.split(whereSeparator: \.isNewline).map(String.init)
        let prefixes = accept.map { "\(preset.path):\($0.line): \($0.key):" }
        let hit = lines.first { l in prefixes.contains { l.contains($0) } }
        XCTAssertNotNil(hit, "expected a stderr line with one of \(prefixes)\n\(r.summary("validate"))",
                        file: file, line: line)
        if let hit, let messageContains {
            XCTAssertTrue(hit.contains(messageContains), "message should mention '\(messageContains)': \(hit)",
                          file: file, line: line)
        }
    }

    // MARK: valid presets

    func testValidPresetExitsZeroAndPrintsResolvedYAMLThatValidatesAgain() throws {
        let (preset, r) = try validate(E2EPreset.basic(source: E2EPreset.testsrc, outputs: ["null://"]))
        XCTAssertEqual(r.status, 0, r.summary("validate"))
        XCTAssertTrue(r.stdout.range(of: #"(?m)^name:\s*"?t1"?\s*$"#, options: .regularExpression) != nil,
                      "resolved YAML has the name: \(r.stdout)")
        XCTAssertTrue(r.stdout.contains("players"), r.stdout)
        XCTAssertTrue(r.stdout.contains("main"), r.stdout)
        XCTAssertTrue(r.stdout.contains("640x360") || (r.stdout.contains("640") && r.stdout.contains("360")), r.stdout)

        // The resolved preset is itself a valid preset.
        let resolved = try writeFile(preset.deletingLastPathComponent(), "resolved.yaml", r.stdout)
        let again = try CLI.run(["validate", resolved.path], timeout: 30)
        XCTAssertEqual(again.status, 0, again.summary("validate of the printed preset"))
    }

    func testSetOverridesAFieldInTheResolvedPreset() throws {
        let (_, r) = try validate(E2EPreset.basic(source: E2EPreset.testsrc), args: ["--set", "video.fps=30"])
        XCTAssertEqual(r.status, 0, r.summary("validate --set"))
        XCTAssertTrue(r.stdout.range(of: #"fps:\s*"?30"?"#, options: .regularExpression) != nil, r.stdout)
        XCTAssertNil(r.stdout.range(of: #"fps:\s*"?25"?\b"#, options: .regularExpression), r.stdout)
    }

    func testEnvironmentInterpolationIsResolved() throws {
        let yaml = """
        name: ${MP_TEST_NAME:-fallback-name}
        video:
          size: 640x360
          fps: 25
        audio:
          sample_rate: 44100
          channels: 2
        players:
          - id: ${MP_TEST_PLAYER}
            source: "testsrc:?pattern=smpte&freq=440"
            video: true
        outputs:
          - url: null://
        """
        let (_, r) = try validate(yaml, env: ["MP_TEST_PLAYER": "player-from-env"], unsetEnv: ["MP_TEST_NAME"])
        XCTAssertEqual(r.status, 0, r.summary("validate"))
        XCTAssertTrue(r.stdout.contains("fallback-name"), "default used for an unset variable:\n\(r.stdout)")
        XCTAssertTrue(r.stdout.contains("player-from-env"), "variable replaced from the environment:\n\(r.stdout)")
        XCTAssertFalse(r.stdout.contains("${"), "no placeholder left:\n\(r.stdout)")

        // A set variable wins over the default.
        let (_, r2) = try validate(yaml, env: ["MP_TEST_PLAYER": "p", "MP_TEST_NAME": "name-from-env"])
        XCTAssertEqual(r2.status, 0, r2.summary("validate"))
        XCTAssertTrue(r2.stdout.contains("name-from-env"), r2.stdout)
        XCTAssertFalse(r2.stdout.contains("fallback-name"), r2.stdout)
    }

    func testUnsetVariableWithoutDefaultIsNamed() throws {
        let yaml = Self.header + """
        players:
          - id: main
            source: "testsrc:?pattern=smpte&freq=440"
            video: true
        outputs:
          - url: rtmp://127.0.0.1:1935/live/${MP_TEST_UNSET_KEY}
        """
        try assertProblem(yaml, fixed: yaml.replacingOccurrences(of: "${MP_TEST_UNSET_KEY}", with: "${MP_TEST_UNSET_KEY:-k}"),
                          accept: [(9, "outputs[0].url")], messageContains: "MP_TEST_UNSET_KEY",
                          unsetEnv: ["MP_TEST_UNSET_KEY"])
    }

    func testStreamKeysAndPassphrasesAreMaskedInValidateOutput() throws {
        let secretEnv = "sk9f8e7d6c5b4aEnvKey"
        let secretLiteral = "literalKey31415926"
        let passphrase = "verySecretPassphrase42"
        let yaml = E2EPreset.basic(source: E2EPreset.testsrc, outputs: [
            "rtmp://127.0.0.1:1935/live/${MP_TEST_STREAM_KEY}",
            "rtmp://127.0.0.1:1935/app/\(secretLiteral)",
            "srt://127.0.0.1:9000?mode=caller&passphrase=\(passphrase)",
        ])
        let (_, r) = try validate(yaml, env: ["MP_TEST_STREAM_KEY": secretEnv])
        XCTAssertEqual(r.status, 0, r.summary("validate"))
        for secret in [secretEnv, secretLiteral, passphrase] {
            XCTAssertFalse(r.stdout.contains(secret), "secret \(secret) printed on stdout:\n\(r.stdout)")
            XCTAssertFalse(r.stderr.contains(secret), "secret \(secret) printed on stderr:\n\(r.stderr)")
        }
        XCTAssertTrue(r.stdout.contains("rtmp://127.0.0.1:1935/live/****"), "masked URL shown:\n\(r.stdout)")
        XCTAssertTrue(r.stdout.contains("rtmp://127.0.0.1:1935/app/****"), "masked URL shown:\n\(r.stdout)")
    }

    func testSetValuesAreExpandedAndAReplacedValuesVariableIsNotRequired() throws {
        // The file's URL needs MP_TEST_UNSET_PASS, which is unset; --set replaces it
        // with one whose ${VAR} is expanded from the environment, then masked.
        let passphrase = "setPassphraseFromEnv42"
        let yaml = E2EPreset.basic(source: E2EPreset.testsrc, outputs: [
            "srt://127.0.0.1:9000?mode=caller&passphrase=${MP_TEST_UNSET_PASS}",
        ])
        let (_, r) = try validate(yaml, args: [
            "--set", "outputs.0.url=srt://127.0.0.1:9001?mode=caller&passphrase=${MP_TEST_SET_PASS}",
            "--set", "name=${MP_TEST_SET_NAME}",
        ], env: ["MP_TEST_SET_PASS": passphrase, "MP_TEST_SET_NAME": "name-from-set"],
           unsetEnv: ["MP_TEST_UNSET_PASS"])
        XCTAssertEqual(r.status, 0, r.summary("validate --set"))
        XCTAssertTrue(r.stdout.contains("name: name-from-set"), r.stdout)
        XCTAssertTrue(r.stdout.contains("srt://127.0.0.1:9001"), r.stdout)
        XCTAssertFalse(r.stdout.contains("${") || r.stdout.contains("$$"), "no placeholder left:\n\(r.stdout)")
        XCTAssertFalse(r.stdout.contains(passphrase) || r.stderr.contains(passphrase), r.summary("secret printed"))

        // A --set value's unset variable is named at --set.
        let (_, bad) = try validate(yaml, args: ["--set", "outputs.0.url=rtmp://h/app/${MP_TEST_UNSET_PASS}"],
                                    unsetEnv: ["MP_TEST_UNSET_PASS"])
        XCTAssertEqual(bad.status, 2, bad.summary("validate"))
        XCTAssertTrue(bad.stderr.contains("--set:0: outputs[0].url: MP_TEST_UNSET_PASS is not set"), bad.stderr)
    }

    func testAnSRTPassphraseLibsrtRefusesIsRefusedAtValidateWithoutPrintingIt() throws {
        let short = "abcde"
        let yaml = Self.header + """
        players:
          - source: "testsrc:"
        outputs:
          - url: null://
          - url: "srt://127.0.0.1:9000?mode=caller&passphrase=\(short)"
        """
        try assertProblem(yaml, fixed: yaml.replacingOccurrences(of: short, with: short + "fghij"),
                          accept: [(8, "outputs[1].url")], messageContains: "passphrase must be 10 to 79 characters")
        let (preset, r) = try validate(yaml)
        XCTAssertFalse(r.stderr.contains("passphrase=\(short)"), r.stderr)

        // The same from the command line, as --output and as --output-env.
        let url = "srt://127.0.0.1:9000?passphrase=\(short)"
        let run = ["--preset", preset.path, "--duration", "1s"]
        let viaFlag = try CLI.run(run + ["--output", url], timeout: 30)
        let viaEnv = try CLI.run(run + ["--output-env", "MP_TEST_SRT_URL"], env: ["MP_TEST_SRT_URL": url], timeout: 30)
        for r in [viaFlag, viaEnv] {
            XCTAssertEqual(r.status, 2, r.summary("mediapub"))
            XCTAssertTrue(r.stderr.contains("passphrase must be 10 to 79 characters (libsrt refuses others), got 5"), r.stderr)
            XCTAssertFalse(r.stderr.contains("passphrase=\(short)"), r.stderr)
        }
    }

    func testAMissingSourceFileIsAnErrorAtItsLine() throws {
        let dir = try makeTempDir()
        let there = try writeFile(dir, "there.mp4", "x").path
        let yaml = Self.header + """
        players:
          - source: "testsrc:"
          - source: \(dir.path)/typo.mp4
        """
        try assertProblem(yaml, fixed: yaml.replacingOccurrences(of: "\(dir.path)/typo.mp4", with: there),
                          accept: [(6, "players[1].source")], messageContains: "cannot find \(dir.path)/typo.mp4")
    }

    func testAPlaylistsMissingItemsAreWarnedOfOneLineEachAndAllMissingIsAnError() throws {
        let dir = try makeTempDir()
        let there = try writeFile(dir, "there.mp3", "x").path
        let m3u = try writeFile(dir, "list.m3u", "#EXTM3U\n\(there)\nlisted-gone.mp3\n").path
        let yaml = Self.header + """
        players:
          - playlist: [\(there), \(dir.path)/gone-1.mp3, "https://example.com/remote.mp3", \(dir.path)/gone-2.mp3]
          - playlist: {file: \(m3u)}
        """
        let (preset, r) = try validate(yaml)
        XCTAssertEqual(r.status, 0, r.summary("some items missing"))
        let lines = r.stderr.split(whereSeparator: \.isNewline).map(String.init)
        XCTAssertEqual(lines, [
            "mediapub: warning: \(preset.path):5: players[0].playlist[1]: cannot find \(dir.path)/gone-1.mp3; it is skipped when its turn comes",
            "mediapub: warning: \(preset.path):5: players[0].playlist[3]: cannot find \(dir.path)/gone-2.mp3; it is skipped when its turn comes",
            "mediapub: warning: \(preset.path):6: players[1].playlist.file: cannot find \(dir.path)/listed-gone.mp3 (entry 2 of \(m3u)); it is skipped when its turn comes",
        ])
        XCTAssertTrue(r.stdout.contains("gone-1.mp3"), "the items stay in the resolved preset:\n\(r.stdout)")

        let allGone = Self.header + """
        players:
          - playlist: [\(dir.path)/gone-1.mp3, \(dir.path)/gone-2.mp3]
        """
        try assertProblem(allGone, fixed: allGone.replacingOccurrences(of: "\(dir.path)/gone-2.mp3", with: there),
                          accept: [(5, "players[0].playlist[0]")], messageContains: "none of the playlist's 2 items is there")
    }

    func testWebhookSecretsStayOutOfValidateOutputAndErrors() throws {
        let path = "T0123/B0456/hookPathSecret789"
        let token = "hookQueryToken321"
        let yaml = E2EPreset.basic(source: E2EPreset.testsrc,
                                   extra: "events:\n  webhook: \"https://hooks.slack.com/services/\(path)?token=\(token)\"")
        let (preset, r) = try validate(yaml)
        XCTAssertEqual(r.status, 0, r.summary("validate"))
        XCTAssertTrue(r.stdout.contains("https://hooks.slack.com/…"), "scheme and host shown:\n\(r.stdout)")
        for secret in ["T0123", "hookPathSecret789", token] {
            XCTAssertFalse(r.stdout.contains(secret) || r.stderr.contains(secret), "\(secret) printed:\n\(r.summary("validate"))")
        }
        // The printed preset is a valid preset again.
        let resolved = try writeFile(preset.deletingLastPathComponent(), "resolved.yaml", r.stdout)
        let again = try CLI.run(["validate", resolved.path], timeout: 30)
        XCTAssertEqual(again.status, 0, again.summary("validate of the printed preset"))

        // Not an http(s) URL: the error names the host, never the path or query.
        let wrong = E2EPreset.basic(source: E2EPreset.testsrc,
                                    extra: "events:\n  webhook: \"htps://hooks.slack.com/services/\(path)?token=\(token)\"")
        let (file, bad) = try validate(wrong)
        XCTAssertEqual(bad.status, 2, bad.summary("validate"))
        XCTAssertTrue(bad.stderr.contains("\(file.path):18: events.webhook: \"htps://hooks.slack.com/…\" is not an http"),
                      bad.summary("validate"))
        for secret in ["T0123", "hookPathSecret789", token] {
            XCTAssertFalse(bad.stdout.contains(secret) || bad.stderr.contains(secret), "\(secret) printed:\n\(bad.summary("validate"))")
        }
    }

    // MARK: each error class -> exit 2, FILE:LINE: KEY

    /// Lines 1-3 of every error-class preset.
    static let header = """
    name: t1
    video: {size: 640x360, fps: 25, bitrate: 800k, keyframe_interval: 1s}
    audio: {sample_rate: 44100, channels: 2, bitrate: 96k}

    """

    func testOutOfRangeValueIsReported() throws {
        let yaml = Self.header + """
        players:
          - id: main
            source: "testsrc:?pattern=smpte&freq=440"
            speed: 9
            video: true
        outputs:
          - url: null://
        """
        try assertProblem(yaml, fixed: yaml.replacingOccurrences(of: "speed: 9", with: "speed: 2"),
                          accept: [(7, "players[0].speed")], messageContains: "9")
    }

    func testOutOfRangePublishVolumeOnSecondPlayerIsReported() throws {
        let yaml = Self.header + """
        players:
          - id: main
            source: "testsrc:?pattern=smpte&freq=440"
            video: true
          - id: music
            source: "testsrc:?pattern=smpte&freq=660"
            publish_volume: 300
        outputs:
          - url: null://
        """
        try assertProblem(yaml, fixed: yaml.replacingOccurrences(of: "publish_volume: 300", with: "publish_volume: 150"),
                          accept: [(10, "players[1].publish_volume")], messageContains: "300")
    }

    func testUnknownKeysAreReported() throws {
        let nested = """
        name: t1
        video:
          size: 640x360
          fps: 25
          colour: red
        players:
          - id: main
            source: "testsrc:?pattern=smpte&freq=440"
            video: true
        outputs:
          - url: null://
        """
        try assertProblem(nested, fixed: nested.replacingOccurrences(of: "  colour: red\n", with: ""),
                          accept: [(5, "video.colour")])

        let player = Self.header + """
        players:
          - id: main
            source: "testsrc:?pattern=smpte&freq=440"
            spede: 2
            video: true
        outputs:
          - url: null://
        """
        try assertProblem(player, fixed: player.replacingOccurrences(of: "spede", with: "speed"),
                          accept: [(7, "players[0].spede")])

        let top = player.replacingOccurrences(of: "spede", with: "speed") + "\nbogus: 1\n"
        try assertProblem(top, fixed: nil, accept: [(11, "bogus")])
    }

    func testEveryProblemGetsItsOwnLine() throws {
        let yaml = """
        name: t1
        video:
          size: 640x360
          fps: 25
          colour: red
        players:
          - id: main
            source: "testsrc:?pattern=smpte&freq=440"
            speed: 9
            video: true
        outputs:
          - url: null://
        """
        let (preset, r) = try validate(yaml)
        XCTAssertEqual(r.status, 2, r.summary("validate"))
        XCTAssertTrue(r.stderr.contains("\(preset.path):5: video.colour:"), r.stderr)
        XCTAssertTrue(r.stderr.contains("\(preset.path):9: players[0].speed:"), r.stderr)
        let problemLines = r.stderr.split(whereSeparator: \.isNewline).filter { $0.contains(preset.path + ":") }
        XCTAssertEqual(problemLines.count, 2, r.stderr)
    }

    func testTwoVideoPlayersAreReported() throws {
        let yaml = Self.header + """
        players:
          - id: a
            source: "testsrc:?pattern=smpte&freq=440"
            video: true
          - id: b
            source: "testsrc:?pattern=ball&freq=330"
            video: true
        outputs:
          - url: null://
        """
        let fixed = yaml.replacingOccurrences(of: "freq=330\"\n    video: true", with: "freq=330\"\n    video: false")
        XCTAssertNotEqual(fixed, yaml)
        try assertProblem(yaml, fixed: fixed, accept: [(10, "players[1].video"), (8, "players[1]")])
    }

    func testFivePlayersAreReported() throws {
        func players(_ n: Int) -> String {
            var yaml = Self.header + "players:\n"
            for i in 0..<n {
                yaml += "  - id: p\(i)\n    source: \"testsrc:?pattern=smpte&freq=\(440 + 10 * i)\"\n"
                yaml += "    video: \(i == 0)\n"
            }
            return yaml + "outputs:\n  - url: null://\n"
        }
        // players: on line 4; players[4] starts on line 5 + 4 * 3 = 17
        try assertProblem(players(5), fixed: players(4), accept: [(4, "players"), (17, "players[4]"), (17, "players")])
    }

    func testEmptyPlaylistIsReported() throws {
        let yaml = Self.header + """
        players:
          - id: main
            source: "testsrc:?pattern=smpte&freq=440"
            video: true
          - id: music
            playlist: {items: []}
        outputs:
          - url: null://
        """
        let fixed = yaml.replacingOccurrences(of: "{items: []}", with: "{items: [\"testsrc:?pattern=smpte&freq=660\"]}")
        try assertProblem(yaml, fixed: fixed, accept: [(9, "players[1].playlist.items"), (9, "players[1].playlist")])
    }

    func testMalformedYAMLIsReportedWithItsLine() throws {
        // libyaml: "did not find expected key" at line 4 (the mis-indented key).
        let yaml = """
        name: t1
        video:
          size: 640x360
         fps: 25
        players:
          - id: main
            source: "testsrc:?pattern=smpte&freq=440"
            video: true
        outputs:
          - url: null://
        """
        try assertProblem(yaml, fixed: yaml.replacingOccurrences(of: "\n fps: 25", with: "\n  fps: 25"),
                          accept: [(4, "yaml")])
    }

    func testMissingPresetFileIsAUsageError() throws {
        let dir = try makeTempDir()
        let missing = dir.appendingPathComponent("nope.yaml").path
        let r = try CLI.run(["validate", missing], timeout: 30)
        XCTAssertEqual(r.status, 2, r.summary("validate of a missing file"))
        XCTAssertTrue(r.stderr.contains(missing), "the message names the file:\n\(r.stderr)")
    }

    // MARK: the names outputs write

    /// Players on line 4, outputs on line 6: the first output's url on line 7, its keys after.
    private static func outputs(_ body: String) -> String {
        header + "players:\n  - source: \"testsrc:\"\noutputs:\n" + body
    }

    /// keep and max_age of a pattern with a field whose text has no fixed width (`%-H`,
    /// `%s`) or is words (`%a`): refused, naming the field (before: matched loosely or never).
    func testRetentionOfAPatternItCannotMatchExactlyIsRefusedNamingTheField() throws {
        let keep = Self.outputs("  - url: /tmp/rec/cam-%-H.mp4\n    segment: 1h\n    keep: 2\n")
        try assertProblem(keep, fixed: keep.replacingOccurrences(of: "%-H", with: "%H"), accept: [(9, "outputs[0].keep")],
                          messageContains: "%-H")
        let age = Self.outputs("  - url: /tmp/rec/cam-%a-%s.mkv\n    max_age: 7d\n")
        try assertProblem(age, fixed: age.replacingOccurrences(of: "%a-%s", with: "%u-%H%M%S"), accept: [(8, "outputs[0].max_age")],
                          messageContains: "%a")
    }

    /// A `%` strftime does not know (`%N`) would be copied into the name as written: refused.
    func testAPercentThatIsNoStrftimeFieldIsRefused() throws {
        let yaml = Self.outputs("  - url: /tmp/rec/cam-%N.mp4\n")
        try assertProblem(yaml, fixed: yaml.replacingOccurrences(of: "%N", with: "%%N"), accept: [(7, "outputs[0].url")],
                          messageContains: "%N is not a strftime field")
    }

    /// Segments of a minute named by the day would share one name: refused, naming the field needed.
    func testASegmentedPatternThatCannotTellItsFilesApartIsRefused() throws {
        let yaml = Self.outputs("  - url: /tmp/rec/rec-%Y%m%d.mp4\n    segment: 1m\n")
        try assertProblem(yaml, fixed: yaml.replacingOccurrences(of: "%Y%m%d", with: "%Y%m%d-%H%M"), accept: [(8, "outputs[0].segment")],
                          messageContains: "needs %M")
    }

    /// Two outputs that would write the same names (the same pattern, overlapping patterns,
    /// one HLS playlist twice, a file among HLS segments): refused at the second, naming both.
    func testTwoOutputsThatWouldWriteTheSameNamesAreRefused() throws {
        let cases: [(String, String, String)] = [
            ("/tmp/rec/rec-%H%M%S.mp4", "/tmp/rec/rec-%H%M%S.mp4", "/tmp/rec/other-%H%M%S.mp4"),
            ("/tmp/rec/cam-%H.mp4", "/tmp/rec/cam-%k.mp4", "/tmp/rec/cam-%k.mkv"),
            ("/tmp/rec/cam-%H.mp4", "/tmp/rec/cam-%H-%M.mp4", "/tmp/rec/cam-%Hh%M.mp4"),
            ("hls:///tmp/www/index.m3u8", "hls:///tmp/www/index.m3u8?segment=2s", "hls:///tmp/www/other.m3u8"),
            ("hls:///tmp/www/index.m3u8", "/tmp/www/index-%Y%m%d-%H%M%S-00001.ts", "/tmp/www/index-%Y%m%d.ts"),
        ]
        for (first, second, apart) in cases {
            let yaml = Self.outputs("  - url: \(first)\n  - url: \(second)\n")
            try assertProblem(yaml, fixed: Self.outputs("  - url: \(first)\n  - url: \(apart)\n"), accept: [(8, "outputs[1].url")],
                              messageContains: "and outputs[0] (")
        }
        // Two `--output`s of a run, the same way: refused before anything is written.
        let dir = try makeTempDir()
        let preset = try writeFile(dir, "t.yaml", E2EPreset.basic(source: E2EPreset.testsrc))
        let r = try CLI.run(["--preset", preset.path, "--output", dir.path + "/r-%H.mp4", "--output", dir.path + "/r-%k.mp4",
                             "--duration", "1s"], timeout: 30)
        XCTAssertEqual(r.status, 2, r.summary("two --outputs that would write the same names"))
        XCTAssertTrue(r.stderr.contains("r-%k.mp4 and --output file://\(dir.path)/r-%H.mp4 would write files of the same names"), r.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["t.yaml"])
    }

    /// hlssink2 reads its segments' path as a printf format: a `%` in an HLS path is refused.
    func testAPercentInAnHLSPathIsRefused() throws {
        let yaml = Self.outputs("  - url: hls:///tmp/x/a%s%n/index.m3u8\n")
        try assertProblem(yaml, fixed: yaml.replacingOccurrences(of: "a%s%n", with: "asn"), accept: [(7, "outputs[0].url")],
                          messageContains: "an HLS path takes no %")
    }
}

import XCTest
@testable import MediaPub
@testable import MediaPubTestSupport

final class PresetLoaderTests: XCTestCase {
    typealias K = PresetTestKit

    func testMinimalPresetGetsDefaults() throws {
        let p = try K.load("players:\n  - source: a.mp3\n")
        XCTAssertEqual(p.name, "t")
        XCTAssertNil(p.video)
        XCTAssertNil(p.videoPlayerIndex)
        XCTAssertEqual(p.audio, AudioConfig(sampleRate: 48000, channels: 2, bitrate: 128_000))
        XCTAssertEqual(p.players.count, 1)
        let pl = p.players[0]
        XCTAssertEqual(pl.id, "player1")
        XCTAssertEqual(pl.source, "/srv/mp/a.mp3")
        XCTAssertNil(pl.playlist)
        XCTAssertFalse(pl.repeat)
        XCTAssertFalse(pl.video)
        XCTAssertTrue(pl.aux)
        XCTAssertEqual(pl.publishVolume, 100)
        XCTAssertEqual(pl.playVolume, 100)
        XCTAssertEqual(pl.speed, 1.0)
        XCTAssertEqual(pl.pitch, 0)
        XCTAssertEqual(pl.progressInterval, 1)
        XCTAssertEqual(p.standby, StandbyConfig(image: nil, color: "#000000", audio: nil))
        XCTAssertTrue(p.publishing)
        XCTAssertEqual(p.outputs, [])
        XCTAssertEqual(p.reconnect, ReconnectConfig(initial: 1, max: 30, giveUpAfter: 600))
        XCTAssertEqual(p.stop, StopConfig(after: nil, atEnd: true))
        XCTAssertFalse(p.monitor)
        XCTAssertNil(p.events.webhook)
        XCTAssertEqual(p.file, K.file)
        XCTAssertEqual(p.baseDirectory, K.base)
    }

    func testVideoDefaultsAndFirstPlayerFeedsVideo() throws {
        let p = try K.load("""
            video: {}
            players:
              - source: a.mp4
              - source: b.mp3
            """)
        XCTAssertEqual(p.video, VideoConfig())
        XCTAssertEqual(p.video?.bitrate, 2_500_000)
        XCTAssertEqual(p.video?.encoderPreset, "veryfast")
        XCTAssertEqual(p.videoPlayerIndex, 0)
        XCTAssertTrue(p.players[0].video)
        XCTAssertFalse(p.players[1].video)
        XCTAssertEqual(p.players.map(\.id), ["player1", "player2"])
    }

    func testExplicitVideoPlayer() throws {
        let p = try K.load("""
            video:
              size: 1920x1080
              fps: 25
              bitrate: 4.5M
              keyframe_interval: 500ms
              encoder: openh264
              encoder_preset: fast
            players:
              - source: a.mp3
              - source: b.mp4
                video: yes
            """)
        XCTAssertEqual(p.video, VideoConfig(width: 1920, height: 1080, fps: 25, bitrate: 4_500_000,
                                            keyframeInterval: 0.5, encoder: .openh264, encoderPreset: "fast"))
        XCTAssertEqual(p.videoPlayerIndex, 1)
        XCTAssertFalse(p.players[0].video)
    }

    func testTypedValues() throws {
        let p = try K.load("""
            name: my.show-1
            players:
              - id: music
                source: https://cdn.example.com/c.aac
                repeat: on
                aux: off
                publish_volume: "40%"
                play_volume: 0
                mute_local: yes
                speed: 1.5
                pitch: -3.5
                start_at: 1:30
                progress_interval: 250ms
                memory: true
            publishing: no
            monitor: true
            stop: { after: 2h, at_end: false }
            reconnect: { initial: 500ms, max: 1m, give_up_after: never }
            """)
        XCTAssertEqual(p.name, "my.show-1")
        let m = p.players[0]
        XCTAssertEqual(m, PlayerConfig(id: "music", source: "https://cdn.example.com/c.aac", repeat: true,
                                       video: false, aux: false, publishVolume: 40, playVolume: 0, muteLocal: true,
                                       speed: 1.5, pitch: -3.5, startAt: 90, progressInterval: 0.25, memory: true))
        XCTAssertFalse(p.publishing)
        XCTAssertTrue(p.monitor)
        XCTAssertEqual(p.stop, StopConfig(after: 7200, atEnd: false))
        XCTAssertEqual(p.reconnect, ReconnectConfig(initial: 0.5, max: 60, giveUpAfter: .infinity))
    }

    func testMalformedYAMLNamesLine() {
        let probs = K.problems("players:\n  - source: a.mp3\n    repeat: [true\nname: x\n")
        XCTAssertEqual(probs.count, 1)
        XCTAssertEqual(probs.first?.file, K.file)
        XCTAssertEqual(probs.first?.key, "yaml")
        XCTAssertGreaterThanOrEqual(probs.first?.line ?? 0, 3)
        XCTAssertTrue(probs.first?.description.hasPrefix("presets/t.yaml:") ?? false)

        let tab = K.problems("name: x\nplayers:\n\t- source: a\n")
        XCTAssertEqual(tab.map(\.line), [3])
        XCTAssertEqual(tab.map(\.key), ["yaml"])
    }

    func testTopLevelMustBeMapping() {
        let probs = K.problems("- a\n- b\n")
        XCTAssertEqual(probs, [PresetProblem(file: K.file, line: 1, key: "preset",
                                             message: "expected a mapping of settings, got a list")])
    }

    func testUnknownKeysEverywhere() {
        let probs = K.problems("""
            name: x
            vidoe: {}
            video:
              fpss: 30
            players:
              - source: a.mp3
                colour: red
                playlist_x: 1
            outputs:
              - url: null://
                name: n
            """)
        XCTAssertEqual(probs.map(\.key), ["vidoe", "video.fpss", "players[0].colour", "players[0].playlist_x",
                                          "outputs[0].name"])
        XCTAssertEqual(probs.map(\.line), [2, 4, 7, 8, 11])
        XCTAssertEqual(probs[0].message, "unknown key (did you mean video?)")
        XCTAssertEqual(probs[1].message, "unknown key (did you mean fps?)")
        XCTAssertEqual(probs[0].description, "presets/t.yaml:2: vidoe: unknown key (did you mean video?)")
    }

    func testWrongTypes() {
        let probs = K.problems("""
            video:
              fps: abc
              bitrate: lots
              keyframe_interval: soon
            audio: 44100
            players:
              - source: [a, b]
                speed: fast
                repeat: maybe
                publish_volume: 40.5
            """)
        let got = probs.map { "\($0.line) \($0.key) \($0.message)" }
        XCTAssertEqual(got, [
            "2 video.fps \"abc\" is not a whole number",
            "3 video.bitrate \"lots\" is not a bitrate (like 128k, 2.5M or bits per second)",
            "4 video.keyframe_interval \"soon\" is not a duration (like 500ms, 2s, 10m, 1h30m, 01:30:00)",
            "5 audio expected a mapping of sample_rate, channels, bitrate, loudness, got a scalar",
            "7 players[0].source expected text, got a list",
            "8 players[0].speed \"fast\" is not a number",
            "9 players[0].repeat \"maybe\" is not true or false",
            "10 players[0].publish_volume \"40.5\" is not a whole number",
        ])
    }

    func testOutOfRangeValues() {
        let probs = K.problems("""
            video:
              size: 1281x720
              fps: 0
              bitrate: 60M
              keyframe_interval: 30s
              encoder: quicksync
              encoder_preset: turbo
            audio:
              sample_rate: 44000
              channels: 3
              bitrate: 8k
            players:
              - source: a.mp4
              - source: b.mp3
                speed: 5
                pitch: 13
                publish_volume: 201%
                play_volume: -1
                progress_interval: 50ms
            reconnect:
              initial: 5s
              max: 2s
            """)
        XCTAssertEqual(probs.map(\.description), [
            "presets/t.yaml:2: video.size: width 1281 must be even",
            "presets/t.yaml:3: video.fps: 0 is out of range 1..120",
            "presets/t.yaml:4: video.bitrate: 60M is out of range 100k..50M",
            "presets/t.yaml:5: video.keyframe_interval: 30s is out of range 100ms..20s",
            "presets/t.yaml:6: video.encoder: \"quicksync\" is not one of x264, openh264, vaapi, nvenc, v4l2, auto",
            "presets/t.yaml:7: video.encoder_preset: \"turbo\" is not one of ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow, placebo",
            "presets/t.yaml:9: audio.sample_rate: 44000 is not a supported sample rate (8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 88200, 96000)",
            "presets/t.yaml:10: audio.channels: 3 is out of range 1..2",
            "presets/t.yaml:11: audio.bitrate: 8k is out of range 16k..512k",
            "presets/t.yaml:15: players[1].speed: 5 is out of range 0.5..4.0",
            "presets/t.yaml:16: players[1].pitch: 13 is out of range -12..12",
            "presets/t.yaml:17: players[1].publish_volume: 201% is out of range 0..200",
            "presets/t.yaml:18: players[1].play_volume: -1 is out of range 0..200",
            "presets/t.yaml:19: players[1].progress_interval: 50ms is out of range 100ms..1h",
            "presets/t.yaml:22: reconnect.max: 2s is shorter than reconnect.initial (5s)",
        ])
    }

    func testTwoVideoPlayers() {
        let probs = K.problems("""
            video: {}
            players:
              - source: a.mp4
                video: true
              - source: b.mp4
                video: true
            """)
        XCTAssertEqual(probs, [PresetProblem(file: K.file, line: 6, key: "players[1].video",
                                             message: "only one player can feed video; players[0] already does")])
    }

    func testVideoPlayerWithoutVideoSection() {
        let probs = K.problems("players:\n  - source: a.mp4\n    video: true\n")
        XCTAssertEqual(probs.map(\.description),
                       ["presets/t.yaml:3: players[0].video: video: true but the preset has no video section"])
    }

    func testFirstPlayerSayingNoVideoIsRespected() throws {
        let p = try K.load("video: {}\nplayers:\n  - source: a.mp3\n    video: false\n  - source: b.mp3\n")
        XCTAssertNil(p.videoPlayerIndex)
    }

    func testFivePlayersRefused() {
        let yaml = "players:\n" + (1...5).map { "  - source: s\($0).mp3\n" }.joined()
        let probs = K.problems(yaml)
        XCTAssertEqual(probs, [PresetProblem(file: K.file, line: 6, key: "players[4]",
                                             message: "at most 4 players; a 5th is refused")])
        XCTAssertNoThrow(try K.load("players:\n" + (1...4).map { "  - source: s\($0).mp3\n" }.joined()))
    }

    func testZeroPlayers() {
        XCTAssertEqual(K.problems("name: x\nplayers: []\n").map(\.description),
                       ["presets/t.yaml:2: players: at least one player is required"])
        XCTAssertEqual(K.problems("name: x\n").map(\.description),
                       ["presets/t.yaml:1: players: at least one player is required"])
        XCTAssertEqual(K.problems("").map(\.key), ["players"])
    }

    func testDuplicateIdsAndBadIds() {
        let probs = K.problems("""
            players:
              - id: music
                source: a.mp3
              - id: music
                source: b.mp3
              - id: "bad id"
                source: c.mp3
            """)
        XCTAssertEqual(probs.map(\.description), [
            "presets/t.yaml:4: players[1].id: duplicate player id \"music\" (also players[0])",
            "presets/t.yaml:6: players[2].id: \"bad id\" is not a valid id (letters, digits, '_', '-')",
        ])
    }

    func testSourceAndPlaylistBothOrNeither() {
        let probs = K.problems("""
            players:
              - id: both
                source: a.mp3
                playlist: { items: [b.mp3] }
              - id: neither
                repeat: true
            """)
        XCTAssertEqual(probs.map(\.description), [
            "presets/t.yaml:3: players[0].source: source and playlist are exclusive: give one of them",
            "presets/t.yaml:5: players[1]: needs a source or a playlist",
        ])
    }

    func testSourcesOfUnknownKindsAndBadTestPatternsAreNamed() throws {
        let probs = K.problems("""
            players:
              - source: "testsrc:?pattern=bogus"
              - source: "rtsp://camera.local/stream"
              - playlist:
                  items: [a.mp3, "testsrc:?freq=0", "testsrc:?pattern=ball&sped=2"]
            """)
        XCTAssertEqual(probs.count, 4, "\(probs)")
        let text = probs.map(\.description)
        XCTAssertTrue(text[0].hasPrefix("presets/t.yaml:2: players[0].source: unknown pattern \"bogus\" (one of smpte, snow,"), text[0])
        XCTAssertTrue(text[0].contains("ball"), "the valid patterns, as GStreamer's videotestsrc names them: \(text[0])")
        XCTAssertEqual(Array(text[1...]), [
            "presets/t.yaml:3: players[1].source: not a path, file://, http(s):// or testsrc: source",
            "presets/t.yaml:5: players[2].playlist.items[1]: freq must be 1..24000 Hz",
            "presets/t.yaml:5: players[2].playlist.items[2]: unknown testsrc option sped",
        ])
        // A file name with a colon is a path, not a URL; standby audio gets the same check.
        let colon = try K.load("players:\n  - source: \"Re:Zero.mp3\"\n")
        XCTAssertEqual(colon.players.map(\.source), [K.base + "/Re:Zero.mp3"])
        XCTAssertEqual(K.problems("players:\n  - source: \"https:/cdn.example.com/a.mp3\"\n").map(\.description),
                       ["presets/t.yaml:2: players[0].source: not a path, file://, http(s):// or testsrc: source"],
                       "a URL with one slash is a typo, not a file name")
        XCTAssertEqual(K.problems("players:\n  - source: a.mp3\nstandby:\n  audio: \"rtsp://cam/ring\"\n").map(\.description),
                       ["presets/t.yaml:4: standby.audio: not a path, file://, http(s):// or testsrc: source"])
        // A pattern by name or by videotestsrc's number is fine.
        let ok = try K.load("players:\n  - source: \"testsrc:?pattern=ball&freq=1000\"\n  - source: \"testsrc:?pattern=18\"\n")
        XCTAssertEqual(ok.players.map(\.source), ["testsrc:?pattern=ball&freq=1000", "testsrc:?pattern=18"])
    }

    func testEmptyPlaylists() {
        let probs = K.problems("""
            players:
              - playlist:
                  items: []
              - playlist: { mode: shuffle }
              - playlist:
                  items:
                    - a.mp3
                    -
                    - {x: 1}
            """)
        XCTAssertEqual(probs.map(\.description), [
            "presets/t.yaml:3: players[0].playlist.items: empty playlist",
            "presets/t.yaml:4: players[1].playlist: needs items, file or dir",
            "presets/t.yaml:8: players[2].playlist.items[1]: empty playlist item",
            "presets/t.yaml:9: players[2].playlist.items[2]: expected text, got a mapping",
        ])
    }

    func testPlaylistModesAndShorthand() throws {
        let p = try K.load("""
            players:
              - playlist: [a.mp3, "https://x/y.aac"]
              - playlist: { items: [c.mp3], mode: repeat-one }
            """)
        XCTAssertEqual(p.players[0].playlist, PlaylistConfig(items: ["/srv/mp/a.mp3", "https://x/y.aac"], mode: .loop))
        XCTAssertEqual(p.players[1].playlist?.mode, .repeatOne)
        let probs = K.problems("players:\n  - playlist: { items: [a], mode: random }\n")
        XCTAssertEqual(probs.map(\.description),
                       ["presets/t.yaml:2: players[0].playlist.mode: \"random\" is not one of loop, shuffle, repeat-one, once"])
    }

    func testDuplicateKey() {
        let probs = K.problems("players:\n  - source: a.mp3\nmonitor: true\nmonitor: false\n")
        XCTAssertEqual(probs.map(\.description), ["presets/t.yaml:4: monitor: duplicate key"])
    }

    func testAllProblemsAreCollected() {
        let probs = K.problems("""
            video:
              fps: 500
            players:
              - source: a.mp3
                speed: 9
            outputs:
              - url: ftp://x/y
            monitor: perhaps
            """)
        XCTAssertEqual(probs.map(\.key), ["video.fps", "players[0].speed", "outputs[0].url", "monitor"])
        XCTAssertEqual(probs.map(\.line), [2, 5, 7, 8])
        let err = PresetError(problems: probs)
        XCTAssertEqual(err.description.split(separator: "\n").count, 4)
    }

    func testStandbyColor() throws {
        XCTAssertEqual(try K.load("players: [{source: a}]\nstandby: {color: \"#1a2\"}\n").standby.color, "#11AA22")
        XCTAssertEqual(try K.load("players: [{source: a}]\nstandby: {color: white}\n").standby.color, "#FFFFFF")
        XCTAssertEqual(try K.load("players: [{source: a}]\nstandby: {color: \"#101010\"}\n").standby.color, "#101010")
        let probs = K.problems("""
            players: [{source: a}]
            standby:
              color: #101010
            """)
        XCTAssertEqual(probs.map(\.key), ["standby.color"])
        XCTAssertEqual(probs.map(\.line), [3])
        XCTAssertTrue(probs[0].message.contains("quote it"))
        XCTAssertEqual(K.problems("players: [{source: a}]\nstandby:\n  color: mauve\n").map(\.line), [3])
    }

    func testStandbyFilesMustExist() throws {
        let dir = try K.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        K.touch(dir + "/slate.png")
        let p = try K.load("players: [{source: a}]\nstandby:\n  image: slate.png\n", base: dir)
        XCTAssertEqual(p.standby.image, dir + "/slate.png")
        let probs = K.problems("players: [{source: a}]\nstandby:\n  image: slate.png\n  color: red\n  audio: ring.mp3\n",
                               base: dir)
        XCTAssertEqual(probs.map(\.description), [
            "presets/t.yaml:4: standby.color: image and color are exclusive: give one of them",
            "presets/t.yaml:5: standby.audio: cannot find \(dir)/ring.mp3",
        ])
    }

    func testOutputs() throws {
        let p = try K.load("""
            players: [{source: a}]
            outputs:
              - url: rtmp://live.example.com/app/key1
              - url: rtmps://live.example.com:443/app/key2
              - url: srt://0.0.0.0:9000?mode=listener&latency=200
              - url: srt://:9001?mode=listener
              - url: file:///var/rec/x-%Y%m%d.mp4
              - url: rec/out.MKV
              - url: null://
              - "null:"
              - ../up/x.ts
              - "Re:Zero %H:%M.mp4"
            """)
        XCTAssertEqual(p.outputs.map(\.url.text), [
            "rtmp://live.example.com/app/key1", "rtmps://live.example.com:443/app/key2",
            "srt://0.0.0.0:9000?mode=listener&latency=200", "srt://:9001?mode=listener",
            "file:///var/rec/x-%Y%m%d.mp4", "file:///srv/mp/rec/out.MKV", "null://", "null:", "file:///srv/up/x.ts",
            "file:///srv/mp/Re:Zero %H:%M.mp4",
        ])
    }

    func testOutputIdsAreNamesUniqueAmongIdsAndIndexes() throws {
        let p = try K.load("""
            players: [{source: a}]
            outputs:
              - id: archive
                url: rec.mp4
              - rtmp://h/app/k
            """)
        XCTAssertEqual(p.outputs, [OutputConfig(url: try OutputURL("file:///srv/mp/rec.mp4"), id: "archive"), OutputConfig(url: try OutputURL("rtmp://h/app/k"))])
        XCTAssertTrue(p.resolvedYAML().contains("  - id: archive\n    url: file:///srv/mp/rec.mp4\n"), p.resolvedYAML())
        let probs = K.problems("""
            players: [{source: a}]
            outputs:
              - {id: "a b", url: null://}
              - {id: "2", url: null://}
              - {id: live, url: null://}
              - {id: live, url: null://}
            """)
        XCTAssertEqual(probs.map(\.description), [
            "presets/t.yaml:3: outputs[0].id: \"a b\" is not a valid id (letters, digits, '_', '-')",
            "presets/t.yaml:4: outputs[1].id: duplicate output id \"2\" (also outputs[2])",
            "presets/t.yaml:6: outputs[3].id: duplicate output id \"live\" (also outputs[2])",
        ])
    }

    func testBadOutputs() {
        let probs = K.problems("""
            players: [{source: a}]
            outputs:
              - url: rtmp://live.example.com/sk_live_abc123
              - url: srt://host?mode=caller
              - url: srt://host:9000?mode=rendezvous&passphrase=hunter22hunter22
              - url: rec/out.avi
              - url: http://example.com/x
              - url: srt://:9000?mode=caller
              - {}
            """)
        XCTAssertEqual(probs.map(\.description), [
            "presets/t.yaml:3: outputs[0].url: \"rtmp://live.example.com/****\" needs an app and a stream key: rtmp://host/app/key",
            "presets/t.yaml:4: outputs[1].url: \"srt://host?mode=caller\" needs host:port, like srt://host:9000",
            "presets/t.yaml:5: outputs[2].url: \"srt://host:9000?mode=rendezvous&passphrase=****\": mode must be caller or listener",
            "presets/t.yaml:6: outputs[3].url: \"rec/out.avi\": a file output must end in .mp4, .mkv, .flv, .ts, .m4a, .mp3, .aac, .ogg or .opus",
            "presets/t.yaml:7: outputs[4].url: \"http://example.com/x\" is not a supported output (rtmp://, rtmps://, srt://, hls://, icecast://, file://, null:// or a file path)",
            "presets/t.yaml:8: outputs[5].url: \"srt://:9000?mode=caller\" needs a host (or mode=listener)",
            "presets/t.yaml:9: outputs[6].url: an output needs a url",
        ])
    }

    func testWebhook() throws {
        XCTAssertEqual(try K.load("players: [{source: a}]\nevents: {webhook: \"https://h/x\"}\n").events.webhook, "https://h/x")
        XCTAssertEqual(K.problems("players: [{source: a}]\nevents:\n  webhook: ftp://h/x\n").map(\.description),
                       ["presets/t.yaml:3: events.webhook: \"ftp://h/…\" is not an http:// or https:// URL"])
    }

    func testNames() throws {
        let p = try PresetLoader.parse(yaml: "players: [{source: a}]", file: "/x/My Show.v2.yaml", baseDirectory: "/x",
                                       environment: [:], overrides: [])
        XCTAssertEqual(p.name, "My-Show.v2")
        XCTAssertEqual(K.problems("name: a/b\nplayers: [{source: a}]\n").map(\.description),
                       ["presets/t.yaml:1: name: \"a/b\" is not a valid name (letters, digits, '.', '_', '-')"])
    }

    func testMissingFile() {
        XCTAssertThrowsError(try PresetLoader.load(file: "/nonexistent/dir/p.yaml")) { error in
            XCTAssertEqual((error as? PresetError)?.problems,
                           [PresetProblem(file: "/nonexistent/dir/p.yaml", line: 0, key: "preset",
                                          message: "cannot read: No such file or directory")])
        }
    }

    func testLoadFromFileResolvesRelativeToItsFolder() throws {
        let dir = try K.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/presets", withIntermediateDirectories: true)
        K.touch(dir + "/presets/show.yaml", "players:\n  - source: ../media/a.mp3\n  - source: /abs/b.mp3\n  - source: file:///c.flac\n  - source: \"testsrc:?pattern=smpte\"\noutputs: [rec.mp4]\n")
        let p = try PresetLoader.load(file: dir + "/presets/show.yaml", environment: [:])
        XCTAssertEqual(p.name, "show")
        XCTAssertEqual(p.baseDirectory, dir + "/presets")
        XCTAssertEqual(p.players.map(\.source), [dir + "/media/a.mp3", "/abs/b.mp3", "file:///c.flac", "testsrc:?pattern=smpte"])
        XCTAssertEqual(p.outputs.map(\.url.text), ["file://" + dir + "/presets/rec.mp4"])

        XCTAssertThrowsError(try PresetLoader.load(file: dir + "/presets")) { error in
            XCTAssertEqual((error as? PresetError)?.problems.first?.message, "cannot read: Is a directory")
        }
    }

    func testAnchorsAndAliases() throws {
        let p = try K.load("""
            players:
              - &base
                source: a.mp3
                speed: 1.25
              - id: two
                source: b.mp3
                speed: *spd
            """.replacingOccurrences(of: "speed: 1.25", with: "speed: &spd 1.25"))
        XCTAssertEqual(p.players.map(\.speed), [1.25, 1.25])
        XCTAssertEqual(K.problems("players: [*nope]\n").map(\.key), ["yaml"])
    }

    func testAliasBombAndDeepNestingAreRefused() {
        var yaml = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for i in 1...9 {
            let prev = "*a\(i - 1)"
            yaml += "a\(i): &a\(i) [\(Array(repeating: prev, count: 10).joined(separator: ", "))]\n"
        }
        let bomb = K.problems(yaml)
        XCTAssertEqual(bomb.map(\.key), ["yaml"])
        XCTAssertTrue(bomb.first?.message.contains("aliases expand") ?? false, "\(bomb)")

        let deep = K.problems("players: " + String(repeating: "[", count: 400) + String(repeating: "]", count: 400) + "\n")
        XCTAssertEqual(deep.map(\.key), ["yaml"])
        XCTAssertEqual(deep.first?.line, 1)
    }

    func testNullOutputInBlockList() throws {
        let p = try K.load("players: [{source: a}]\noutputs:\n  - null:\n  - null://\n")
        XCTAssertEqual(p.outputs.map(\.url.text), ["null:", "null://"])
    }

}

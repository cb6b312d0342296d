import XCTest
@testable import MediaPub
@testable import MediaPubTestSupport

final class PresetResolvedYAMLTests: XCTestCase {
    typealias K = PresetTestKit

    /// A preset with every section and most keys, commented (docs/presets.md gives each key).
    static let specExample = """
        name: bgm                        # instance name: logs, control socket
        video:                           # omit for an audio-only stream
          size: 1280x720
          fps: 30
          bitrate: 2500k
          keyframe_interval: 2s
          encoder: x264                  # x264 | openh264 | auto
          encoder_preset: veryfast
        audio:
          sample_rate: 48000
          channels: 2
          bitrate: 128k
        players:                         # 1 to 4
          - id: background
            source: media/loop.mp4       # path, file://, http(s)://, .m3u8, testsrc:
            repeat: true
            video: true                  # feeds the video capture (at most one player)
            aux: false                   # mix its audio into the stream (default true)
          - id: music
            playlist:
              items: [media/a.mp3, media/b.flac, "https://cdn.example.com/c.aac"]
              # or  file: media/music.m3u    or  dir: media/music
              mode: shuffle              # loop | shuffle | repeat-one | once
            publish_volume: 40           # 0..200 %, level in the stream
            play_volume: 100             # 0..200 %, level on the local monitor
            mute_local: true
            speed: 1.0                   # 0.5 .. 4.0, pitch kept
            pitch: 0                     # semitones, -12 .. 12 (voice changer)
            start_at: 0s
            progress_interval: 1s
            memory: false                # load the whole resource into memory first
        standby:
          image: media/standby.png       # or  color: "#101010"  (default black)
          audio: media/ringtone.mp3      # looped while on standby (default silence)
        publishing: true                 # the flag at start
        outputs:
          - url: rtmp://live.example.com/app/${STREAM_KEY}
          - url: srt://0.0.0.0:9000?mode=listener&latency=200
          - url: file:///var/recordings/bgm-%Y%m%d-%H%M%S.mp4
        reconnect: { initial: 1s, max: 30s, give_up_after: 10m }
        stop: { after: 2h, at_end: true }   # at_end (default true): stop once every player has ended;
                                            # a repeating source, a looping playlist or testsrc never ends
        monitor: false                   # play the mix on the local sound device
        events:
          webhook: https://hooks.example.com/mediapub   # POSTed with libcurl, retried, never blocking the stream
        """

    func testSpecExampleLoads() throws {
        let dir = try K.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/media", withIntermediateDirectories: true)
        K.touch(dir + "/media/standby.png")
        K.touch(dir + "/media/ringtone.mp3")
        K.touch(dir + "/bgm.yaml", Self.specExample)

        let p = try PresetLoader.load(file: dir + "/bgm.yaml", environment: ["STREAM_KEY": "live_123_abc"])
        XCTAssertEqual(p.name, "bgm")
        XCTAssertEqual(p.video, VideoConfig())
        XCTAssertEqual(p.videoPlayerIndex, 0)
        XCTAssertEqual(p.players.map(\.id), ["background", "music"])
        XCTAssertEqual(p.players[0].source, dir + "/media/loop.mp4")
        XCTAssertTrue(p.players[0].repeat)
        XCTAssertFalse(p.players[0].aux)
        XCTAssertEqual(p.players[1].playlist, PlaylistConfig(
            items: [dir + "/media/a.mp3", dir + "/media/b.flac", "https://cdn.example.com/c.aac"], mode: .shuffle))
        XCTAssertEqual(p.players[1].publishVolume, 40)
        XCTAssertTrue(p.players[1].muteLocal)
        XCTAssertEqual(p.standby, StandbyConfig(image: dir + "/media/standby.png", color: "#000000",
                                                audio: dir + "/media/ringtone.mp3"))
        XCTAssertEqual(p.outputs.map(\.url.text), [
            "rtmp://live.example.com/app/live_123_abc",
            "srt://0.0.0.0:9000?mode=listener&latency=200",
            "file:///var/recordings/bgm-%Y%m%d-%H%M%S.mp4",
        ])
        XCTAssertEqual(p.reconnect, ReconnectConfig(initial: 1, max: 30, giveUpAfter: 600))
        XCTAssertEqual(p.stop, StopConfig(after: 7200, atEnd: true))
        XCTAssertEqual(p.events.webhook, "https://hooks.example.com/mediapub")

        // without STREAM_KEY: named, at the output's line
        XCTAssertThrowsError(try PresetLoader.load(file: dir + "/bgm.yaml", environment: [:])) { error in
            XCTAssertEqual((error as? PresetError)?.problems,
                           [PresetProblem(file: dir + "/bgm.yaml", line: 37, key: "outputs[0].url",
                                          message: "STREAM_KEY is not set")])
        }

        // the resolved form masks the key and the webhook's path, and reads back to the same preset but for them
        let resolved = p.resolvedYAML()
        XCTAssertFalse(resolved.contains("live_123_abc"))
        XCTAssertFalse(resolved.contains("hooks.example.com/mediapub"), resolved)
        XCTAssertTrue(resolved.contains("rtmp://live.example.com/app/****"))
        var again = try PresetLoader.parse(yaml: resolved, file: p.file, baseDirectory: p.baseDirectory,
                                           environment: [:], overrides: [])
        XCTAssertEqual(again.outputs[0].url.text, "rtmp://live.example.com/app/****")
        XCTAssertEqual(again.events.webhook, "https://hooks.example.com/…")
        again.outputs[0] = p.outputs[0]
        again.events = p.events
        XCTAssertEqual(again, p)
    }

    func testResolvedYAMLRoundTrips() throws {
        let dir = try K.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        K.touch(dir + "/list.m3u", "a.mp3\nb with space.mp3\nhttps://x/y.aac?mode=1&z=2\n")
        let yaml = """
            name: rt
            video: { size: 640x360, fps: 24, bitrate: 1.5M, keyframe_interval: 1500ms, encoder: auto, encoder_preset: medium }
            audio: { sample_rate: 44100, channels: 1, bitrate: 96k }
            players:
              - id: p-1
                source: "sub dir/it's: $$name #1.mp4"
                speed: 0.75
                pitch: -2.5
                start_at: 1h1m1.5s
                progress_interval: 100ms
              - playlist: { file: list.m3u, mode: repeat-one }
                video: true
                publish_volume: 0
              - source: "testsrc:?pattern=smpte&freq=440"
                repeat: yes
            standby: { color: "#abc" }
            publishing: off
            outputs:
              - srt://0.0.0.0:9000?mode=listener&latency=200
              - out/rec-%Y.ts
              - "null:"
            reconnect: { initial: 250ms, max: 1m, give_up_after: never }
            stop: { at_end: false }
            monitor: true
            """
        let p = try K.load(yaml, base: dir)
        XCTAssertEqual(p.players[0].source, dir + "/sub dir/it's: $name #1.mp4")
        XCTAssertEqual(p.videoPlayerIndex, 1)
        let text = p.resolvedYAML()
        let again = try K.load(text, base: dir)
        XCTAssertEqual(again, p, text)
        XCTAssertEqual(again.resolvedYAML(), text)
        XCTAssertTrue(text.contains("bitrate: 1500k"), text)
        XCTAssertTrue(text.contains("keyframe_interval: 1500ms"), text)
        XCTAssertTrue(text.contains("give_up_after: never"), text)
        XCTAssertTrue(text.contains("color: \"#AABBCC\""), text)

        // a minimal preset round-trips with every default written out
        let minimal = try K.load("players: [{source: a.mp3}]\n")
        let minimalText = minimal.resolvedYAML()
        XCTAssertEqual(try K.load(minimalText), minimal)
        for key in ["publish_volume: 100", "progress_interval: 1s", "give_up_after: 10m", "color: \"#000000\"",
                    "outputs: []", "events: {}", "sample_rate: 48000", "bitrate: 128k"] {
            XCTAssertTrue(minimalText.contains(key), "\(key) missing in\n\(minimalText)")
        }
        XCTAssertFalse(minimalText.contains("video:\n"))
    }

    func testResolvedYAMLMasksSecrets() throws {
        let p = try K.load("""
            players: [{source: "https://u:pw@cdn/x.m3u8?token=t0k"}]
            outputs:
              - srt://h:9000?mode=caller&passphrase=verysecret1&streamid=abc
            events: { webhook: "https://hooks/x?sig=zzz" }
            """)
        let text = p.resolvedYAML()
        for secret in ["pw", "t0k", "verysecret1", "abc", "zzz"] {
            XCTAssertFalse(text.contains(secret), "\(secret) leaked:\n\(text)")
        }
        XCTAssertTrue(p.resolvedYAML(maskSecrets: false).contains("verysecret1"))
    }
}

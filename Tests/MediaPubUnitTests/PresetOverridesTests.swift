import XCTest
@testable import MediaPub
@testable import MediaPubTestSupport

final class PresetOverridesTests: XCTestCase {
    typealias K = PresetTestKit

    let base = """
        name: show
        players:
          - id: main
            source: a.mp4
          - id: music
            source: b.mp3
        stop:
          at_end: false
        """

    func testOverridesApply() throws {
        let p = try K.load(base, overrides: [
            "video.bitrate=3000k", "players.music.publish_volume=40", "players.0.speed=1.5",
            "stop.after=10s", "publishing=false", "players.music.playlist.items=[x.mp3, y.mp3]",
            "players.music.source=", "name=other", "outputs.0.url=null://",
        ])
        XCTAssertEqual(p.name, "other")
        XCTAssertEqual(p.video?.bitrate, 3_000_000)
        XCTAssertEqual(p.video?.fps, 30)
        XCTAssertEqual(p.videoPlayerIndex, 0)
        XCTAssertEqual(p.players[1].publishVolume, 40)
        XCTAssertEqual(p.players[0].speed, 1.5)
        XCTAssertEqual(p.stop, StopConfig(after: 10, atEnd: false))
        XCTAssertFalse(p.publishing)
        XCTAssertNil(p.players[1].source)
        XCTAssertEqual(p.players[1].playlist?.items, ["/srv/mp/x.mp3", "/srv/mp/y.mp3"])
        XCTAssertEqual(p.outputs, [OutputConfig(url: try OutputURL("null://"))])
    }

    func testOverridesAreInterpolatedAndReplaceUnsetVariables() throws {
        let yaml = base + "\noutputs:\n  - url: rtmp://h/app/${KEY}\n"
        let p = try K.load(yaml, env: ["NEWKEY": "k2", "ID": "music"],
                           overrides: ["outputs.0.url=rtmp://h/app/${NEWKEY}", "players.music.speed=${SPEED:-2}"])
        XCTAssertEqual(p.outputs.map(\.url), [try OutputURL("rtmp://h/app/k2")])
        XCTAssertEqual(p.players[1].speed, 2)
        // a player whose id comes from the environment is found by that id
        let q = try K.load("players:\n  - id: ${ID}\n    source: a\n", env: ["ID": "music"],
                           overrides: ["players.music.speed=1.5"])
        XCTAssertEqual(q.players[0].speed, 1.5)
        XCTAssertEqual(K.problems(yaml, overrides: ["name=${NOPE}"]).map(\.description).prefix(2), [
            "presets/t.yaml:10: outputs[0].url: KEY is not set", "--set:0: name: NOPE is not set",
        ])
    }

    func testOverrideCreatesMissingSection() throws {
        let p = try K.load("players: [{source: a}]\n", overrides: ["video.fps=25", "reconnect={initial: 2s}"])
        XCTAssertEqual(p.video, VideoConfig(fps: 25))
        XCTAssertEqual(p.reconnect.initial, 2)
        XCTAssertEqual(p.players[0].video, true)
        XCTAssertEqual(try K.load("players: [{source: a}]\n", overrides: ["players.player1.speed=2"]).players[0].speed, 2)
    }

    /// A section in its short form keeps what it said when --set reaches into it.
    func testOverrideIntoAShortFormKeepsIt() throws {
        let p = try K.load("monitor: true\nplayers: [{source: a}]\n", overrides: ["monitor.silence.below=-40dBFS"])
        XCTAssertTrue(p.monitoring.local)
        XCTAssertEqual(p.monitoring.silence?.below, -40)
        let q = try K.load("players:\n  - id: music\n    playlist: [x.mp3, y.mp3]\n",
                           overrides: ["players.music.playlist.mode=loop"])
        XCTAssertEqual(q.players[0].playlist?.items, ["/srv/mp/x.mp3", "/srv/mp/y.mp3"])
        XCTAssertEqual(q.players[0].playlist?.mode, .loop)
        // false stays false, and an explicit local wins
        XCTAssertFalse(try K.load("monitor: false\nplayers: [{source: a}]\n", overrides: ["monitor.silence.for=30s"]).monitoring.local)
        XCTAssertFalse(try K.load("monitor: true\nplayers: [{source: a}]\n", overrides: ["monitor.local=false"]).monitoring.local)
    }

    /// `null:`, as docs/presets.md lists it, is a URL in --set too (YAML alone reads
    /// it as the mapping `{null: ~}`); a whole output given as `null:` stays the null output.
    func testNullColonOverrideIsTheNullOutput() throws {
        let yaml = base + "\noutputs:\n  - url: rtmp://h/app/k\n"
        XCTAssertEqual(try K.load(yaml, overrides: ["outputs.0.url=null:"]).outputs, [OutputConfig(url: .null)])
        XCTAssertEqual(try K.load(yaml, overrides: ["outputs.0.url= null: "]).outputs, [OutputConfig(url: .null)])
        XCTAssertEqual(try K.load(yaml, overrides: ["outputs.0=null:"]).outputs, [OutputConfig(url: .null)])
        XCTAssertEqual(try K.load(yaml, overrides: ["outputs.1.url=null:"]).outputs.map(\.url),
                       [try OutputURL("rtmp://h/app/k"), .null])
        // a leaf given a flow mapping is still refused as one
        XCTAssertEqual(K.problems(yaml, overrides: ["outputs.0.url={a: b}"]).map(\.key), ["outputs[0].url"])
    }

    func testUnknownOverridePaths() {
        let probs = K.problems(base, overrides: [
            "video.fpss=25", "players.nobody.speed=1", "colour=red", "publishing.x=1", "nokeyvalue",
            "outputs.a.url=null://",
        ])
        XCTAssertEqual(probs.map(\.file), Array(repeating: "--set", count: 6))
        XCTAssertEqual(probs.map(\.line), Array(repeating: 0, count: 6))
        XCTAssertEqual(probs.map(\.key), ["video.fpss", "players.nobody.speed", "colour", "publishing.x",
                                          "nokeyvalue", "outputs.a.url"])
        XCTAssertEqual(probs[0].description, "--set:0: video.fpss: unknown key fpss in video (did you mean fps?)")
        XCTAssertEqual(probs[1].message, "no player with id nobody (players: main, music)")
    }

    func testBadOverrideValueIsLocatedAtSet() {
        let probs = K.problems(base, overrides: ["players.music.speed=9"])
        XCTAssertEqual(probs, [PresetProblem(file: "--set", line: 0, key: "players[1].speed",
                                             message: "9 is out of range 0.5..4.0")])
    }

    func testFileProblemsComeBeforeOverrideProblems() {
        let probs = K.problems(base + "\nmonitor: maybe\n", overrides: ["video.fps=0"])
        XCTAssertEqual(probs.map(\.description), [
            "presets/t.yaml:9: monitor: \"maybe\" is not true or false",
            "--set:0: video.fps: 0 is out of range 1..120",
        ])
    }
}

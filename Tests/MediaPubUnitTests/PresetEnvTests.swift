import XCTest
@testable import MediaPub
@testable import MediaPubTestSupport

final class PresetEnvTests: XCTestCase {
    typealias K = PresetTestKit

    /// A small preset that repeats a large variable must not grow to gigabytes (a
    /// 14 KB file once peaked at 227 MiB, a 700 KB one at 15 GiB).
    func testExpansionIsBounded() {
        let env = ["BIG": String(repeating: "C", count: 100_000), "MID": String(repeating: "m", count: 60_000)]
        let one = K.problems("""
            name: "${BIG}${BIG}"
            players: [{source: a}]
            """, env: env)
        XCTAssertEqual(one.first?.description, "presets/t.yaml:1: name: grows past 64 KiB once its variables are replaced")
        var yaml = "players: [{source: a}]\nnotes:\n"
        for i in 0..<100 { yaml += "  n\(i): \"${MID}\"\n" }
        let many = K.problems(yaml, env: env)
        XCTAssertTrue(many.contains { $0.description.hasSuffix("the preset grows past 4 MiB once its variables are replaced") },
                      "\(many.prefix(3))")
        XCTAssertEqual(try EnvInterpolation.expand("${MID}", environment: env).get().count, 60_000, "a large value under the bound is fine")
    }

    func testExpand() {
        let env = ["A": "1", "EMPTY": "", "KEY": "s3cr3t"]
        func ok(_ s: String) -> String? { try? EnvInterpolation.expand(s, environment: env).get() }
        XCTAssertEqual(ok("x${A}y"), "x1y")
        XCTAssertEqual(ok("${B:-dflt}"), "dflt")
        XCTAssertEqual(ok("${A:-dflt}"), "1")
        XCTAssertEqual(ok("${EMPTY:-dflt}"), "dflt")
        XCTAssertEqual(ok("${EMPTY}"), "")
        XCTAssertEqual(ok("${B:-}"), "")
        XCTAssertEqual(ok("$$"), "$")
        XCTAssertEqual(ok("$${A}"), "${A}")
        XCTAssertEqual(ok("cost $5"), "cost $5")
        XCTAssertEqual(ok("a$"), "a$")
        XCTAssertEqual(ok("${A}${A:-x}$$${KEY}"), "11$s3cr3t")
        if case .failure(let e) = EnvInterpolation.expand("${NOPE} and ${NOPE} ${ALSO}", environment: env) {
            XCTAssertEqual(e.failures, [.unset("NOPE"), .unset("ALSO")])
        } else { XCTFail("expected failure") }
        if case .failure(let e) = EnvInterpolation.expand("${A", environment: env) {
            XCTAssertEqual(e.failures.count, 1)
        } else { XCTFail("expected failure") }
        if case .failure(let e) = EnvInterpolation.expand("${1X}", environment: env) {
            XCTAssertEqual(e.failures.count, 1)
        } else { XCTFail("expected failure") }
    }

    func testInterpolationInPreset() throws {
        let yaml = """
            name: ${NAME:-fallback}
            video:
              fps: ${FPS}
              bitrate: ${VBR:-3M}
            players:
              - source: ${MEDIA}/a.mp3
                publish_volume: ${VOL:-40}
            outputs:
              - url: rtmp://live.example.com/app/${STREAM_KEY}
              - url: file:///rec/price-$$5.mp4
            """
        let p = try K.load(yaml, env: ["FPS": "25", "MEDIA": "/media", "STREAM_KEY": "abc"])
        XCTAssertEqual(p.name, "fallback")
        XCTAssertEqual(p.video?.fps, 25)
        XCTAssertEqual(p.video?.bitrate, 3_000_000)
        XCTAssertEqual(p.players[0].source, "/media/a.mp3")
        XCTAssertEqual(p.players[0].publishVolume, 40)
        XCTAssertEqual(p.outputs.map(\.url.text), ["rtmp://live.example.com/app/abc", "file:///rec/price-$5.mp4"])
    }

    func testUnsetVariableIsNamedAtItsLine() {
        let probs = K.problems("""
            players:
              - source: a.mp3
            outputs:
              - url: rtmp://live.example.com/app/${STREAM_KEY}
            events:
              webhook: https://h/${HOOK_TOKEN}
            """)
        XCTAssertEqual(probs.map(\.description), [
            "presets/t.yaml:4: outputs[0].url: STREAM_KEY is not set",
            "presets/t.yaml:6: events.webhook: HOOK_TOKEN is not set",
        ])
    }

    func testSecretsStayOutOfMessages() {
        let secret = "sup3rs3cr3tkey"
        let probs = K.problems("""
            players:
              - source: a.mp3
                speed: ${SPEED}
            outputs:
              - url: srt://host:9000?mode=bogus&passphrase=${PASS}
              - url: ftp://user:${PASS}@host/x
            """, env: ["PASS": secret, "SPEED": secret])
        XCTAssertEqual(probs.map(\.key), ["players[0].speed", "outputs[0].url", "outputs[1].url"])
        XCTAssertEqual(probs.map(\.line), [3, 5, 6])
        for p in probs {
            XCTAssertFalse(p.description.contains(secret), p.description)
        }
        XCTAssertEqual(probs[0].message, "\"${SPEED}\" is not a number")
    }
}

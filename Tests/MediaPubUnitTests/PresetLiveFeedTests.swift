import Foundation
import XCTest
@testable import MediaPub
@testable import MediaPubTestSupport

/// `live:` in a preset (docs/presets.md, live): what it reads, its refusals with their
/// `file:line: key`, and its secrets masked. Pure: no media.
final class PresetLiveFeedTests: XCTestCase {
    typealias K = PresetTestKit

    private let players = "video: {}\nplayers:\n  - source: v.mp4\n"

    func testAFeedIsReadWithItsDefaultsAndItsPassphraseMasked() throws {
        let secret = "s3cret-pass-phrase"
        let p = try K.load(players + "live:\n  source: \"srt://:9001?mode=listener&passphrase=${PASS}\"\n", env: ["PASS": secret])
        let live = try XCTUnwrap(p.live)
        XCTAssertEqual(live.source, "srt://:9001?mode=listener&passphrase=\(secret)")
        XCTAssertEqual(live.takeoverAfter, 0.5)
        XCTAssertEqual(live.releaseAfter, 3)
        XCTAssertEqual(live.programme, .continue)
        XCTAssertEqual(live.fade, 0.1)
        let shown = p.resolvedYAML()
        XCTAssertFalse(shown.contains(secret), shown)
        XCTAssertTrue(shown.contains("live:"), shown)
        XCTAssertEqual(try K.load(p.resolvedYAML(maskSecrets: false)), p)
        let other = try K.load(players + "live: {source: \"rtmp://127.0.0.1/live/feed\", takeover_after: 0s, release_after: 10s, programme: pause, fade: 0s}\n")
        XCTAssertEqual(other.live, LiveFeedConfig(source: "rtmp://127.0.0.1/live/feed", takeoverAfter: 0, releaseAfter: 10, programme: .pause, fade: 0))
        XCTAssertNil(try K.load(players).live)
    }

    func testBadFeedsAreRefusedAtTheirKeyWithoutTheirSecrets() {
        let cases: [(String, String, String)] = [
            ("{takeover_after: 1s}", "live.source", "needs a source"),
            ("{source: \"/tmp/feed.ts\"}", "live.source", "is not a live feed"),
            ("{source: \"https://cdn.example.com/a.mp4\"}", "live.source", "is not a live playlist"),
            ("{source: \"srt://:9001?mode=listener&passphrase=short\"}", "live.source", "passphrase must be 10 to 79 characters"),
            ("{source: \"srt://:9001?mode=listener&passphrase=\(String(repeating: "x", count: 80))\"}", "live.source", "got 80"),
            ("{source: \"srt://:9001?mode=server\"}", "live.source", "mode must be caller or listener"),
            ("{source: \"srt://:9001?mode=listener\", takeover_after: 2h}", "live.takeover_after", "0s..1h"),
            ("{source: \"srt://:9001?mode=listener\", fade: 6s}", "live.fade", "0s..5s"),
            ("{source: \"srt://:9001?mode=listener\", programme: stop}", "live.programme", "continue, pause"),
        ]
        for (body, key, message) in cases {
            let probs = K.problems(players + "live: \(body)\n")
            XCTAssertEqual(probs.map(\.key), [key], body)
            XCTAssertEqual(probs.first?.line, 4, body)
            let text = probs.first?.message ?? ""
            XCTAssertTrue(text.contains(message), "\(text) lacks \(message)")
            XCTAssertFalse(text.contains("short") || text.contains("xxxxxxxxxx"), "a passphrase shown: \(text)")
        }
    }
}

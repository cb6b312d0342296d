@testable import MediaPub
import XCTest

/// Errors from sinks and libcurl are scrubbed of every secret of the URL they concern.
final class SecretScrubTests: XCTestCase {
    func testSecretsInErrorTextAreMasked() {
        let cases: [(url: String, text: String, secret: String)] = [
            ("rtmp://live.example.com/app/sk_live_123", "Could not publish sk_live_123: refused", "sk_live_123"),
            ("rtmps://u:hunter22@live.example.com:443/app/key9", "auth failed for u:hunter22", "hunter22"),
            ("srt://1.2.3.4:9000?mode=caller&streamid=#!::r=live/abc,m=publish&passphrase=verysecret99",
             "handshake rejected (passphrase verysecret99, id #!::r=live/abc,m=publish)", "verysecret99"),
            ("https://hooks.example.com/x?token=t0k3n", "POST https://hooks.example.com/x?token=t0k3n failed", "t0k3n"),
        ]
        for c in cases {
            let scrubbed = SecretMask.scrub(c.text, secretsOf: c.url)
            XCTAssertFalse(scrubbed.contains(c.secret), "\(c.secret) leaked: \(scrubbed)")
            XCTAssertTrue(scrubbed.contains("****"), scrubbed)
        }
        let srt = SecretMask.scrub("id #!::r=live/abc,m=publish", secretsOf: "srt://h:1?streamid=#!::r=live/abc,m=publish")
        XCTAssertFalse(srt.contains("live/abc"), srt)
    }
}

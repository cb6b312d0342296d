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
            ("https://b.s3.amazonaws.com/a.mp4?X-Amz-Credential=AKIAEXAMPLE%2F20260101&X-Amz-Signature=f00dfeed",
             "GET /a.mp4 signed f00dfeed by AKIAEXAMPLE/20260101: 403", "AKIAEXAMPLE"),
            ("https://cdn.example.com/a.m3u8?access_token=at_9x&api_key=ak_7y", "401 for ak_7y", "ak_7y"),
            ("rmtp://live.example.com/app/sk_typo_55", "unsupported protocol in rmtp://live.example.com/app/sk_typo_55", "sk_typo_55"),
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

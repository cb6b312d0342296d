import XCTest
@testable import MediaPub

final class PresetSecretMaskTests: XCTestCase {
    func testMaskTable() {
        let table: [(String, String)] = [
            ("rtmp://live.example.com/app/abc123", "rtmp://live.example.com/app/****"),
            ("rtmp://live.example.com:1935/app/abc123?x=1", "rtmp://live.example.com:1935/app/****"),
            ("rtmps://a.b/live2/key/more/segments", "rtmps://a.b/live2/****"),
            ("rtmp://user:pass@host/app/key", "rtmp://****@host/app/****"),
            // A lone segment may be the key itself (platform URLs pasted without the app).
            ("rtmp://host/app", "rtmp://host/****"),
            ("rtmp://live.example.com/sk_live_abc123", "rtmp://live.example.com/****"),
            ("rtmp://live.example.com/live?key=sk_live_abc123", "rtmp://live.example.com/live/****"),
            ("rtmp://live.example.com/?key=sk_live_abc123", "rtmp://live.example.com/****"),
            ("rtmp://host", "rtmp://host"),
            ("rtmp:host/app/sk_live_abc123", "rtmp:****"),
            ("srt:host:9000?passphrase=topsecret123", "srt:host:9000?passphrase=****"),
            ("srt://host:9000?mode=caller&passphrase=topsecret123&latency=200",
             "srt://host:9000?mode=caller&passphrase=****&latency=200"),
            ("srt://host:9000?streamid=#!::r=live/k,m=publish&mode=caller",
             "srt://host:9000?streamid=****&mode=caller"),
            ("srt://0.0.0.0:9000?mode=listener&latency=200", "srt://0.0.0.0:9000?mode=listener&latency=200"),
            ("https://user:pass@hooks.example.com/x", "https://****@hooks.example.com/x"),
            ("https://cdn.example.com/a.m3u8?token=abc&Sig=def&keep=1",
             "https://cdn.example.com/a.m3u8?token=****&Sig=****&keep=1"),
            ("https://h/x?password=p&secret=s&auth=a&key=k", "https://h/x?password=****&secret=****&auth=****&key=****"),
            ("file:///var/rec/user:pass@x.mp4", "file:///var/rec/user:pass@x.mp4"),
            ("null://", "null://"),
            ("null:", "null:"),
            ("/plain/path.mp4", "/plain/path.mp4"),
        ]
        assertEach(table, SecretMask.mask(url:))
    }

    /// Credential parameters of signed and token URLs (CDNs, S3, APIs), by name or by
    /// a word in their name, in any case: masked in sources and outputs alike.
    func testCredentialParametersAreMaskedByNameInAnyCase() {
        let named = ["access_token", "api_key", "apikey", "signature", "X-Amz-Signature", "X-Amz-Credential",
                     "X-Amz-Security-Token", "ACCESS_TOKEN", "Api_Key"]
        let worded = ["refresh_token", "client_secret", "subscriptionKey", "sigv", "authz", "Passwd", "x-goog-credential",
                      "hdnts_TOKEN", "my%2Dtoken"]
        for name in named + worded {
            for url in ["https://cdn.example.com/a.mp4?\(name)=s3cr3tv4lue&keep=1", "srt://h:9000?mode=caller&\(name)=s3cr3tv4lue"] {
                let shown = SecretMask.mask(url: url)
                XCTAssertFalse(shown.contains("s3cr3tv4lue"), "\(name): \(shown)")
                XCTAssertTrue(shown.contains("\(name)=****"), "\(name): \(shown)")
                XCTAssertEqual(SecretMask.secrets(of: url), ["s3cr3tv4lue"], url)
            }
        }
        // Names that hold no credential stay readable.
        let plain = "https://cdn.example.com/a.m3u8?segment=4&window=6&keep=1&mode=caller&latency=200&pattern=smpte"
        XCTAssertEqual(SecretMask.mask(url: plain), plain)
        XCTAssertEqual(SecretMask.mask(url: "testsrc:?pattern=ball&freq=440"), "testsrc:?pattern=ball&freq=440")
    }

    /// A scheme mistyped is masked as RTMP is: past the first path segment.
    func testAMistypedSchemeShowsNoKey() {
        let table: [(String, String)] = [
            ("rmtp://h/app/sk_live_abc123", "rmtp://h/app/****"),
            ("rtmp//h/app/sk_live_abc123", "rtmp//h/app/****"),
            ("RTMPS//h:443/app/sk_live_abc123", "RTMPS//h:443/app/****"),
            ("rmtp:/h/app/sk_live_abc123", "rmtp:****"),
            ("rtmpx://h/sk_live_abc123", "rtmpx://h/****"),
            ("https:/cdn.example.com/a.mp3?token=t0k", "https:/cdn.example.com/a.mp3?token=****"),
            ("Re:Zero.mp3", "Re:Zero.mp3"),
            ("media//sub/a.mp3", "media//sub/a.mp3"),
            // The colon forgotten and the scheme mistyped, by one letter.
            ("rmtp//h/app/sk_live_abc123", "rmtp//h/app/****"),
            ("rtp//h/app/sk_live_abc123", "rtp//h/app/****"),
            ("rtmpp//h/app/sk_live_abc123.flv", "rtmpp//h/app/****"),
            ("trmps//h/app/sk_live_abc123", "trmps//h/app/****"),
            ("rec//app/a.mp4", "rec//app/a.mp4"),
        ]
        assertEach(table, SecretMask.mask(url:))
        XCTAssertEqual(SecretMask.secrets(of: "rmtp://h/app/sk_live_abc123"), ["sk_live_abc123"])
        XCTAssertEqual(SecretMask.mistypedKeyScheme("rmtp//h/app/k"), "rtmp")
        XCTAssertEqual(SecretMask.mistypedKeyScheme("rtmps//h/app/k"), "rtmps")
        XCTAssertEqual(SecretMask.mistypedKeyScheme("rtmsp//h/app/k"), "rtmps")
        XCTAssertNil(SecretMask.mistypedKeyScheme("media//h/app/k"))
        XCTAssertNil(SecretMask.mistypedKeyScheme("rtmp/h/app/k"))
    }

    func testErrorsQuotingAKeyInAnyShapeAreScrubbed() {
        for url in ["rtmp://h/sk_live_abc123", "rtmp://h/live?key=sk_live_abc123", "rtmp://h/live/sk_live_abc123"] {
            let scrubbed = SecretMask.scrub("could not connect to \(url) (stream sk_live_abc123)", secretsOf: url)
            XCTAssertFalse(scrubbed.contains("abc123"), scrubbed)
        }
    }

    /// Each `(url, shown)` of `table`: `mask(url) == shown`.
    private func assertEach(_ table: [(String, String)], _ mask: (String) -> String,
                            file: StaticString = #filePath, line: UInt = #line) {
        for (url, shown) in table { XCTAssertEqual(mask(url), shown, url, file: file, line: line) }
    }

    func testWebhookShowsSchemeAndHostOnly() {
        let table: [(String, String)] = [
            ("https://hooks.slack.com/services/T0/B0/XYZsecret", "https://hooks.slack.com/…"),
            ("https://discord.com/api/webhooks/123/tokenABC", "https://discord.com/…"),
            ("https://h.example?token=K9", "https://h.example/…"),
            ("http://u:pw@127.0.0.1:8080/hook", "http://127.0.0.1:8080/…"),
            ("https://token@h.example", "https://h.example/…"),
            ("https://h.example#frag", "https://h.example/…"),
            ("HTTPS://h.example:443", "HTTPS://h.example:443"),
            ("https://hooks.example.com/mediapub", "https://hooks.example.com/…"),
            ("htps:hooks.slack.com/services/T0/B0/XYZsecret", "htps:hooks.slack.com/…"),
            ("u:pw@h.example/x", "h.example/…"),
            ("not-a-url", "not-a-url"),
        ]
        assertEach(table, SecretMask.mask(webhook:))
    }
}

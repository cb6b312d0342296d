import CGStreamer
@testable import MediaPub
@testable import MediaPubTestSupport
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

    /// A password with each of `" \\ ! # @ & % '`, a space or a letter past ASCII is masked in
    /// every spelling GStreamer and GLib give it (made here by them: g_strescape, a GValue
    /// serialised, a URI escaped; and a pipeline description's quotes), in a library log
    /// line and in an error. Each piece around the special character is looked for.
    func testEverySpellingOfASecretIsMasked() {
        GStreamer.initialize()
        for special in ["\"", "\\", "!", "#", "@", "&", "%", "'", " ", "é"] {
            let password = "Qa7w" + special + "Kb8x"
            let url = "icecast://source:\(SecretMask.percentEncoded(password))@127.0.0.1:8000/m.mp3"
            LibraryLog.addSecrets(of: [url])
            var value = GValue()
            g_value_init(&value, GType(16 << 2))  // G_TYPE_STRING
            g_value_set_string(&value, password)
            defer { g_value_unset(&value) }
            let serialized = gst_value_serialize(&value).map { p in defer { g_free(p) }; return String(cString: p) } ?? ""
            let strescaped = g_strescape(password, nil).map { p in defer { g_free(p) }; return String(cString: p) } ?? ""
            let uriEscaped = g_uri_escape_string(password, nil, 0).map { p in defer { g_free(p) }; return String(cString: p) } ?? ""
            let spellings = [password, serialized, strescaped, uriEscaped, uriEscaped.lowercased(), GStreamer.quote(password)]
            for spelling in spellings {
                let line = "shout2send0: password=\(spelling) mount=/m.mp3"
                for shown in [LibraryLog.masked(line), SecretMask.scrub(line, secretsOf: url)] {
                    XCTAssertFalse(shown.contains("Qa7w") || shown.contains("Kb8x"), "\(special): \(spelling) shows: \(shown)")
                }
            }
        }
    }

    /// A file URL's `?token=` is masked where it is shown: the URL, and validate's error.
    func testAFileURLsTokenIsMasked() throws {
        XCTAssertEqual(SecretMask.mask(url: "file:///m/a.mp3?token=Tk9secretZZ"), "file:///m/a.mp3?token=****")
        let dir = try PresetTestKit.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/t.yaml"
        try "players:\n  - {id: m, source: \"file:///nonexistent/a.mp3?token=Tk9secretZZ\"}\n".write(toFile: file, atomically: true, encoding: .utf8)
        var problems: [PresetProblem] = []
        XCTAssertThrowsError(try PresetLoader.validate(file: file)) { problems = ($0 as? PresetError)?.problems ?? [] }
        XCTAssertEqual(problems.map(\.key), ["players[0].source"])
        XCTAssertFalse(problems.description.contains("Tk9secretZZ"), "\(problems)")
        XCTAssertTrue(problems.first?.message.contains("cannot find /nonexistent/a.mp3?token=****") == true, "\(problems)")
    }
}

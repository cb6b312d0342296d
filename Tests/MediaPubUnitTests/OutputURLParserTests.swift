import XCTest
@testable import MediaPub

/// The one output-URL parser: every form it accepts, what the publisher reads
/// from it, and each refusal in both wordings (preset/`--output`, and code).
final class OutputURLParserTests: XCTestCase {
    private func resolved(_ text: String, base: String = "/srv/mp") throws -> OutputURL {
        try OutputURL.resolve(text, base: base, environment: ["HOME": "/home/u"]).get()
    }

    func testRTMPCarriesHostAndPort() throws {
        let cases: [(String, NetworkEndpoint)] = [
            ("rtmp://live.example.com/app/key", .init(url: "rtmp://live.example.com/app/key", host: "live.example.com", port: 1935)),
            ("rtmp://127.0.0.1:1936/live/k?x=1", .init(url: "rtmp://127.0.0.1:1936/live/k?x=1", host: "127.0.0.1", port: 1936)),
            ("rtmps://user:pw@h.example/app/key", .init(url: "rtmps://user:pw@h.example/app/key", host: "h.example", port: 443)),
            ("rtmp://[::1]:1935/app/key", .init(url: "rtmp://[::1]:1935/app/key", host: "::1", port: 1935)),
        ]
        for (text, endpoint) in cases {
            let url = try resolved(text)
            XCTAssertEqual(url, try OutputURL(text), text)
            XCTAssertEqual(url.text, text)
            XCTAssertEqual(url.target, .rtmp(endpoint), text)
            XCTAssertTrue(url.target.isNetwork && url.target.wantsRealtime)
        }
    }

    /// Icecast closes the connection of a source whose mount has an empty, `.` or `..` part
    /// (decoded, as it decodes it) before any login: refused here, naming it.
    func testIcecastMountsAServerCannotTakeAreRefused() {
        for mount in ["../x.mp3", "a/../b.mp3", "a//b.mp3", "./c.mp3", "a/./c.mp3", "%2e%2e/d.mp3", "e/%2E/f.mp3", "radio/", "g.mp3/..",
                      "h%0Ai.mp3", "j%00.mp3"] {
            guard case .failure(.icecastMountPath) = OutputURL.parse("icecast://source:pw@h:8000/\(mount)", paths: .asWritten) else {
                XCTFail("\(mount) is refused"); continue
            }
        }
        for mount in ["x..y.mp3", "e/..f.mp3", "a/b/c.mp3", "h%20i.mp3", "admin/j.mp3", "%C3%A9.mp3"] {
            guard case .success = OutputURL.parse("icecast://source:pw@h:8000/\(mount)", paths: .asWritten) else {
                XCTFail("\(mount) is taken"); continue
            }
        }
    }

    func testIcecastCarriesServerMountCodecAndStreamDetails() throws {
        let url = try resolved("icecast://source:p%40ss@radio.example:8010/live.mp3?name=My+Radio&description=Non%20stop&genre=Jazz")
        XCTAssertEqual(url.target, .icecast(IcecastEndpoint(host: "radio.example", port: 8010, mount: "/live.mp3", user: "source",
                                                            password: "p@ss", codec: .mp3, name: "My Radio",
                                                            description: "Non stop", genre: "Jazz")))
        XCTAssertTrue(url.target.isNetwork && url.target.wantsRealtime && !url.target.carriesVideo)
        XCTAssertEqual(SecretMask.mask(url: url.text), "icecast://****@radio.example:8010/live.mp3?name=My+Radio&description=Non%20stop&genre=Jazz")
        let codecs: [(String, AudioCodec)] = [("icecast://pw@h/a.aac", .aac), ("icecast://pw@h/a.ogg", .opus), ("icecast://pw@h/a.opus", .opus),
                                              ("icecast://pw@h/stream?codec=opus", .opus), ("icecast://pw@h/a.mp3?codec=aac", .aac)]
        for (text, codec) in codecs {
            guard case .icecast(let e) = try resolved(text).target else { return XCTFail(text) }
            XCTAssertEqual(e.codec, codec, text)
            XCTAssertEqual(e.port, 8000, text)
            XCTAssertEqual(e.user, "source", text)
            XCTAssertEqual(e.password, "pw", text)
        }
        for (path, codec) in [("/r/a.m4a", AudioCodec.aac), ("/r/a.mp3", .mp3), ("/r/a.aac", .aac), ("/r/a.ogg", .opus), ("/r/a.opus", .opus)] {
            let file = try resolved(path).target
            XCTAssertEqual(file.audioCodec, codec, path)
            XCTAssertFalse(file.carriesVideo, path)
        }
        XCTAssertTrue(try resolved("/r/a.mkv").target.carriesVideo)
    }

    /// An output's secrets are never written in its pipeline's description (GStreamer's debug
    /// log prints descriptions): they are the sink's properties, set once it is made.
    func testNoSecretIsWrittenInAPipelineDescription() throws {
        for text in ["icecast://source:pw%22Zx9@h.example:8000/radio.mp3", "rtmp://h.example/live/sk_Zx9key",
                     "rtmps://u:pwZx9@h.example/live/k", "srt://h.example:9000?mode=caller&passphrase=passZx9phrase&streamid=#!::u=Zx9"] {
            let target = try resolved(text).target
            let description = target.muxAndSink() + (target.directAudioSink(location: nil) ?? "")
            XCTAssertFalse(description.contains("Zx9"), "\(text): \(description)")
            XCTAssertTrue(target.secretProperties.contains { $0.element == "sink" && $0.value.contains("Zx9") }, "\(text): \(target.secretProperties)")
        }
        // An AAC mount's sink is an fdsink on a socket mediapub logged in itself: it has no
        // password to set (setting one warned "has no property named 'password'" at each connect).
        let aac = try resolved("icecast://source:pwZx9@h.example:8000/radio.aac").target
        XCTAssertTrue(aac.directAudioSink(location: nil)?.contains("fdsink name=sink") == true, "\(aac)")
        XCTAssertTrue(aac.secretProperties.isEmpty, "\(aac.secretProperties.map { ($0.element, $0.property) })")
    }

    func testSRTCarriesHostPortAndDecodedParameters() throws {
        let caller = "srt://h.example:9000?mode=caller&passphrase=s3cret%20pass&streamid=#!::r=live/cam1,u=alice&latency=200"
        let url = try resolved(caller)
        guard case .srt(let e) = url.target else { return XCTFail("\(url.target)") }
        XCTAssertEqual(e.url, caller)
        XCTAssertEqual(e.host, "h.example")
        XCTAssertEqual(e.port, 9000)
        XCTAssertEqual(e.parameters, ["mode": "caller", "passphrase": "s3cret pass", "streamid": "#!::r=live/cam1,u=alice", "latency": "200"])
        XCTAssertFalse(e.isListener)
        // Its URI is the sink's property, set once it is made, never in the pipeline's description.
        XCTAssertTrue(url.target.secretProperties.contains { $0.property == "uri" && $0.value.contains("streamid=%23!::r=live/cam1") },
                      "\(url.target.secretProperties)")
        XCTAssertFalse(url.target.muxAndSink().contains("s3cret"), url.target.muxAndSink())

        let listener = try resolved("srt://:9001?MODE=Listener")
        XCTAssertEqual(listener.target, .srt(NetworkEndpoint(url: "srt://:9001?MODE=Listener", host: "", port: 9001, parameters: ["mode": "Listener"])))
        guard case .srt(let l) = listener.target else { return XCTFail() }
        XCTAssertTrue(l.isListener)
        XCTAssertEqual(try OutputURL("srt://h:9000").target, .srt(NetworkEndpoint(url: "srt://h:9000", host: "h", port: 9000)))
    }

    func testFilesAndPlainPaths() throws {
        XCTAssertEqual(try resolved("file:///rec/%Y%m%d-%H%M%S.mp4").target, .file(path: "/rec/%Y%m%d-%H%M%S.mp4", container: "mp4"))
        let plain = try resolved("rec/%Y-%m-%d.MKV")
        XCTAssertEqual(plain.text, "file:///srv/mp/rec/%Y-%m-%d.MKV")
        XCTAssertEqual(plain.target, .file(path: "/srv/mp/rec/%Y-%m-%d.MKV", container: "mkv"))
        XCTAssertEqual(try resolved("  ~/out.ts ").target, .file(path: "/home/u/out.ts", container: "ts"))
        // In code a plain path is taken as written.
        let asWritten = try OutputURL("rec/b.flv")
        XCTAssertEqual(asWritten.text, "rec/b.flv")
        XCTAssertEqual(asWritten.target, .file(path: "rec/b.flv", container: "flv"))
        XCTAssertTrue(try OutputURL("/r/x.mp4").target.delaysByCompositionOffset)
    }

    func testHLSAndNull() throws {
        XCTAssertEqual(try resolved("hls:///srv/live/index.m3u8?segment=2s&window=5").target,
                       .hls(OutputURL.HLS(playlist: "/srv/live/index.m3u8", segment: 2, window: 5)))
        XCTAssertEqual(try resolved("HLS:///l/i.m3u8").target, .hls(OutputURL.HLS(playlist: "/l/i.m3u8", segment: 4, window: 6)))
        for text in ["null://", "null:"] {
            XCTAssertEqual(try resolved(text).target, .null)
            XCTAssertEqual(try OutputURL(text).target, .null)
        }
    }

    /// Each refusal as a preset says it, and as code is refused.
    func testRefusalsInBothWordings() {
        let supported = "(rtmp://, rtmps://, srt://, hls://, icecast://, file://, null:// or a file path)"
        let refused: [(String, preset: String, code: String)] = [
            ("", "an output needs a url", "an output needs a url"),
            ("rtmp:h/app/key", "rtmp:… is not a URL like rtmp://host/app/key", "output rtmp:… is not a URL like rtmp://host/…"),
            ("srt:h:9000", "srt:… is not a URL like srt://host:port", "output srt:… is not a URL like srt://host/…"),
            ("http://h/a.mp4", "\"http://h/a.mp4\" is not a supported output \(supported)", "output http://h/a.mp4: not a supported output \(supported)"),
            ("file://rel.mp4", "\"file://rel.mp4\" needs an absolute path: file:///path/name.mp4",
             "output file://rel.mp4: needs an absolute path: file:///path/name.mp4"),
            ("/r/out.avi", "\"/r/out.avi\": a file output must end in .mp4, .mkv, .flv, .ts, .m4a, .mp3, .aac, .ogg or .opus",
             "output /r/out.avi: unsupported container .avi (use .mp4, .mkv, .flv, .ts, .m4a, .mp3, .aac, .ogg or .opus)"),
            ("rtmp:///app/key", "\"rtmp:///app/****\" has no host: rtmp://host/app/key", "output rtmp:///app/****: has no host: rtmp://host/app/key"),
            ("rtmp://h:0/app/key", "\"rtmp://h:0/app/****\" has a bad port", "output rtmp://h:0/app/****: has a bad port"),
            ("rtmps://h:x/app/key", "\"rtmps://h:x/app/****\" has a bad port", "output rtmps://h:x/app/****: has a bad port"),
            ("rtmp://h/key", "\"rtmp://h/****\" needs an app and a stream key: rtmp://host/app/key",
             "output rtmp://h/****: needs an app and a stream key: rtmp://host/app/key"),
            ("srt://h?mode=caller", "\"srt://h?mode=caller\" needs host:port, like srt://host:9000", "output srt://h?mode=caller: needs host:port, like srt://host:9000"),
            ("srt://h:9000?mode=rendezvous&passphrase=pw", "\"srt://h:9000?mode=rendezvous&passphrase=****\": mode must be caller or listener",
             "output srt://h:9000?mode=rendezvous&passphrase=****: mode must be caller or listener"),
            ("srt://:9000", "\"srt://:9000\" needs a host (or mode=listener)", "output srt://:9000: needs a host (or mode=listener)"),
            ("srt://h:9000?latency=-1", "\"srt://h:9000?latency=-1\": latency must be a whole number of milliseconds",
             "output srt://h:9000?latency=-1: latency must be a whole number of milliseconds"),
            ("srt://h:9000?passphrase=abcde", "\"srt://h:9000?passphrase=****\": passphrase must be 10 to 79 characters (libsrt refuses others), got 5",
             "output srt://h:9000?passphrase=****: passphrase must be 10 to 79 characters (libsrt refuses others), got 5"),
            ("srt://h:9000?passphrase=" + String(repeating: "p", count: 80),
             "\"srt://h:9000?passphrase=****\": passphrase must be 10 to 79 characters (libsrt refuses others), got 80",
             "output srt://h:9000?passphrase=****: passphrase must be 10 to 79 characters (libsrt refuses others), got 80"),
            ("hls://live/index.m3u8", "\"hls://live/index.m3u8\" needs an absolute path: hls:///path/index.m3u8?segment=4s&window=6",
             "output \"hls://live/index.m3u8\" needs an absolute path: hls:///path/index.m3u8?segment=4s&window=6"),
            ("hls:///i.txt", "\"hls:///i.txt\": the playlist must end in .m3u8", "output \"hls:///i.txt\": the playlist must end in .m3u8"),
            ("hls:///i.m3u8?segment=90s", "\"hls:///i.m3u8?segment=90s\": segment must be whole seconds from 1s to 60s, got 90s",
             "output \"hls:///i.m3u8?segment=90s\": segment must be whole seconds from 1s to 60s, got 90s"),
            ("hls:///i.m3u8?window=x", "\"hls:///i.m3u8?window=x\": window must be a number of segments from 3 to 100, got x",
             "output \"hls:///i.m3u8?window=x\": window must be a number of segments from 3 to 100, got x"),
            ("hls:///i.m3u8?size=2", "\"hls:///i.m3u8?size=2\": unknown parameter size (segment, window)",
             "output \"hls:///i.m3u8?size=2\": unknown parameter size (segment, window)"),
            ("icecast://pw@h:8000/radio.wav", "\"icecast://****@h:8000/radio.wav\": names no codec (wav): end the mount in .mp3, .aac, .ogg or .opus, or give ?codec=mp3|aac|opus",
             "output icecast://****@h:8000/radio.wav: names no codec (wav): end the mount in .mp3, .aac, .ogg or .opus, or give ?codec=mp3|aac|opus"),
            ("icecast://h:8000/radio.mp3", "\"icecast://h:8000/radio.mp3\" needs the source password: icecast://source:PASSWORD@host:8000/mount.mp3",
             "output icecast://h:8000/radio.mp3: needs the source password: icecast://source:PASSWORD@host:8000/mount.mp3"),
            ("icecast://source:pw@h:8000/", "\"icecast://****@h:8000/\" needs a mount: icecast://source:PASSWORD@host:8000/mount.mp3",
             "output icecast://****@h:8000/: needs a mount: icecast://source:PASSWORD@host:8000/mount.mp3"),
            ("icecast://source:pw@h:8000/../x.mp3", "\"icecast://****@h:8000/../x.mp3\": the mount /../x.mp3 has an empty, . or .. part, or a control character: Icecast refuses such a path without a word",
             "output icecast://****@h:8000/../x.mp3: the mount /../x.mp3 has an empty, . or .. part, or a control character: Icecast refuses such a path without a word"),
            ("icecast://source:pw@h:8000/r.mp3?bitrate=1", "\"icecast://****@h:8000/r.mp3?bitrate=1\": unknown parameter bitrate (codec, name, description, genre)",
             "output icecast://****@h:8000/r.mp3?bitrate=1: unknown parameter bitrate (codec, name, description, genre)"),
        ]
        for (text, preset, code) in refused {
            XCTAssertEqual(OutputURL.resolve(text, base: "/"), .failure(OutputURL.Failure(message: preset)), text)
            XCTAssertThrowsError(try OutputURL(text), text) { XCTAssertEqual("\($0)", code, text) }
        }
    }
}

import XCTest
@testable import MediaPub
@testable import MediaPubTestSupport

final class PresetPlaylistTests: XCTestCase {
    typealias K = PresetTestKit

    func testPlaylistFromM3U() throws {
        let dir = try K.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/lists", withIntermediateDirectories: true)
        K.touch(dir + "/lists/music.m3u", """
            #EXTM3U
            #EXTINF:123,Artist - Title
            a.mp3

            ../b.flac\r
            /abs/c.wav
            https://cdn.example.com/d.aac
            """)
        K.touch(dir + "/lists/empty.m3u8", "#EXTM3U\n# nothing\n")
        let p = try K.load("players:\n  - playlist:\n      file: lists/music.m3u\n      mode: once\n", base: dir)
        XCTAssertEqual(p.players[0].playlist, PlaylistConfig(items: [
            dir + "/lists/a.mp3", dir + "/b.flac", "/abs/c.wav", "https://cdn.example.com/d.aac",
        ], mode: .once))

        let probs = K.problems("""
            players:
              - playlist:
                  file: lists/empty.m3u8
              - playlist:
                  file: lists/missing.m3u
              - playlist:
                  file: lists
            """, base: dir)
        XCTAssertEqual(probs.map(\.description), [
            "presets/t.yaml:3: players[0].playlist.file: empty playlist: \(dir)/lists/empty.m3u8 lists no entries",
            "presets/t.yaml:5: players[1].playlist.file: cannot find \(dir)/lists/missing.m3u",
            "presets/t.yaml:7: players[2].playlist.file: \(dir)/lists is a folder, not a file",
        ])
    }

    func testPlaylistFromDirectory() throws {
        let dir = try K.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let music = dir + "/music"
        try FileManager.default.createDirectory(atPath: music + "/sub.mp3", withIntermediateDirectories: true)
        for name in ["b.flac", "a.MP3", ".hidden.mp3", "notes.txt", "c.opus", "cover.jpg"] {
            K.touch(music + "/" + name)
        }
        try FileManager.default.createDirectory(atPath: dir + "/empty", withIntermediateDirectories: true)
        K.touch(dir + "/empty/readme.txt")

        let p = try K.load("players:\n  - playlist: { dir: music, mode: shuffle }\n", base: dir)
        XCTAssertEqual(p.players[0].playlist, PlaylistConfig(items: [
            music + "/a.MP3", music + "/b.flac", music + "/c.opus", music + "/cover.jpg",
        ], mode: .shuffle))

        let probs = K.problems("players:\n  - playlist: { dir: empty }\n  - playlist: { dir: nowhere }\n", base: dir)
        XCTAssertEqual(probs.map(\.description), [
            "presets/t.yaml:2: players[0].playlist.dir: empty playlist: no media files in \(dir)/empty",
            "presets/t.yaml:3: players[1].playlist.dir: cannot find \(dir)/nowhere",
        ])
    }

    func testExclusivePlaylistForms() {
        let probs = K.problems("players:\n  - playlist:\n      items: [a]\n      dir: x\n")
        XCTAssertEqual(probs.map(\.description),
                       ["presets/t.yaml:4: players[0].playlist.dir: items, file and dir are exclusive: give one of them"])
    }

    func testRelativePathResolution() {
        XCTAssertEqual(PathResolution.resolveSource("media/a.mp3", base: "/p"), "/p/media/a.mp3")
        XCTAssertEqual(PathResolution.resolveSource("./a/../b.mp3", base: "/p/q"), "/p/q/b.mp3")
        XCTAssertEqual(PathResolution.resolveSource("../../../x", base: "/p"), "/x")
        XCTAssertEqual(PathResolution.resolveSource("/abs//x.mp4", base: "/p"), "/abs/x.mp4")
        XCTAssertEqual(PathResolution.resolveSource("~/x.mp3", base: "/p", environment: ["HOME": "/home/u"]), "/home/u/x.mp3")
        for url in ["http://h/a.mp3", "https://h/live/index.m3u8", "file:///a.flac", "testsrc:", "testsrc:?freq=440"] {
            XCTAssertEqual(PathResolution.resolveSource(url, base: "/p"), url)
        }
        XCTAssertEqual(PathResolution.resolveSource("C:x", base: "/p"), "/p/C:x")
        XCTAssertEqual(PathResolution.scheme(of: "HTTPS://x"), "https")
        XCTAssertNil(PathResolution.scheme(of: "a b:c"))
    }
}

// The HLS playlist reader behind segment skipping, endless origins' restarts and
// `memory: true`: relative URIs resolved, master playlists followed,
// hostile numbers kept in range (never a trap), errors' segments and HTTP
// statuses found.

import XCTest
@testable import MediaPub

final class HLSPlaylistTests: XCTestCase {

    func testMediaPlaylistSegmentsTimesAndWhetherEndless() throws {
        var variant: String?
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:7\n#EXTINF:2.0,\na/seg1.ts\n#EXTINF:1.5,\n/abs/seg2.ts\n#EXTINF:2,\nhttp://cdn.example/seg3.ts\n"
        let p = try XCTUnwrap(HLSPlaylist.parse(text, url: "http://h.example/live/index.m3u8", variant: &variant))
        XCTAssertNil(variant)
        XCTAssertTrue(p.isEndless, "no #EXT-X-ENDLIST: endless")
        XCTAssertEqual(p.mediaSequence, 7)
        XCTAssertEqual(p.segments.map(\.url), ["http://h.example/live/a/seg1.ts", "http://h.example/abs/seg2.ts", "http://cdn.example/seg3.ts"])
        XCTAssertEqual(p.segments.map(\.startMs), [0, 2000, 3500])
        XCTAssertEqual(p.segments.map(\.endMs), [2000, 3500, 5500])
        XCTAssertNil(p.trimmed(fromMs: 3500), "an endless playlist is never trimmed")
        XCTAssertEqual(p.lastSequence, 9)
        XCTAssertEqual(p.endlessStartSequence, 7, "less than three target durations listed: a join starts at the first")
        let six = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:10\n" + (0..<6).map { "#EXTINF:1.0,\ns\($0).ts\n" }.joined()
        let q = try XCTUnwrap(HLSPlaylist.parse(six, url: "http://h/live.m3u8", variant: &variant))
        XCTAssertEqual(q.lastSequence, 15)
        XCTAssertEqual(q.endlessStartSequence, 13, "a join starts three target durations from the end")
        XCTAssertNil(HLSPlaylist.parse("not a playlist", url: "http://h/x.m3u8", variant: &variant))
    }

    func testMasterPlaylistGivesItsFirstVariant() {
        var variant: String?
        let master = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000\nlow/index.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=2000000\nhigh/index.m3u8\n"
        let p = HLSPlaylist.parse(master, url: "https://h.example/show/master.m3u8", variant: &variant)
        XCTAssertEqual(p?.segments.count, 0)
        XCTAssertEqual(variant, "https://h.example/show/low/index.m3u8")
    }

    func testHostileNumbersStayInRange() throws {
        var variant: String?
        for bad in ["inf", "nan", "1e400", "-3", "99999999999999999999", "9223372036854775807"] {
            let text = "#EXTM3U\n#EXT-X-TARGETDURATION:\(bad)\n#EXT-X-MEDIA-SEQUENCE:\(bad)\n#EXTINF:\(bad),\ns0.ts\n#EXTINF:2,\ns1.ts\n#EXT-X-ENDLIST\n"
            let p = try XCTUnwrap(HLSPlaylist.parse(text, url: "http://h/i.m3u8", variant: &variant), bad)
            XCTAssertEqual(p.targetDuration, 0, bad)
            XCTAssertTrue((0...(1 << 53)).contains(p.mediaSequence), "\(bad): \(p.mediaSequence)")
            XCTAssertGreaterThanOrEqual(p.lastSequence, p.endlessStartSequence, "no trap (\(bad))")
            XCTAssertEqual(p.segments.map(\.durationMs), [0, 2000], bad)
            XCTAssertFalse(p.isEndless)
            XCTAssertNotNil(p.trimmed(fromMs: 500), "written back without a trap (\(bad))")
        }
    }

    func testTrimmedPlaylistStartsAtTheSegmentHoldingTheStart() throws {
        var variant: String?
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n" + (0..<5).map { "#EXTINF:2.0,\nseg00\($0).ts\n" }.joined() + "#EXT-X-ENDLIST\n"
        let p = try XCTUnwrap(HLSPlaylist.parse(text, url: "http://h/v/index.m3u8", variant: &variant))
        XCTAssertNil(p.trimmed(fromMs: 1000), "within the first segment: a seek does it")
        let t = try XCTUnwrap(p.trimmed(fromMs: 6000))
        XCTAssertEqual(t.startMs, 6000)
        var again: String?
        let reread = try XCTUnwrap(HLSPlaylist.parse(t.text, url: "file:///tmp/x.m3u8", variant: &again))
        XCTAssertEqual(reread.segments.map(\.url), ["http://h/v/seg003.ts", "http://h/v/seg004.ts"])
        XCTAssertFalse(reread.isEndless)
        XCTAssertNil(p.trimmed(fromMs: 10_000), "past the end")
    }

    func testErrorTextsGiveTheSegmentAndTheStatus() throws {
        var variant: String?
        let text = "#EXTM3U\n#EXTINF:1,\nseg1.ts\n#EXTINF:1,\nseg10.ts\n#EXT-X-ENDLIST\n"
        let p = try XCTUnwrap(HLSPlaylist.parse(text, url: "http://h/index.m3u8", variant: &variant))
        let gst = "Not Found: ../ext/soup/gstsouphttpsrc.c(1683): …/GstSoupHTTPSrc:souphttpsrc2:\nNot Found (404), URL: http://h/seg10.ts, Redirect to: (NULL)"
        XCTAssertEqual(p.segmentIndex(namedIn: gst), 1, "the longest URL that matches")
        XCTAssertNil(p.segmentIndex(namedIn: "Internal data stream error."))
        XCTAssertEqual(HLSPlaylist.httpStatus(in: gst), "404 Not Found")
        XCTAssertEqual(HLSPlaylist.httpStatus(in: "The requested URL returned error: 503"), "503 Service Unavailable")
        XCTAssertEqual(HLSPlaylist.httpStatus(in: "returned error: 418"), "HTTP 418")
        XCTAssertNil(HLSPlaylist.httpStatus(in: "Could not resolve host: h"))
    }
}

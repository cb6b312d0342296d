// The thumbnail's size and cache (docs/http.md, GET /api/thumbnail.jpg): pure values.

import Foundation
import XCTest
@testable import MediaPub

final class ThumbnailSizeTests: XCTestCase {
    private let hd = (width: 1280, height: 720)

    func testDefaultWidthIs320InTheOutputsProportionsAndNeverWiderThanTheOutput() throws {
        XCTAssertEqual(try ThumbnailSize.asked(nil, output: hd).get(), ThumbnailSize(width: 320, height: 180))
        XCTAssertEqual(try ThumbnailSize.asked("n=4", output: hd).get(), ThumbnailSize(width: 320, height: 180))
        XCTAssertEqual(try ThumbnailSize.asked(nil, output: (200, 100)).get(), ThumbnailSize(width: 200, height: 100))
        XCTAssertEqual(try ThumbnailSize.asked("width=640&n=1", output: hd).get(), ThumbnailSize(width: 640, height: 360))
        XCTAssertEqual(try ThumbnailSize.asked("width=1280", output: hd).get(), ThumbnailSize(width: 1280, height: 720))
        // Odd sizes are made even (4:2:0 pictures).
        XCTAssertEqual(try ThumbnailSize.asked("width=201", output: (201, 101)).get(), ThumbnailSize(width: 200, height: 100))
    }

    /// Only 160, 320, 640 and the output's width are made, a width between taken to the nearest:
    /// however many widths are asked, no more are made than the cache keeps (before, every width
    /// asked was one more JPEG pipeline, and 5 asked in turn always missed the cache).
    func testAWidthAskedIsTakenToOneOfAFewSteps() throws {
        XCTAssertEqual(ThumbnailSize.steps(outputWidth: 1280), [160, 320, 640, 1280])
        XCTAssertEqual(ThumbnailSize.steps(outputWidth: 640), [160, 320, 640])
        XCTAssertEqual(ThumbnailSize.steps(outputWidth: 200), [160, 200])
        for (asked, made) in [(16, 160), (101, 160), (240, 320), (300, 320), (481, 640), (959, 640), (960, 1280), (1279, 1280)] {
            XCTAssertEqual(try ThumbnailSize.asked("width=\(asked)", output: hd).get().width, made, "width=\(asked)")
        }
        let made = Set((ThumbnailSize.minimumWidth...hd.width).map { try? ThumbnailSize.asked("width=\($0)", output: hd).get().width })
        print("ThumbnailSizeTests: \(hd.width - ThumbnailSize.minimumWidth + 1) widths asked, \(made.count) made")
        XCTAssertLessThanOrEqual(made.count, ThumbnailCache.capacity, "every width made fits the cache")
    }

    func testAWidthOutsideSixteenToTheOutputsIsRefusedNamingIt() {
        for bad in ["width=1281", "width=15", "width=0", "width=-4", "width=abc", "width=", "width"] {
            guard case .failure(let e) = ThumbnailSize.asked(bad, output: hd) else { return XCTFail("\(bad) was taken") }
            XCTAssertTrue(e.message.hasPrefix("width: expected a whole number from 16 to 1280, got "), e.message)
        }
    }

    func testTheCacheAnswersAJPEGUnderOneSecondOldForItsWidthOnly() {
        var cache = ThumbnailCache()
        let a = Data([1, 2, 3])
        XCTAssertNil(cache.fresh(width: 320, now: 10))
        cache.store(a, width: 320, now: 10)
        XCTAssertEqual(cache.fresh(width: 320, now: 10), a)
        XCTAssertEqual(cache.fresh(width: 320, now: 10.99), a)
        XCTAssertNil(cache.fresh(width: 320, now: 11), "1 s old is too old")
        XCTAssertNil(cache.fresh(width: 640, now: 10.5), "another width is made on its own")
        XCTAssertNil(cache.fresh(width: 320, now: 9), "a clock that went back answers nothing")
    }

    func testTheCacheKeepsAtMostFourWidthsDroppingTheOldestMade() {
        var cache = ThumbnailCache()
        for (i, w) in [100, 200, 300, 400, 500].enumerated() { cache.store(Data([UInt8(i)]), width: w, now: Double(i) / 10) }
        XCTAssertEqual(cache.widths, [200, 300, 400, 500])
        cache.store(Data([9]), width: 300, now: 0.6)
        XCTAssertEqual(cache.widths, [200, 400, 500, 300], "made again: the newest")
        XCTAssertEqual(cache.fresh(width: 300, now: 0.7), Data([9]))
    }
}

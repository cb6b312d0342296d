// The keyframes a rotating recording needs: one at every multiple of each
// output's segment length, on the first picture at or past it (pure, no pipeline).

import XCTest
@testable import MediaPub

final class KeyframeScheduleTests: XCTestCase {
    private let frame: UInt64 = 40_000_000   // 25 fps

    private func due(_ schedule: inout KeyframeSchedule, frames: Int) -> [Int] {
        (0..<frames).filter { schedule.isDue(at: UInt64($0) * frame) }
    }

    func testOneAtEachBoundaryOfEachSegmentLength() {
        var s = KeyframeSchedule(segments: [5, 2])
        XCTAssertEqual(due(&s, frames: 301), [50, 100, 125, 150, 200, 250, 300], "2 s and 5 s boundaries, each once")
    }

    func testAPictureLateForItsBoundaryTakesItAndTheNextComesOnTime() {
        var s = KeyframeSchedule(segments: [1])
        XCTAssertFalse(s.isDue(at: 999_000_000))
        XCTAssertTrue(s.isDue(at: 2_500_000_000), "past two boundaries: one keyframe")
        XCTAssertFalse(s.isDue(at: 2_900_000_000))
        XCTAssertTrue(s.isDue(at: 3_000_000_000))
    }

    func testNoSegmentsNeverAsks() {
        var s = KeyframeSchedule(segments: [])
        XCTAssertTrue(s.isEmpty)
        XCTAssertFalse(s.isDue(at: .max))
        var zero = KeyframeSchedule(segments: [0, -1, .nan])
        XCTAssertTrue(zero.isEmpty)
        XCTAssertFalse(zero.isDue(at: 1))
    }

    func testTheLargestTimesSaturate() {
        var s = KeyframeSchedule(segments: [315_360_000])   // 87600h
        XCTAssertTrue(s.isDue(at: .max - 1))
        XCTAssertFalse(s.isDue(at: .max - 1))
    }
}

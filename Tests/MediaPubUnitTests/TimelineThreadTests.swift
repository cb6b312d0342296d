import Foundation
import XCTest
@testable import MediaPub

/// The debug builds' check of what runs on the timeline thread (docs/design.md, What may run
/// on the timeline thread). What is fatal there cannot be shown in this process (it stops it):
/// the whole suite runs with the checks on, and any blocking call that reaches the timeline
/// (a player's render, a timeline action, the live feed's apply included) stops it; here,
/// what is not fatal.
final class TimelineThreadTests: XCTestCase {
    func testTheMarkHoldsOnlyWhileTheTimelineRuns() {
        XCTAssertFalse(TimelineThread.isCurrent)
        TimelineThread.run(realtime: true) { XCTAssertTrue(TimelineThread.isCurrent) }
        XCTAssertFalse(TimelineThread.isCurrent)
        // Off the timeline every check passes.
        XCTAssertFalse(TimelineThread.forbidsWait(5))
        TimelineThread.assertOff("a launch off the timeline")
        TimelineThread.assertMayWait(5, "a wait off the timeline")
    }

    func testAsFastAsPossibleATickMayWaitForItsSources() {
        TimelineThread.run(realtime: false) {
            XCTAssertFalse(TimelineThread.forbidsWait(5), "as fast as possible, a tick waits for its content")
            TimelineThread.assertMayWait(5, "a tick waiting for its content")
        }
        TimelineThread.run(realtime: true) {
            XCTAssertTrue(TimelineThread.forbidsWait(1), "realtime, the timeline never waits")
            XCTAssertFalse(TimelineThread.forbidsWait(0), "a wait already over is none")
            TimelineThread.assertMayWait(0, "a realtime wait of nothing")
        }
    }
}

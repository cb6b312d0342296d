import Foundation
import XCTest
@testable import MediaPub

/// The debug builds' check of what runs on the timeline thread (docs/design.md, What may run
/// on the timeline thread). What is fatal there cannot be shown in this process (it stops it):
/// the whole suite runs with the checks on, and any blocking call that reaches the timeline
/// stops it; here, what is not fatal.
final class TimelineThreadTests: XCTestCase {
    func testTheMarkHoldsOnlyWhileTheTimelineRuns() {
        XCTAssertFalse(TimelineThread.isCurrent)
        TimelineThread.run(realtime: true) { XCTAssertTrue(TimelineThread.isCurrent) }
        XCTAssertFalse(TimelineThread.isCurrent)
        // Off the timeline every check passes.
        TimelineThread.assertOff("a launch off the timeline")
        TimelineThread.assertMayWait(5, "a wait off the timeline")
    }

    func testAsFastAsPossibleATickMayWaitForItsSources() {
        let before = TimelineThread.tolerated.load(ordering: .relaxed)
        TimelineThread.run(realtime: false) {
            TimelineThread.assertMayWait(5, "a tick waiting for its content")
            TimelineThread.assertMayWait(0, "a wait already over")
        }
        TimelineThread.run(realtime: true) { TimelineThread.assertMayWait(0, "a realtime wait of nothing") }
        XCTAssertEqual(TimelineThread.tolerated.load(ordering: .relaxed), before, "none of these is a wait on the timeline")
    }

    /// Until the player opens its sessions on its own queue, what its render reaches is counted
    /// (with MEDIAPUB_TIMELINE_STRICT=1, fatal as anything else: this test then stops the process).
    func testWhatAPlayerReachesWhileItRendersIsCountedNotFatal() {
        #if DEBUG
        let before = TimelineThread.tolerated.load(ordering: .relaxed)
        TimelineThread.run(realtime: true) {
            TimelineThread.toleratingPlayer {
                TimelineThread.assertOff("a session's launch")
                TimelineThread.assertMayWait(1, "a wait for an item")
            }
        }
        XCTAssertEqual(TimelineThread.tolerated.load(ordering: .relaxed) - before, 2)
        #endif
    }
}

import Foundation
import Synchronization
import XCTest
@testable import MediaPub

/// A programme's cue is made on the runner's `programme-cue` queue and committed on the
/// timeline (docs/design.md, What may run on the timeline thread): whichever of the two
/// comes first, the cue is committed exactly once, and one called off is cancelled exactly once.
final class ScheduleCueTests: XCTestCase {
    func testMadeBeforeItsCommitIsTakenByTheCommit() {
        let cue = ScheduleCue()
        XCTAssertEqual(cue.made(.cued(7)), .keep, "nothing came yet: the commit takes it")
        XCTAssertEqual(cue.commit(wait: 0), .cued(7))
    }

    func testARealtimeCommitBeforeItIsMadeNeverWaitsAndItIsCommittedOnceMade() {
        let cue = ScheduleCue()
        XCTAssertEqual(cue.commit(wait: 0), .preparing, "realtime: the commit takes what there is")
        XCTAssertEqual(cue.made(.cued(3)), .commit, "made after its commit: committed by the cue queue")
    }

    func testACueCalledOffIsCancelledWhetherMadeBeforeOrAfter() {
        let before = ScheduleCue()
        XCTAssertNil(before.drop(), "nothing made yet: nothing to cancel now")
        XCTAssertEqual(before.made(.cued(1)), .cancel, "made after it was called off: cancelled then")
        let after = ScheduleCue()
        XCTAssertEqual(after.made(.cued(2)), .keep)
        XCTAssertEqual(after.drop(), 2, "made before: cancelled by whoever called it off")
    }

    func testNothingToCueIsNothing() {
        let cue = ScheduleCue()
        XCTAssertEqual(cue.made(.nothing), .keep)
        XCTAssertEqual(cue.commit(wait: 0), .nothing)
        XCTAssertNil(cue.made.ticket)
    }

    /// As fast as possible the commit waits (bounded) for the cue queue, as a tick waits for its content.
    func testAsFastAsPossibleTheCommitWaitsForTheCueBeingMade() {
        let cue = ScheduleCue()
        let queue = DispatchQueue(label: "test-cue")
        queue.async { _ = cue.made(.cued(5)) }
        XCTAssertEqual(cue.commit(wait: 30), .cued(5))
    }

    /// The commit (on one thread) and the making (on another) at once: exactly one of them
    /// commits it, never both, never neither.
    func testACommitRacingItsMakingCommitsItExactlyOnce() {
        let rounds = 500
        var byCommit = 0, byQueue = 0
        for i in 0..<rounds {
            let cue = ScheduleCue()
            let start = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
            let then = Mutex<ScheduleCue.Then?>(nil)
            Thread.detachNewThread {
                start.wait()
                let t = cue.made(.cued(i))
                then.withLock { $0 = t }
                done.signal()
            }
            start.signal()
            let committed = cue.commit(wait: 0)
            done.wait()
            let queueCommits = then.withLock { $0 } == .commit
            let commitTakes = committed == .cued(i)
            XCTAssertNotEqual(queueCommits, commitTakes, "round \(i): committed \(commitTakes && queueCommits ? "twice" : "never")")
            if commitTakes { byCommit += 1 } else { byQueue += 1 }
        }
        print("ScheduleCue race: \(rounds) rounds, \(byCommit) taken by the commit, \(byQueue) committed by the cue queue")
    }
}

// Items' durations for joining a block in progress (ItemDurations): probed once and
// kept for the run by path, size and modification time; a file that changed is probed
// again; an item whose duration cannot be known is nil, and one that does not answer
// within its deadline too. Media made by ffmpeg; durations as ffmpeg wrote them.

import Foundation
import Synchronization
import XCTest
@testable import MediaPub

final class ItemDurationsTests: XCTestCase {
    func testDurationsAreProbedOnceAndAgainWhenTheFileChanges() throws {
        let dir = try makeTempDir()
        let wav = try TestMedia.makeAudio(in: dir, name: "a.wav", seconds: 2, ext: "wav").path
        let mp4 = try TestMedia.makeColorVideo(in: dir, name: "b.mp4", seconds: 3, color: "blue", freq: 880).path
        let garbage = try writeFile(dir, "c.mp4", "not media").path
        let missing = dir.appendingPathComponent("d.mp4").path
        let durations = ItemDurations(deadline: 10)

        let first = durations.durations(of: [wav, mp4, garbage, missing, wav])
        XCTAssertEqual(first.count, 5)
        XCTAssertEqual(first[0] ?? 0, 2, accuracy: 0.05, "the WAV's 2 s")
        XCTAssertEqual(first[1] ?? 0, 3, accuracy: 0.1, "the MP4's 3 s")
        XCTAssertNil(first[2], "not media: unknown")
        XCTAssertNil(first[3], "missing: unknown")
        XCTAssertEqual(first[4], first[0], "the same item twice")
        XCTAssertEqual(durations.probes, 4, "each item probed once")
        XCTAssertEqual((durations.known(wav) ?? nil) ?? 0, 2, accuracy: 0.05, "known without probing")
        XCTAssertNil(durations.known(missing), "a failed probe is not kept: tried again next time")

        let again = durations.durations(of: [mp4, wav])
        XCTAssertEqual(again.map { $0.map { ($0 * 10).rounded() } }, [first[1], first[0]].map { $0.map { ($0 * 10).rounded() } })
        XCTAssertEqual(durations.probes, 4, "known items are not probed again")

        // Another version of the file (its size and modification time change): probed again.
        try TestMedia.makeAudio(in: dir, name: "a.wav", seconds: 1, ext: "wav")
        XCTAssertNil(durations.known(wav), "changed: no longer known")
        XCTAssertEqual(durations.duration(of: wav) ?? 0, 1, accuracy: 0.05, "the new version's 1 s")
        XCTAssertEqual(durations.probes, 5)
    }

    /// A failed probe (a port nothing listens on: refused at once) counts for a minute of the
    /// monotonic clock (a test clock here), then is forgotten: a server that was down at the
    /// start is asked again and its items play again. Before, a failure stayed until a later
    /// success, which nothing asked for: the item was skipped at every occurrence for the run.
    func testAFailedProbeIsForgottenAfterAMinute() throws {
        let item = "http://127.0.0.1:\(try Ports.free())/a.mp4"
        let clock = Mutex(MonotonicInstant(nanoseconds: 1_000_000_000_000))
        let durations = ItemDurations(deadline: 5, uptime: { clock.withLock { $0 } })
        XCTAssertNil(durations.duration(of: item))
        XCTAssertEqual(durations.probes, 1)
        XCTAssertNotNil(durations.failure(item), "nothing answers: failed")
        clock.withLock { $0 = $0 + 59 }
        XCTAssertNotNil(durations.failure(item), "still failed a second before the minute")
        clock.withLock { $0 = $0 + 2 }
        XCTAssertNil(durations.failure(item), "forgotten after the minute")
        XCTAssertNil(durations.known(item), "so its length is wanted again")
        _ = durations.duration(of: item)
        XCTAssertEqual(durations.probes, 2, "and probed again")
        XCTAssertNotNil(durations.failure(item), "failed again, from now")
    }

    /// A server that holds its answer past the item's deadline: unknown, and asked again next time.
    func testAnItemPastItsDeadlineIsUnknown() throws {
        let root = try makeTempDir()
        try TestMedia.makeAudio(in: root, name: "slow.wav", seconds: 2, ext: "wav")
        let server = try startSlowHTTPServer(root: root, delay: 6)
        let durations = ItemDurations(deadline: 1)
        XCTAssertNil(durations.duration(of: server.url("slow.wav")))
        XCTAssertNil(durations.known(server.url("slow.wav")), "no answer is not kept")
    }
}

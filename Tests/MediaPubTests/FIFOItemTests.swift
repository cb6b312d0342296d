// A FIFO item's data is its player's alone: what is found out about items ahead of their
// turn (their loudness, their length) never opens one (docs/presets.md, audio.loudness).
import Foundation
@testable import MediaPub
import XCTest

final class FIFOItemTests: XCTestCase {
    /// Whether something holds `fifo` open for reading: a writer that does not wait
    /// gets ENXIO when nobody does.
    private func hasReader(_ fifo: String) -> Bool {
        let fd = open(fifo, O_WRONLY | O_NONBLOCK)
        if fd >= 0 { close(fd); return true }
        return false
    }

    func testNeitherTheLoudnessNorTheLengthOfAFIFOIsReadAhead() throws {
        let dir = try makeTempDir("fifoitem")
        let fifo = dir.appendingPathComponent("feed.wav").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0, "mkfifo")

        let loudness = ItemLoudness(config: LoudnessConfig(), channels: 2)
        XCTAssertEqual(loudness.known(fifo).map { $0 == nil }, true, "a FIFO has no loudness to go by, at once")
        loudness.wait(for: [fifo], until: MonotonicInstant.now.addingTimeInterval(1))
        XCTAssertFalse(hasReader(fifo), "the loudness measure opened the FIFO")

        let durations = ItemDurations(deadline: 1)
        XCTAssertEqual(durations.durations(of: [fifo]).count, 1)
        XCTAssertNil(durations.duration(of: fifo), "a FIFO is live: no length")
        XCTAssertFalse(hasReader(fifo), "the length probe opened the FIFO")
    }
}

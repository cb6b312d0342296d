import Foundation
import XCTest
@testable import MediaPub

/// Joining a block in progress (docs/presets.md, Schedule): the item on air and the offset
/// into it, by mode, and a shuffle order that a restart computes again. Pure: no media.
final class BlockCursorTests: XCTestCase {
    private let three: [TimeInterval?] = [10, 10, 10]

    private func at(_ durations: [TimeInterval?], _ mode: PlaylistMode, _ elapsed: TimeInterval,
                    key: String = "b@2026-03-29") -> (Int, TimeInterval, Int)? {
        BlockCursor.position(durations: durations, mode: mode, occurrenceKey: key, elapsed: elapsed).map { ($0.item, $0.offset, $0.pass) }
    }

    func testThreeItemsSeventeenSecondsIn() {
        let p = at(three, .once, 17)
        XCTAssertEqual(p?.0, 1)
        XCTAssertEqual(p?.1, 7)
        XCTAssertEqual(at(three, .once, 0)?.0, 0)
        XCTAssertEqual(at(three, .once, 29.5)?.0, 2)
        XCTAssertEqual(at(three, .once, 29.5)?.1, 9.5)
        XCTAssertNil(at(three, .once, 30), "a once block that has run out: filler")
        XCTAssertEqual(at([30, 20], .once, -5)?.1, 0, "before its start: its top")
    }

    func testLoopAndRepeatOneWrap() {
        let p = at(three, .loop, 47)
        XCTAssertEqual(p?.0, 1)
        XCTAssertEqual(p?.1, 7)
        XCTAssertEqual(p?.2, 1, "the second time through")
        XCTAssertEqual(at([10, 20, 30], .loop, 3600 * 5 + 15)?.0, 1)   // 18015 = 300 passes of 60 s + 15
        XCTAssertEqual(at([10, 20, 30], .loop, 3600 * 5 + 15)?.1, 5)
        XCTAssertEqual(at([10, 20, 30], .repeatOne, 25)?.0, 0)
        XCTAssertEqual(at([10, 20, 30], .repeatOne, 25)?.1, 5)
        XCTAssertEqual(at([0, 0], .loop, 99)?.0, 0, "a list of no length: its top")
        XCTAssertEqual(at([0, 10], .once, 3)?.0, 1, "an item of no length is passed over")
    }

    func testAnItemOfUnknownLengthEndsTheCount() {
        XCTAssertEqual(at([10, nil, 10], .once, 25)?.0, 1)
        XCTAssertEqual(at([10, nil, 10], .once, 25)?.1, 0)
        XCTAssertEqual(at([10, nil, 10], .loop, 500)?.0, 1)
        XCTAssertEqual(at([10, nil, 10], .loop, 5)?.0, 0)
        XCTAssertEqual(at([10, nil, 10], .loop, 5)?.1, 5)
        XCTAssertEqual(at([nil], .repeatOne, 5)?.1, 0)
    }

    func testShuffleOrderComesFromTheOccurrence() {
        let durations = [TimeInterval?](repeating: 10, count: 10)
        let order = BlockCursor.order(count: 10, mode: .shuffle, occurrenceKey: "music@2026-03-29", pass: 0)
        XCTAssertEqual(order.sorted(), Array(0..<10))
        XCTAssertEqual(BlockCursor.order(count: 10, mode: .shuffle, occurrenceKey: "music@2026-03-29", pass: 0), order,
                       "a restart computes the same order")
        XCTAssertNotEqual(BlockCursor.order(count: 10, mode: .shuffle, occurrenceKey: "music@2026-03-30", pass: 0), order,
                          "another date, another order")
        XCTAssertNotEqual(BlockCursor.order(count: 10, mode: .shuffle, occurrenceKey: "music@2026-03-29", pass: 1), order)
        XCTAssertEqual(BlockCursor.order(count: 4, mode: .loop, occurrenceKey: "x", pass: 3), [0, 1, 2, 3])
        // 17 s in: the second item of the drawn order, 7 s into it.
        let p = BlockCursor.position(durations: durations, mode: .shuffle, occurrenceKey: "music@2026-03-29", elapsed: 17)
        XCTAssertEqual(p?.item, order[1])
        XCTAssertEqual(p?.position, 1)
        XCTAssertEqual(p?.offset, 7)
        // A pass never starts with the item the one before ended with.
        for pass in 1..<200 {
            let before = BlockCursor.order(count: 3, mode: .shuffle, occurrenceKey: "k", pass: pass - 1)
            XCTAssertNotEqual(BlockCursor.order(count: 3, mode: .shuffle, occurrenceKey: "k", pass: pass).first, before.last)
        }
        // The hash is FNV-1a's, the same on every run (Swift's own hashValue is not).
        XCTAssertEqual(BlockCursor.fnv1a("a"), 0xaf63_dc4c_8601_ec8c)
    }
}

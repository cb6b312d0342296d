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

    /// With a crossfade each item starts that long before the one before ends (at most half
    /// of either item), so joining counts the overlaps: three 10 s items fading over 2 s start
    /// at 0, 8 and 16 s and end at 26 s.
    func testACrossfadingBlockIsJoinedWithItsOverlaps() {
        func at(_ d: [TimeInterval?], _ mode: PlaylistMode, _ t: TimeInterval, fade: TimeInterval,
                key: String = "b@2026-03-29") -> [Double]? {
            BlockCursor.position(durations: d, mode: mode, occurrenceKey: key, elapsed: t, crossfade: fade)
                .map { [Double($0.item), ($0.offset * 1000).rounded() / 1000, Double($0.pass)] }
        }
        XCTAssertEqual(at(three, .once, 9, fade: 2), [1, 1, 0])
        XCTAssertEqual(at(three, .once, 17, fade: 2), [2, 1, 0])
        XCTAssertEqual(at(three, .once, 25.5, fade: 2), [2, 9.5, 0], "the last item plays to its end")
        XCTAssertNil(at(three, .once, 26, fade: 2), "then the filler")
        XCTAssertEqual(at(three, .loop, 24 * 3 + 9, fade: 2), [1, 1, 3], "a pass lasts 24 s, its wrap fading too")
        // A 2 s item between 10 s ones: fades of 1 s into and out of it (half of it), 3 s elsewhere.
        XCTAssertEqual(at([10, 2, 10], .once, 9.5, fade: 3), [1, 0.5, 0])
        XCTAssertEqual(at([10, 2, 10], .once, 10.5, fade: 3), [2, 0.5, 0])
        XCTAssertEqual(at([10, 2, 10], .loop, 17 + 9.5, fade: 3), [1, 0.5, 1], "17 s a pass: 9 + 1 + 7 (its wrap fading 3 s)")
        XCTAssertEqual(at([10], .repeatOne, 25, fade: 2), [0, 1, 3], "repeat-one fades into itself: every 8 s")
        // Three hours into ten 3-minute items fading over 3 s: 6 passes of 1770 s, then 180 s:
        // the second item, 3 s in (counted whole: the first item's top, 30 s away).
        XCTAssertEqual(at([TimeInterval?](repeating: 180, count: 10), .loop, 3 * 3600, fade: 3), [1, 3, 6])
        XCTAssertEqual(at([10, nil, 10], .loop, 500, fade: 2), [1, 0, 0], "an unknown length still ends the count")
        XCTAssertEqual(at(three, .once, 17, fade: 0), [1, 7, 0], "no crossfade: items whole")
    }

    /// A shuffled block whose fades differ with the items that meet (a short item): each item's
    /// start, as a player plays the passes' orders one after another, is where the join finds it.
    func testAShuffledCrossfadingBlockIsJoinedWhereEachItemStarts() {
        let d: [TimeInterval] = [10, 2, 10, 6, 10], fade = 3.0, key = "mix@2026-03-29"
        func overlap(_ a: Int, _ b: Int) -> TimeInterval { min(fade, d[a] / 2, d[b] / 2) }
        let orders = (0..<6).map { BlockCursor.order(count: d.count, mode: .shuffle, occurrenceKey: key, pass: $0) }
        let played = orders.enumerated().flatMap { pass, order in order.map { (pass, $0) } }
        var start = 0.0
        for (k, (pass, item)) in played.enumerated().dropLast() {
            let p = BlockCursor.position(durations: d, mode: .shuffle, occurrenceKey: key, elapsed: start + 0.25, crossfade: fade)
            XCTAssertEqual(p?.item, item, "the \(k)th item played")
            XCTAssertEqual(p?.pass, pass, "the \(k)th item played")
            XCTAssertEqual(p?.offset ?? -1, 0.25, accuracy: 1e-6, "the \(k)th item played")
            start += d[item] - overlap(item, played[k + 1].1)
        }
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

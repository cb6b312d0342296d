// Playlist order (docs/presets.md, Playlists): once, loop, repeat one, shuffle (every item once per
// round, a new order each round, never the same item twice across rounds).

import XCTest
@testable import MediaPub

final class PlaylistOrderTests: XCTestCase {
    private func walk(_ list: inout Playlist, steps: Int) -> [String] {
        var seen = [list.current]
        for _ in 0..<steps {
            guard list.advance() else { break }
            seen.append(list.current)
        }
        return seen
    }

    func testOncePlaysEachItemAndEnds() {
        var list = Playlist(items: ["a", "b", "c"], mode: .once)
        XCTAssertEqual(walk(&list, steps: 10), ["a", "b", "c"])
        XCTAssertNil(list.following())
        XCTAssertFalse(list.advance())
    }

    func testLoopStartsOver() {
        var list = Playlist(items: ["a", "b"], mode: .loop)
        XCTAssertEqual(walk(&list, steps: 4), ["a", "b", "a", "b", "a"])
    }

    func testRepeatOneStays() {
        var list = Playlist(source: "x", repeat: true)
        XCTAssertEqual(walk(&list, steps: 3), ["x", "x", "x", "x"])
        var once = Playlist(source: "x", repeat: false)
        XCTAssertEqual(walk(&once, steps: 3), ["x"])
    }

    func testShufflePlaysEveryItemOncePerRound() {
        let items = (0..<8).map { "item\($0)" }
        var list = Playlist(items: items, mode: .shuffle)
        let played = walk(&list, steps: 8 * 20 - 1)
        XCTAssertEqual(played.count, 8 * 20)
        var orders = Set<[String]>()
        for round in 0..<20 {
            let slice = Array(played[(round * 8)..<(round * 8 + 8)])
            XCTAssertEqual(Set(slice), Set(items), "round \(round) plays each item once")
            orders.insert(slice)
            if round > 0 { XCTAssertNotEqual(played[round * 8], played[round * 8 - 1], "no item twice in a row across rounds") }
        }
        XCTAssertGreaterThan(orders.count, 1, "a new order each round")
    }

    /// The next pass's order is drawn as a pass's last item becomes current: a copy that
    /// advances there (the next item opened ahead, to crossfade into it) lands where the list
    /// does, and never on the item just played.
    func testShuffleDrawsTheNextPassAsItsLastItemStarts() {
        var list = Playlist(items: (0..<6).map { "item\($0)" }, mode: .shuffle)
        for step in 0..<60 {
            var ahead = list
            XCTAssertTrue(ahead.advance())
            let played = list.current
            XCTAssertTrue(list.advance())
            XCTAssertEqual(ahead.current, list.current, "step \(step): the item opened ahead is the one that plays")
            XCTAssertNotEqual(list.current, played, "step \(step): never the same item twice in a row")
        }
    }

    func testShuffleSaysWhenItReshuffles() {
        var list = Playlist(items: ["a", "b"], mode: .shuffle)
        XCTAssertEqual(list.following()?.reshuffle, false)
        _ = list.advance()
        XCTAssertEqual(list.following()?.reshuffle, true, "the round is over")
    }

    func testBackAndJump() {
        var list = Playlist(items: ["a", "b", "c"], mode: .once)
        list.back()
        XCTAssertEqual(list.current, "c", "back from the first wraps around")
        list.jump(toItem: 1)
        XCTAssertEqual(list.current, "b")
        XCTAssertEqual(list.index, 1)
    }

    /// A programme's block: its order given (worked out from its date elsewhere), opened at the item on air.
    func testGivenOrderAndPosition() throws {
        var list = try XCTUnwrap(Playlist(items: ["a", "b", "c", "d"], mode: .once, order: [2, 0, 3, 1], position: 1))
        XCTAssertEqual(list.current, "a")
        XCTAssertEqual(list.index, 0)
        XCTAssertEqual(walk(&list, steps: 10), ["a", "d", "b"], "on in the given order, then over (once)")
        var loop = try XCTUnwrap(Playlist(items: ["a", "b", "c"], mode: .loop, order: [1, 2, 0], position: 2))
        XCTAssertEqual(walk(&loop, steps: 3), ["a", "b", "c", "a"], "a loop goes round the given order")
        var shuffled = try XCTUnwrap(Playlist(items: ["a", "b", "c"], mode: .shuffle, order: [2, 1, 0], position: 0))
        XCTAssertEqual(walk(&shuffled, steps: 2), ["c", "b", "a"], "a shuffled list plays the given order first")
        XCTAssertEqual(shuffled.following()?.reshuffle, true, "then reshuffles as usual")
    }

    func testGivenOrderMustBeAPermutation() {
        XCTAssertNil(Playlist(items: ["a", "b"], mode: .once, order: [0, 0], position: 0), "an index twice")
        XCTAssertNil(Playlist(items: ["a", "b"], mode: .once, order: [0], position: 0), "an index left out")
        XCTAssertNil(Playlist(items: ["a", "b"], mode: .once, order: [0, 2], position: 0), "an index past the items")
        XCTAssertNil(Playlist(items: ["a", "b"], mode: .once, order: [1, 0], position: 2), "a position past the order")
        XCTAssertNil(Playlist(items: ["a", "b"], mode: .once, order: [1, 0], position: -1), "a negative position")
        XCTAssertNil(Playlist(items: [], mode: .once, order: [], position: 0), "no items")
    }

    /// A shuffled list made with its later orders (a programme's block) plays those, pass
    /// after pass, never random ones: a restart computes the same.
    func testGivenLaterOrdersAreFollowedPassAfterPass() throws {
        let orders: @Sendable (Int) -> [Int] = { pass in pass % 2 == 1 ? [2, 0, 1] : [1, 2, 0] }
        var list = try XCTUnwrap(Playlist(items: ["a", "b", "c"], mode: .shuffle, order: [0, 1, 2], position: 1, pass: 0,
                                          passOrder: orders))
        var played = [list.index]
        for _ in 0..<7 {
            XCTAssertTrue(list.advance())
            played.append(list.index)
        }
        XCTAssertEqual(played, [1, 2, 2, 0, 1, 1, 2, 0])
        XCTAssertEqual(list.pass, 2)
    }
}

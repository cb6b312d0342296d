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
}

// How the current item goes on, as the player's deck keeps it (DeckCourse; docs/design.md,
// The player's deck): a segment left out and the item resumed after it, the new session's
// start no new track, the item gone; what follows the playlist; a reopening's lead; the hold
// of a live feed on air. Every event from every shape, and every pair of events, against
// a table of rules.

import XCTest
@testable import MediaPub

final class DeckCourseTests: XCTestCase {
    private struct Shape: Hashable {
        var resumeAtMs: Int?
        var continuing = false
        var followOn = false
        var held = false
        var pausedBefore = false
    }

    private enum Event: CaseIterable {
        /// Segments left out: the first at 4 s, a later one (its consequence) at 9 s.
        case segmentAt4, segmentAt9
        /// The item goes on in a new session; the current item goes; its session is ready.
        case goesOn, itemGone, started
        /// A cue or a programme's prime gives what follows; the playlist is over.
        case followOnGiven, playlistOver
        /// A live feed goes on air with the player playing, or paused; off air.
        case holdPlaying, holdPaused, holdEnds
        /// The player's state becomes playing, or paused, meanwhile.
        case nowPlaying, nowPaused
    }

    /// The rules, one per event: the shape after it, and what it answers (a new track; a
    /// follow-on given; the hold begun or the player resumed; the state the player takes).
    private func rule(_ e: Event, _ s: Shape) -> (then: Shape, answer: String) {
        var t = s
        switch e {
        case .segmentAt4: if t.resumeAtMs == nil { t.resumeAtMs = 4000 }; return (t, "")
        case .segmentAt9: if t.resumeAtMs == nil { t.resumeAtMs = 9000 }; return (t, "")
        case .goesOn: t.resumeAtMs = nil; t.continuing = true; return (t, "")
        case .itemGone: t.resumeAtMs = nil; t.continuing = false; return (t, "")
        case .started: t.continuing = false; return (t, s.continuing ? "same track" : "new track")
        case .followOnGiven: t.followOn = true; return (t, "")
        case .playlistOver: t.followOn = false; return (t, s.followOn ? "goes on" : "ends")
        case .holdPlaying, .holdPaused:
            guard !s.held else { return (s, "held already") }
            t.held = true; t.pausedBefore = e == .holdPaused
            return (t, "held")
        case .holdEnds:
            t.held = false; t.pausedBefore = false
            return (t, s.held && !s.pausedBefore ? "resumes" : "stays")
        case .nowPlaying:
            guard s.held else { return (s, "playing") }
            t.pausedBefore = false
            return (t, "paused")
        case .nowPaused: return (s, "paused")
        }
    }

    private let filler = Playlist(source: "filler.mp4", repeat: true)

    private func shape(_ c: DeckCourse) -> Shape {
        Shape(resumeAtMs: c.resumeAtMs, continuing: c.continuing, followOn: c.followOn != nil, held: c.hold != nil,
              pausedBefore: c.hold?.pausedBefore ?? false)
    }

    private func apply(_ e: Event, _ c: inout DeckCourse) -> String {
        switch e {
        case .segmentAt4: c.segmentLeftOut(resumeAtMs: 4000)
        case .segmentAt9: c.segmentLeftOut(resumeAtMs: 9000)
        case .goesOn: c.goesOn()
        case .itemGone: c.itemGone()
        case .started: return c.started() ? "new track" : "same track"
        case .followOnGiven: c.followOn = filler
        case .playlistOver:
            guard let then = c.takeFollowOn() else { return "ends" }
            XCTAssertEqual(then.current, "filler.mp4")
            return "goes on"
        case .holdPlaying: return c.holdBegins(phase: .playing) ? "held" : "held already"
        case .holdPaused: return c.holdBegins(phase: .paused) ? "held" : "held already"
        case .holdEnds: return c.holdEnds() ? "resumes" : "stays"
        case .nowPlaying: return c.held(.playing) == .playing ? "playing" : "paused"
        case .nowPaused: return c.held(.paused) == .paused ? "paused" : "playing"
        }
        return ""
    }

    /// Every shape reached from a new course by events, with the events that reach it.
    private func reachable() -> [(Shape, [Event])] {
        var found: [Shape: [Event]] = [Shape(): []]
        var queue = [Shape()]
        while !queue.isEmpty {
            let s = queue.removeFirst()
            for e in Event.allCases {
                let t = rule(e, s).then
                if found[t] == nil { found[t] = found[s]! + [e]; queue.append(t) }
            }
        }
        return found.map { ($0.key, $0.value) }.sorted { $0.1.count < $1.1.count }
    }

    private func step(_ e: Event, _ c: inout DeckCourse, _ label: @autoclosure () -> String) {
        let expected = rule(e, shape(c))
        let answer = apply(e, &c)
        XCTAssertEqual(shape(c), expected.then, "\(label()): shape")
        XCTAssertEqual(answer, expected.answer, "\(label()): answer")
    }

    func testEachEventFromEachShape() {
        let shapes = reachable()
        // resume (none, 4 s, 9 s) × continuing × follow-on × hold (none, held playing, held paused before)
        XCTAssertEqual(shapes.count, 3 * 2 * 2 * 3)
        for (s, path) in shapes {
            for e in Event.allCases {
                var c = DeckCourse()
                for p in path { _ = apply(p, &c) }
                XCTAssertEqual(shape(c), s)
                step(e, &c, "\(s), \(e)")
            }
        }
    }

    func testEveryPairOfEventsFromEveryShape() {
        var pairs = 0
        let shapes = reachable()
        for (s, path) in shapes {
            for first in Event.allCases {
                for second in Event.allCases {
                    var c = DeckCourse()
                    for p in path { _ = apply(p, &c) }
                    step(first, &c, "\(s), \(first)")
                    step(second, &c, "\(s), \(first), \(second)")
                    pairs += 1
                }
            }
        }
        print("deck course: \(pairs) pairs of events checked")
        XCTAssertEqual(pairs, shapes.count * Event.allCases.count * Event.allCases.count)
    }

    /// A reopening's lead is what the last one took, at most 1 s, never negative.
    func testAReopeningsLeadIsWhatTheLastTookUpToOneSecond() {
        var c = DeckCourse()
        XCTAssertEqual(c.reopenLead, 0)
        c.reopened(took: 0.36)
        XCTAssertEqual(c.reopenLead, 0.36)
        c.reopened(took: 4)
        XCTAssertEqual(c.reopenLead, 1)
        c.reopened(took: -1)
        XCTAssertEqual(c.reopenLead, 0)
    }
}

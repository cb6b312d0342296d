// The cue the player's deck keeps (DeckCue; docs/design.md, Switching on the frame; The
// player's deck): asked, opened, ready, committed (on its tick or at the item's end),
// landed, called off; every event from every shape it can be in, and every pair of events
// from every shape, against a table of rules; a late cue's landing tick; its outcomes.

import XCTest
@testable import MediaPub

final class DeckCueTests: XCTestCase {
    /// A session, told apart by identity.
    private final class Session: Sendable {}
    private typealias Cue = DeckCue<Session>
    /// The tick cues are for.
    private let tick: UInt64 = 100

    /// What the cue on its way is, as the events see it.
    private struct Shape: Hashable, CustomStringConvertible {
        var pending = false, opened = false, ready = false, committed = false, atItemEnd = false
        var description: String {
            pending ? "cue(\(opened ? "opened" : "asked")\(ready ? ", ready" : "")\(committed ? ", committed" : "")\(atItemEnd ? ", at item end" : ""))" : "none"
        }
    }

    private enum Event: CaseIterable {
        /// A new cue (a later one replaces the one on its way).
        case ask
        /// A session built for the last ticket, or for the one before it.
        case openedLast, openedEarlier
        /// The cue's session has its first picture and sound (before its tick), or another session has.
        case readyPending, readyOther
        /// `commitCue`, `commitCueAtItemEnd` for the last ticket; `commitCue` for the one before.
        case commit, commitAtItemEnd, commitEarlier
        /// The current item ends.
        case itemEnd
        /// The tick before the cue's, and the cue's.
        case tickBefore, tickDue
        /// Called off (`cancelCue`, `stop`) or failed.
        case cancel
    }

    /// The rules, one per event: from a shape, the shape after it and whether the cue on its
    /// way left the deck (landed or dropped: returned to the player).
    private func rule(_ e: Event, _ s: Shape) -> (then: Shape, leaves: Bool) {
        let none = Shape()
        switch e {
        case .ask: return (Shape(pending: true), s.pending)
        case .openedLast: return (s.pending ? Shape(pending: true, opened: true, ready: s.ready, committed: s.committed, atItemEnd: s.atItemEnd) : s, false)
        case .openedEarlier, .readyOther, .commitEarlier, .tickBefore: return (s, false)
        case .readyPending:
            guard s.opened else { return (s, false) }
            var t = s; t.ready = true; return (t, false)
        case .commit:
            guard s.pending else { return (s, false) }
            var t = s; t.committed = true; return (t, false)
        case .commitAtItemEnd:
            guard s.pending else { return (s, false) }
            var t = s; t.atItemEnd = true; return (t, false)
        case .itemEnd: return s.atItemEnd && s.ready ? (none, true) : (s, false)
        case .tickDue: return s.committed && s.ready ? (none, true) : (s, false)
        case .cancel: return (none, s.pending)
        }
    }

    private func list(_ source: String) -> Playlist { Playlist(source: source, repeat: false) }

    private func shape(_ c: Cue) -> Shape {
        guard let p = c.pending else { return Shape() }
        return Shape(pending: true, opened: p.session != nil, ready: p.ready, committed: p.committed, atItemEnd: p.atItemEnd)
    }

    /// Applies `event`; returns the ticket of the cue that left the deck.
    private func apply(_ event: Event, _ c: inout Cue) -> Int? {
        switch event {
        case .ask: return c.ask(list("c\(c.asked + 1)"), then: nil, tick: tick, onSettled: nil).replaced?.ticket
        case .openedLast: _ = c.opened(Session(), ticket: c.asked)
        case .openedEarlier: _ = c.opened(Session(), ticket: c.asked - 1)
        case .readyPending: c.ready(c.pending?.session ?? Session(), nextTick: tick - 10, silent: false, fadeTicks: 3)
        case .readyOther: c.ready(Session(), nextTick: tick - 10, silent: false, fadeTicks: 3)
        case .commit: _ = c.commit(c.asked)
        case .commitAtItemEnd: c.commitAtItemEnd(c.asked)
        case .commitEarlier: XCTAssertFalse(c.commit(c.asked - 1), "only the cue on its way is committed")
        case .itemEnd: return c.landAtItemEnd()?.ticket
        case .tickBefore: return c.landIfDue(at: tick - 1)?.ticket
        case .tickDue: return c.landIfDue(at: tick)?.ticket
        case .cancel: return c.drop(.cancelled("cancelled"))?.ticket
        }
        return nil
    }

    /// Every shape a cue reaches from none by events, with the events that reach it.
    private func reachable() -> [(Shape, [Event])] {
        var found: [Shape: [Event]] = [Shape(): []]
        var queue: [Shape] = [Shape()]
        while let s = queue.first {
            queue.removeFirst()
            for e in Event.allCases {
                let t = rule(e, s).then
                if found[t] == nil { found[t] = found[s]! + [e]; queue.append(t) }
            }
        }
        return found.map { ($0.key, $0.value) }.sorted { $0.1.count < $1.1.count }
    }

    private func cue(reaching path: [Event]) -> Cue {
        var c = Cue()
        _ = c.ask(list("earlier"), then: nil, tick: tick, onSettled: nil)  // a ticket before the first
        _ = c.drop(.cancelled("earlier"))
        for e in path { _ = apply(e, &c) }
        return c
    }

    /// One step: the rule's shape, what left the deck, tickets, outcomes and what was settled.
    private func step(_ event: Event, _ c: inout Cue, _ label: @autoclosure () -> String) {
        let before = shape(c)
        let expected = rule(event, before)
        let (asked, pendingTicket, settled) = (c.asked, c.pending?.ticket, c.settled.count)
        let left = apply(event, &c)
        XCTAssertEqual(shape(c), expected.then, "\(label()): shape from \(before)")
        XCTAssertEqual(left, expected.leaves ? pendingTicket : nil, "\(label()): what left the deck")
        XCTAssertEqual(c.asked, asked + (event == .ask ? 1 : 0), "\(label()): tickets")
        let dropped = expected.leaves && (event == .ask || event == .cancel)
        XCTAssertEqual(c.settled.count, min(Cue.settledKept, settled + (dropped ? 1 : 0)), "\(label()): settled")
        if dropped, let t = pendingTicket {
            let why = event == .ask ? "replaced by cue \(c.asked)" : "cancelled"
            XCTAssertEqual(c.outcome(of: t), .cancelled(why), "\(label()): the dropped cue's outcome")
        }
        if let p = c.pending {
            XCTAssertEqual(c.outcome(of: p.ticket), p.committed ? .waiting : p.ready ? .ready : .preparing, label())
            XCTAssertEqual(c.preparing(p.ticket), !p.ready, label())
            XCTAssertEqual(p.landsAt, tick, "\(label()): ready before its tick, it lands on its tick")
        }
    }

    func testEachEventFromEachShape() {
        let shapes = reachable()
        XCTAssertEqual(shapes.count, 1 + 3 * 4, "none; asked, opened or ready, each committed or not and at item end or not")
        for (s, path) in shapes {
            for event in Event.allCases {
                var c = cue(reaching: path)
                XCTAssertEqual(shape(c), s, "\(path) reaches \(s)")
                step(event, &c, "\(s), \(event)")
            }
        }
        print("deck cue: \(shapes.count) shapes × \(Event.allCases.count) events")
    }

    func testEveryPairOfEventsFromEveryShape() {
        var pairs = 0
        for (s, path) in reachable() {
            for first in Event.allCases {
                for second in Event.allCases {
                    var c = cue(reaching: path)
                    step(first, &c, "\(s), \(first)")
                    step(second, &c, "\(s), \(first), \(second)")
                    pairs += 1
                }
            }
        }
        print("deck cue: \(pairs) pairs of events checked")
        XCTAssertEqual(pairs, reachable().count * Event.allCases.count * Event.allCases.count)
    }

    /// Committed and ready only after its tick (realtime): it lands on the next tick when what
    /// plays is silent still, else once that has faded out again; not before.
    func testALateCueLandsOnceWhatPlaysHasFadedOut() {
        for silent in [true, false] {
            var c = Cue()
            let t = c.ask(list("late"), then: nil, tick: tick, onSettled: nil).ticket
            let s = Session()
            XCTAssertTrue(c.opened(s, ticket: t))
            XCTAssertTrue(c.commit(t))
            XCTAssertNil(c.landIfDue(at: tick), "not ready: it does not land")
            c.ready(s, nextTick: tick + 5, silent: silent, fadeTicks: 3)
            let landsAt = silent ? tick + 5 : tick + 8
            XCTAssertEqual(c.pending?.landsAt, landsAt, "silent: \(silent)")
            XCTAssertNil(c.landIfDue(at: landsAt - 1), "silent: \(silent): not before")
            XCTAssertEqual(c.landIfDue(at: landsAt)?.ticket, t, "silent: \(silent)")
        }
    }

    /// The last few outcomes are kept, by ticket; an unknown ticket says so.
    func testSettledOutcomesAreKeptForTheLastFew() {
        var c = Cue()
        for n in 1...(Cue.settledKept + 2) {
            let t = c.ask(list("c\(n)"), then: nil, tick: tick, onSettled: nil).ticket
            XCTAssertEqual(t, n)
        }
        _ = c.drop(.failed("c\(Cue.settledKept + 2): not found"))
        XCTAssertEqual(c.settled.count, Cue.settledKept)
        XCTAssertEqual(c.outcome(of: Cue.settledKept + 2), .failed("c\(Cue.settledKept + 2): not found"))
        XCTAssertEqual(c.outcome(of: 3), .cancelled("replaced by cue 4"))
        XCTAssertEqual(c.outcome(of: 1), .cancelled("no cue 1 on its way"), "the oldest is forgotten")
    }
}

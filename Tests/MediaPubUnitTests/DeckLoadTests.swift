// The load the player's deck keeps (DeckLoad; docs/design.md, The player's deck): a load,
// skip or reopening asked for, its session opened, ready or failed, given up; as a table
// of each event from each state, and every pair of events from every state.

import XCTest
@testable import MediaPub

final class DeckLoadTests: XCTestCase {
    /// A session, told apart by identity.
    private final class Session: Sendable {}
    private typealias Load = DeckLoad<Session>

    /// Where the load on its way is.
    private enum Shape: CaseIterable { case none, asked, opened }

    private enum Event: CaseIterable {
        /// A `load`, a skip (`next`), a reopening (seek): each gives up what was on its way.
        case askLoad, askSkip, askReposition
        /// A session built for the last ticket asked, or for the one before it (replaced since).
        case openedLast, openedEarlier
        /// The pending load's session ready, or another session (one given up) ready.
        case readyPending, readyOther
        /// The last ticket's open or session failed, or the one before it's.
        case failedLast, failedEarlier
        /// A later command (stop, a cue, an item's end) gives it up.
        case giveUp
    }

    /// One step: from a shape, an event gives a shape and returns (a load given up, ready or
    /// failed: its ticket relative to the last asked before the step, 0 being that one).
    private struct Row {
        let start: Shape
        let event: Event
        let then: Shape
        let returned: Int?
        /// The last ticket asked becomes the one refused.
        var refuses = false
    }

    private let table: [Row] = [
        Row(start: .none, event: .askLoad, then: .asked, returned: nil),
        Row(start: .none, event: .askSkip, then: .asked, returned: nil),
        Row(start: .none, event: .askReposition, then: .asked, returned: nil),
        Row(start: .none, event: .openedLast, then: .none, returned: nil),
        Row(start: .none, event: .openedEarlier, then: .none, returned: nil),
        Row(start: .none, event: .readyPending, then: .none, returned: nil),
        Row(start: .none, event: .readyOther, then: .none, returned: nil),
        Row(start: .none, event: .failedLast, then: .none, returned: nil),
        Row(start: .none, event: .failedEarlier, then: .none, returned: nil),
        Row(start: .none, event: .giveUp, then: .none, returned: nil),

        Row(start: .asked, event: .askLoad, then: .asked, returned: 0),
        Row(start: .asked, event: .askSkip, then: .asked, returned: 0),
        Row(start: .asked, event: .askReposition, then: .asked, returned: 0),
        Row(start: .asked, event: .openedLast, then: .opened, returned: nil),
        Row(start: .asked, event: .openedEarlier, then: .asked, returned: nil),
        Row(start: .asked, event: .readyPending, then: .asked, returned: nil),
        Row(start: .asked, event: .readyOther, then: .asked, returned: nil),
        Row(start: .asked, event: .failedLast, then: .none, returned: 0, refuses: true),
        Row(start: .asked, event: .failedEarlier, then: .asked, returned: nil),
        Row(start: .asked, event: .giveUp, then: .none, returned: 0),

        Row(start: .opened, event: .askLoad, then: .asked, returned: 0),
        Row(start: .opened, event: .askSkip, then: .asked, returned: 0),
        Row(start: .opened, event: .askReposition, then: .asked, returned: 0),
        Row(start: .opened, event: .openedLast, then: .opened, returned: nil),
        Row(start: .opened, event: .openedEarlier, then: .opened, returned: nil),
        Row(start: .opened, event: .readyPending, then: .none, returned: 0),
        Row(start: .opened, event: .readyOther, then: .opened, returned: nil),
        Row(start: .opened, event: .failedLast, then: .none, returned: 0, refuses: true),
        Row(start: .opened, event: .failedEarlier, then: .opened, returned: nil),
        Row(start: .opened, event: .giveUp, then: .none, returned: 0),
    ]

    private func shape(_ l: Load) -> Shape {
        guard let p = l.pending else { return .none }
        return p.session == nil ? .asked : .opened
    }

    private func list(_ source: String) -> Playlist { Playlist(source: source, repeat: false) }

    /// A load from `shape` (tickets asked before it: `earlier`, a refused one among them).
    private func load(_ shape: Shape, earlier: Int = 0) -> Load {
        var l = Load()
        for t in 0..<earlier {
            _ = l.ask(list("e\(t)"), memoryData: nil, kind: .load, startAt: 0, atTick: 0)
            _ = l.failed(ticket: l.asked, why: "e\(t) refused")
        }
        if shape != .none { _ = l.ask(list("a"), memoryData: nil, kind: .load, startAt: 0, atTick: 0) }
        if shape == .opened { XCTAssertTrue(l.opened(Session(), ticket: l.asked)) }
        return l
    }

    /// Applies `event`; returns the ticket of the load it returned.
    private func apply(_ event: Event, _ l: inout Load) -> Int? {
        switch event {
        case .askLoad: return l.ask(list("l"), memoryData: nil, kind: .load, startAt: 0, atTick: 7).givenUp?.ticket
        case .askSkip: return l.ask(list("s"), memoryData: nil, kind: .skip, startAt: 0, atTick: 7).givenUp?.ticket
        case .askReposition: return l.ask(list("r"), memoryData: nil, kind: .reposition, startAt: 3, atTick: 7).givenUp?.ticket
        case .openedLast: _ = l.opened(Session(), ticket: l.asked); return nil
        case .openedEarlier: _ = l.opened(Session(), ticket: l.asked - 1); return nil
        case .readyPending: return l.ready(l.pending?.session ?? Session())?.ticket
        case .readyOther: return l.ready(Session())?.ticket
        case .failedLast: return l.failed(ticket: l.asked, why: "last refused")?.ticket
        case .failedEarlier: return l.failed(ticket: l.asked - 1, why: "earlier refused")?.ticket
        case .giveUp: return l.giveUp()?.ticket
        }
    }

    /// Checks one step against its row, and what the deck keeps besides: tickets only grow,
    /// the ticket asked is pending, refused or done, a refusal is only ever a failed pending one.
    private func step(_ event: Event, _ l: inout Load, _ label: String) {
        guard let r = table.first(where: { $0.start == shape(l) && $0.event == event }) else {
            return XCTFail("\(label): no row for \(shape(l)), \(event)")
        }
        let (asked, refused, pendingKind) = (l.asked, l.refused, l.pending?.kind)
        let returned = apply(event, &l)
        XCTAssertEqual(shape(l), r.then, "\(label): shape")
        XCTAssertEqual(returned, r.returned.map { asked - $0 }, "\(label): returned")
        let asks = [.askLoad, .askSkip, .askReposition].contains(event)
        XCTAssertEqual(l.asked, asked + (asks ? 1 : 0), "\(label): tickets")
        XCTAssertEqual(l.refused, r.refuses ? DeckLoad<Session>.Refusal(ticket: asked, why: "last refused") : refused,
                       "\(label): refused")
        if asks {
            XCTAssertEqual(l.pending?.ticket, l.asked, "\(label): the new one is on its way")
            XCTAssertEqual(l.pending?.askedAtTick, 7)
            XCTAssertEqual(l.skipping?.current, event == .askSkip ? "s" : nil, "\(label): a skip moves from where it goes")
        } else if l.pending != nil {
            XCTAssertEqual(l.pending?.kind, pendingKind, "\(label): what it becomes is kept")
        }
        let outcome = l.outcome(ticket: l.asked, phase: .playing)
        if l.pending != nil {
            XCTAssertEqual(outcome, .loading, label)
        } else if r.refuses {
            XCTAssertEqual(outcome, .failed("last refused"), label)
        } else if l.asked > 0, l.refused?.ticket != l.asked {
            XCTAssertEqual(outcome, .done(.playing), label)
        }
        if l.asked > 1 {
            XCTAssertNotEqual(l.outcome(ticket: l.asked - 1, phase: .paused), .loading, "\(label): one on its way at a time")
        }
    }

    func testEachEventFromEachShape() {
        XCTAssertEqual(table.count, Shape.allCases.count * Event.allCases.count, "the table covers every shape and event")
        for start in Shape.allCases {
            for earlier in [0, 2] {
                for event in Event.allCases {
                    var l = load(start, earlier: earlier)
                    step(event, &l, "\(start) (\(earlier) earlier), \(event)")
                }
            }
        }
    }

    func testEveryPairOfEventsFromEveryShape() {
        var pairs = 0
        for start in Shape.allCases {
            for first in Event.allCases {
                for second in Event.allCases {
                    var l = load(start, earlier: 1)
                    step(first, &l, "\(start), \(first)")
                    step(second, &l, "\(start), \(first), \(second)")
                    pairs += 1
                }
            }
        }
        print("deck load: \(pairs) pairs of events checked")
        XCTAssertEqual(pairs, 3 * 10 * 10)
    }

    /// A session built for a load given up meanwhile is not taken (it is closed unused), nor
    /// one built for a ticket already refused; a refused load says why by its own ticket only.
    func testALateSessionIsNotTakenAndARefusalIsByTicket() {
        var l = Load()
        let first = l.ask(list("a"), memoryData: nil, kind: .load, startAt: 0, atTick: 0).ticket
        let second = l.ask(list("b"), memoryData: nil, kind: .load, startAt: 0, atTick: 0).ticket
        XCTAssertFalse(l.awaitsSession(ticket: first))
        XCTAssertFalse(l.opened(Session(), ticket: first))
        XCTAssertNotNil(l.failed(ticket: second, why: "b: not found"))
        XCTAssertFalse(l.opened(Session(), ticket: second))
        XCTAssertEqual(l.outcome(ticket: second, phase: .playing), .failed("b: not found"))
        XCTAssertEqual(l.outcome(ticket: first, phase: .playing), .done(.playing))
    }
}

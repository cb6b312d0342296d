// The player's deck (docs/design.md, The player's deck): when the next item is opened ahead,
// when a crossfade to it begins, and when a run as fast as possible waits for it, as a table
// of transitions and events, each single step and every pair of events from every transition.

import XCTest
@testable import MediaPub

final class DeckTests: XCTestCase {
    /// Two items, told apart by identity.
    private final class Item {}
    private let a = Item(), b = Item()
    private var idA: ObjectIdentifier { ObjectIdentifier(a) }
    private var idB: ObjectIdentifier { ObjectIdentifier(b) }
    private let rate = 48000

    /// What a tick finds: the current item and its candidate (a 2 s crossfade, items of 60 s).
    private enum Event: CaseIterable, CustomStringConvertible {
        case far, lead, dueNone, dueOpening, dueUnready, dueReady, noCandidate, otherItem, noItem

        var description: String { "\(self.self)" }
    }

    private func input(_ e: Event) -> (ObjectIdentifier?, Deck.Candidate?) {
        func candidate(_ item: ObjectIdentifier, _ remaining: Double, _ next: Deck.Next) -> Deck.Candidate {
            Deck.Candidate(item: item, fadeSetting: 2, remaining: remaining, lengthMs: 60_000, nextLengthMs: 60_000, next: next)
        }
        switch e {
        case .far: return (idA, candidate(idA, 30, .none))
        case .lead: return (idA, candidate(idA, 11, .none))
        case .dueNone: return (idA, candidate(idA, 1.5, .none))
        case .dueOpening: return (idA, candidate(idA, 1.5, .opening))
        case .dueUnready: return (idA, candidate(idA, 1.5, .unready))
        case .dueReady: return (idA, candidate(idA, 1.5, .ready))
        case .noCandidate: return (idA, nil)
        case .otherItem: return (idB, candidate(idB, 30, .none))
        case .noItem: return (nil, nil)
        }
    }

    private enum Start: CaseIterable { case none, preparing, late }

    private func deck(_ start: Start) -> Deck {
        var d = Deck(sampleRate: rate)
        switch start {
        case .none: break
        case .preparing: _ = d.tick(current: idA, input(.lead).1)
        case .late: _ = d.tick(current: idA, input(.dueUnready).1)
        }
        return d
    }

    private func transition(_ start: Start) -> Deck.Transition {
        switch start {
        case .none: .none
        case .preparing: .preparingNext(of: idA)
        case .late: .nextLate(of: idA)
        }
    }

    /// One step: from a transition, an event gives a transition, effects, and whether a run as
    /// fast as possible waits for the next item before that tick.
    private struct Row {
        let start: Start
        let event: Event
        let then: Deck.Transition
        let effects: [Deck.Effect]
        let awaits: Bool
    }

    private var table: [Row] {
        let fade = [Deck.Effect.beginCrossfade(frames: Int(1.5 * Double(rate)))]
        let p = Deck.Transition.preparingNext(of: idA), late = Deck.Transition.nextLate(of: idA)
        return [
            Row(start: .none, event: .far, then: .none, effects: [], awaits: false),
            Row(start: .none, event: .lead, then: p, effects: [.openNext], awaits: false),
            Row(start: .none, event: .dueNone, then: p, effects: [.openNext], awaits: false),
            Row(start: .none, event: .dueOpening, then: late, effects: [.openNext], awaits: true),
            Row(start: .none, event: .dueUnready, then: late, effects: [.openNext], awaits: true),
            Row(start: .none, event: .dueReady, then: .none, effects: [.openNext] + fade, awaits: false),
            Row(start: .none, event: .noCandidate, then: .none, effects: [], awaits: false),
            Row(start: .none, event: .otherItem, then: .none, effects: [], awaits: false),
            Row(start: .none, event: .noItem, then: .none, effects: [], awaits: false),

            Row(start: .preparing, event: .far, then: p, effects: [], awaits: false),
            Row(start: .preparing, event: .lead, then: p, effects: [], awaits: false),
            Row(start: .preparing, event: .dueNone, then: p, effects: [], awaits: false),
            Row(start: .preparing, event: .dueOpening, then: late, effects: [], awaits: true),
            Row(start: .preparing, event: .dueUnready, then: late, effects: [], awaits: true),
            Row(start: .preparing, event: .dueReady, then: .none, effects: fade, awaits: false),
            Row(start: .preparing, event: .noCandidate, then: p, effects: [], awaits: false),
            Row(start: .preparing, event: .otherItem, then: .none, effects: [], awaits: false),
            Row(start: .preparing, event: .noItem, then: .none, effects: [], awaits: false),

            Row(start: .late, event: .far, then: late, effects: [], awaits: false),
            Row(start: .late, event: .lead, then: late, effects: [], awaits: false),
            Row(start: .late, event: .dueNone, then: late, effects: [], awaits: false),
            Row(start: .late, event: .dueOpening, then: late, effects: [], awaits: false),
            Row(start: .late, event: .dueUnready, then: late, effects: [], awaits: false),
            Row(start: .late, event: .dueReady, then: .none, effects: fade, awaits: false),
            Row(start: .late, event: .noCandidate, then: late, effects: [], awaits: false),
            Row(start: .late, event: .otherItem, then: .none, effects: [], awaits: false),
            Row(start: .late, event: .noItem, then: .none, effects: [], awaits: false),
        ]
    }

    private func row(_ start: Deck.Transition, _ event: Event) -> Row? {
        table.first { transition($0.start) == start && $0.event == event }
    }

    func testEachEventFromEachTransition() {
        XCTAssertEqual(table.count, Start.allCases.count * Event.allCases.count, "the table covers every transition and event")
        for r in table {
            var d = deck(r.start)
            XCTAssertEqual(d.transition, transition(r.start))
            let (current, candidate) = input(r.event)
            XCTAssertEqual(d.awaitsNext(current: current, candidate), r.awaits, "\(r.start), \(r.event): waits")
            XCTAssertEqual(d.tick(current: current, candidate), r.effects, "\(r.start), \(r.event): effects")
            XCTAssertEqual(d.transition, r.then, "\(r.start), \(r.event): transition")
        }
    }

    /// Every pair of events from every transition goes as the table's two steps say (the deck
    /// holds nothing the transition does not say), and keeps its rules: the next item opened
    /// once per item, a fade begun only with the next item ready, no wait once it was late.
    func testEveryPairOfEventsFromEveryTransition() {
        var pairs = 0
        for start in Start.allCases {
            for first in Event.allCases {
                for second in Event.allCases {
                    var d = deck(start)
                    var effects: [Deck.Effect] = []
                    for event in [first, second] {
                        let (current, candidate) = input(event)
                        guard let expected = row(d.transition, event) else {
                            return XCTFail("\(start), \(first), \(second): no row for \(d.transition)")
                        }
                        XCTAssertEqual(d.awaitsNext(current: current, candidate), expected.awaits, "\(start), \(first), \(second)")
                        if case .nextLate(let item) = d.transition, item == current {
                            XCTAssertFalse(d.awaitsNext(current: current, candidate), "no wait once late")
                        }
                        let step = d.tick(current: current, candidate)
                        XCTAssertEqual(step, expected.effects, "\(start), \(first), \(second) at \(event)")
                        XCTAssertEqual(d.transition, expected.then, "\(start), \(first), \(second) at \(event)")
                        if step.contains(where: { if case .beginCrossfade = $0 { true } else { false } }) {
                            XCTAssertEqual(candidate?.next, .ready, "a fade begins only with the next item ready")
                        }
                        // What the transition is about is the item current now, or nothing.
                        if let item = d.transition.item { XCTAssertEqual(item, current) }
                        effects += step
                    }
                    let sameItem = ![first, second].contains(.otherItem) && ![first, second].contains(.noItem)
                    let begun = effects.contains { $0 != .openNext }
                    if sameItem, !begun {
                        XCTAssertLessThanOrEqual(effects.filter { $0 == .openNext }.count, 1, "\(start), \(first), \(second): opened once")
                    }
                    pairs += 1
                }
            }
        }
        print("deck: \(pairs) pairs of events checked")
        XCTAssertEqual(pairs, 3 * 9 * 9)
    }

    /// The fade is the setting, at most half of either item; without a next item's length
    /// (as a run as fast as possible judges whether to wait), half of the current one's.
    func testTheFadeIsAtMostHalfOfEitherItem() {
        let d = Deck(sampleRate: rate)
        let c = Deck.Candidate(item: idA, fadeSetting: 4, remaining: 3, lengthMs: 5000, nextLengthMs: 3000, next: .unready)
        XCTAssertEqual(d.fadeSeconds(c), 1.5)
        XCTAssertEqual(d.fadeSeconds(c, withNext: false), 2.5)
        XCTAssertFalse(d.awaitsNext(current: idA, c), "3 s left: not within its 2.5 s fade yet")
        var e = Deck(sampleRate: rate)
        let due = Deck.Candidate(item: idA, fadeSetting: 4, remaining: 1.5, lengthMs: 5000, nextLengthMs: 3000, next: .ready)
        XCTAssertEqual(e.tick(current: idA, due), [.openNext, .beginCrossfade(frames: 72000)])
    }
}

import Foundation

/// Joining a block in progress (docs/presets.md, Schedule: joining in progress): from the
/// items' lengths, the block's mode and the time since its start, the item that is on air
/// and how far into it. Pure: the same inputs give the same answer, on any run.
public enum BlockCursor {
    /// Where a block is, `elapsed` seconds after its start.
    public struct Position: Equatable, Sendable {
        /// The item on air: its index in the block's items.
        public let item: Int
        /// The order the items play in during this pass (indices into the items), and the
        /// item's place in it.
        public let order: [Int]
        public let position: Int
        /// Which time through the list this is, from 0.
        public let pass: Int
        /// Seconds into the item.
        public let offset: TimeInterval
    }

    /// The item on air and the offset into it, `elapsed` seconds after the start of the block
    /// occurrence `occurrenceKey` (`ProgrammeEntry.occurrenceKey`), given each item's length in
    /// seconds (nil: not known). A single source is one item played `once` (or `repeatOne`).
    /// - `once` plays the list once: nil once it has all played (filler then);
    /// - `loop` plays it over and over; `repeatOne` plays the first item over and over;
    /// - `shuffle` plays it over and over, each pass in an order drawn from the occurrence key
    ///   and the pass (`order`), so that a restart finds the same order.
    /// An item whose length is not known ends the count: the block opens at its top when the
    /// time elapsed reaches it (what follows cannot be placed). Items of no length are passed over.
    public static func position(durations: [TimeInterval?], mode: PlaylistMode, occurrenceKey: String,
                                elapsed: TimeInterval) -> Position? {
        let n = durations.count
        guard n > 0 else { return nil }
        let t = elapsed.isFinite ? max(0, elapsed) : 0
        let lengths = durations.map { $0.map { $0.isFinite ? max(0, $0) : 0 } }
        if mode == .repeatOne {
            guard let d = lengths[0], d > 0 else { return Position(item: 0, order: [0], position: 0, pass: 0, offset: 0) }
            let pass = (t / d).rounded(.down)
            return Position(item: 0, order: [0], position: 0, pass: Int(min(pass, Double(Int32.max))), offset: t - pass * d)
        }
        var pass = 0
        var rest = t
        let cycle = lengths.reduce(0.0) { sum, d in d.map { sum + $0 } ?? .nan }
        if mode != .once, cycle.isFinite {
            guard cycle > 0 else { return Position(item: 0, order: order(count: n, mode: mode, occurrenceKey: occurrenceKey, pass: 0),
                                                   position: 0, pass: 0, offset: 0) }
            let p = (t / cycle).rounded(.down)
            pass = Int(min(p, Double(Int32.max)))
            rest = t - p * cycle
        }
        let order = order(count: n, mode: mode, occurrenceKey: occurrenceKey, pass: pass)
        for (place, item) in order.enumerated() {
            guard let d = lengths[item] else { return Position(item: item, order: order, position: place, pass: pass, offset: 0) }
            if rest < d { return Position(item: item, order: order, position: place, pass: pass, offset: rest) }
            rest -= d
        }
        // Only `once` runs out (or rounding at a pass's very end: the next pass's first item).
        guard mode != .once else { return nil }
        let next = self.order(count: n, mode: mode, occurrenceKey: occurrenceKey, pass: pass + 1)
        return Position(item: next[0], order: next, position: 0, pass: pass + 1, offset: 0)
    }

    /// The order of pass `pass` of a block's `count` items: as written, or for `shuffle` a
    /// permutation drawn by SplitMix64 seeded with the FNV-1a hash of `occurrenceKey#pass`,
    /// never starting with the item the pass before ended with, as a player's shuffle does (its
    /// first two are swapped then, which leaves its last, and so the next pass's rule, as drawn;
    /// two items keep the first pass's order).
    public static func order(count: Int, mode: PlaylistMode, occurrenceKey: String, pass: Int) -> [Int] {
        guard mode == .shuffle, count > 1 else { return Array(0..<max(0, count)) }
        let draw = { (p: Int) in shuffled(count, seed: fnv1a("\(occurrenceKey)#\(p)")) }
        guard count > 2 else { return draw(0) }
        var order = draw(pass)
        if pass > 0, order[0] == draw(pass - 1).last { order.swapAt(0, 1) }
        return order
    }

    private static func shuffled(_ count: Int, seed: UInt64) -> [Int] {
        var rng = SplitMix64(state: seed)
        var order = Array(0..<count)
        for i in stride(from: count - 1, to: 0, by: -1) {
            let j = Int(truncatingIfNeeded: rng.next().multipliedFullWidth(by: UInt64(i + 1)).high)
            order.swapAt(i, j)
        }
        return order
    }

    /// The 64-bit FNV-1a hash of a text's UTF-8 bytes (the same on every run, unlike `hashValue`).
    static func fnv1a(_ text: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in text.utf8 {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01b3
        }
        return h
    }
}

/// Sebastiano Vigna's SplitMix64: a small, fast generator whose whole state is its seed.
struct SplitMix64 {
    var state: UInt64

    mutating func next() -> UInt64 {
        state = state &+ 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}

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
    /// With `crossfade` (seconds), each item starts that long before the one before ends, as
    /// a player's playlist does (`MediaPlayer+Crossfade`): at most half of either item (of
    /// those whose length is known); the block's first item starts at its start, and an item
    /// is on air from its own start on (the one fading out under it is not). An item whose
    /// length is not known ends the count: the block opens at its top when the time elapsed
    /// reaches it (what follows cannot be placed). Items of no length are passed over.
    public static func position(durations: [TimeInterval?], mode: PlaylistMode, occurrenceKey: String,
                                elapsed: TimeInterval, crossfade: TimeInterval = 0) -> Position? {
        let n = durations.count
        guard n > 0 else { return nil }
        let t = elapsed.isFinite ? max(0, elapsed) : 0
        let lengths = durations.map { $0.map { $0.isFinite ? max(0, $0) : 0 } }
        let c = crossfade.isFinite ? max(0, crossfade) : 0
        /// The overlap of an item of length `a` into one of length `b`.
        func fade(_ a: TimeInterval?, _ b: TimeInterval?) -> TimeInterval {
            [a, b].compactMap { $0 }.reduce(c) { min($0, $1 / 2) }
        }
        if mode == .repeatOne {
            guard let d = lengths[0], d > 0 else { return Position(item: 0, order: [0], position: 0, pass: 0, offset: 0) }
            let period = d - fade(d, d)
            let pass = (t / period).rounded(.down)
            return Position(item: 0, order: [0], position: 0, pass: Int(min(pass, Double(Int32.max))), offset: t - pass * period)
        }
        let orderOf = { (pass: Int) in order(count: n, mode: mode, occurrenceKey: occurrenceKey, pass: pass) }
        /// The time from each item's start to the next one's in pass `pass` (nil: an item of unknown length).
        func spans(_ pass: Int, _ order: [Int]) -> [TimeInterval?] {
            let nextFirst = mode == .once ? nil : mode == .loop ? order[0] : orderOf(pass + 1)[0]
            return order.indices.map { place in
                guard let d = lengths[order[place]] else { return nil }
                let next = place + 1 < n ? order[place + 1] : nextFirst
                return d - (next.map { fade(d, lengths[$0]) } ?? 0)
            }
        }
        var pass = 0
        var rest = t
        if mode != .once, !lengths.contains(where: { $0 == nil }) {
            let total = lengths.reduce(0.0) { $0 + ($1 ?? 0) }
            guard total > 0 else { return Position(item: 0, order: orderOf(0), position: 0, pass: 0, offset: 0) }
            // Whole passes at once when every pass lasts the same: a loop, or fades that are all `c`.
            if mode == .loop || lengths.allSatisfy({ ($0 ?? 0) >= 2 * c }) {
                let cycle = spans(0, orderOf(0)).reduce(0.0) { $0 + ($1 ?? 0) }
                let p = (rest / cycle).rounded(.down)
                pass = Int(min(p, Double(Int32.max)))
                rest -= p * cycle
            } else {
                // A shuffle's passes differ (which items meet): walked one by one (each lasts at
                // least half the items' total), beyond `maxPasses` at the mean of those walked.
                var walked = 0.0
                while pass < maxPasses {
                    let length = spans(pass, orderOf(pass)).reduce(0.0) { $0 + ($1 ?? 0) }
                    if rest < length { break }
                    rest -= length
                    walked += length
                    pass += 1
                }
                if pass == maxPasses {
                    let p = (rest / (walked / Double(maxPasses))).rounded(.down)
                    pass = Int(min(Double(pass) + p, Double(Int32.max)))
                    rest = max(0, rest - p * walked / Double(maxPasses))
                }
            }
        }
        while true {
            let order = orderOf(pass)
            for (place, span) in spans(pass, order).enumerated() {
                guard let span else { return Position(item: order[place], order: order, position: place, pass: pass, offset: 0) }
                if rest < span { return Position(item: order[place], order: order, position: place, pass: pass, offset: rest) }
                rest -= span
            }
            // Only `once` runs out (or rounding at a pass's very end, or a shuffle's mean: the next pass).
            guard mode != .once, pass < Int(Int32.max) else { return nil }
            pass += 1
        }
    }

    /// How many of a shuffled block's passes of different lengths are walked, at most.
    static let maxPasses = 100_000

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

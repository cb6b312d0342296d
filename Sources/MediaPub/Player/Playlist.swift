import Foundation

/// The order a player walks its items in (docs/presets.md, Playlists: the modes, and a single
/// source with or without repeat).
struct Playlist {
    let items: [String]
    var mode: PlaylistMode
    /// Position in `order`.
    private(set) var position = 0
    private var order: [Int]
    /// A shuffled list's later orders, by pass through the list (a programme's block:
    /// drawn from its date, so that a restart finds the same); nil: random.
    private var passOrder: (@Sendable (Int) -> [Int])?
    /// Times through the list so far, from 0.
    private(set) var pass = 0
    /// How its items overlap (`MediaPlayer+Crossfade`); off for a single source or a load.
    var crossfade = CrossfadeConfig()

    init(items: [String], mode: PlaylistMode) {
        self.items = items
        self.mode = mode
        order = Array(items.indices)
        if mode == .shuffle { order.shuffle() }
    }

    /// The items in a given order (`order`: each index of `items` once), from
    /// `position` in that order: a programme's block, whose shuffled order is worked
    /// out from its date, opened at the item on air. nil when `order` is not such a
    /// permutation or `position` is outside it. A shuffled list reshuffles once the given
    /// order has played: with `passOrder(pass)` from `pass` on, else at random.
    init?(items: [String], mode: PlaylistMode, order: [Int], position: Int, pass: Int = 0,
          passOrder: (@Sendable (Int) -> [Int])? = nil) {
        guard !items.isEmpty, order.count == items.count, Set(order) == Set(items.indices),
              order.indices.contains(position) else { return nil }
        self.items = items
        self.mode = mode
        self.order = order
        self.position = position
        self.pass = pass
        self.passOrder = passOrder
    }

    /// A single source: `repeat` loops it, otherwise it plays once.
    init(source: String, repeat: Bool) {
        self.init(items: [source], mode: `repeat` ? .repeatOne : .once)
    }

    var index: Int { order[position] }
    var current: String { items[index] }

    /// What comes after the current item, without moving; nil at the end of a `once` list.
    func following() -> (position: Int, reshuffle: Bool)? {
        switch mode {
        case .repeatOne: return (position, false)
        case .once: return position + 1 < order.count ? (position + 1, false) : nil
        case .loop: return ((position + 1) % order.count, false)
        case .shuffle: return position + 1 < order.count ? (position + 1, false) : (0, true)
        }
    }

    /// The item `following()` names, when it is known without a reshuffle.
    var followingItem: String? { following().flatMap { $0.reshuffle ? nil : items[order[$0.position]] } }

    mutating func advance() -> Bool {
        guard let (next, reshuffle) = following() else { return false }
        if reshuffle {
            pass += 1
            if let drawn = passOrder?(pass), drawn.count == order.count, Set(drawn) == Set(order) {
                order = drawn
            } else {
                let last = order[position]
                order.shuffle()
                if order.count > 1, order[0] == last { order.swapAt(0, order.count - 1) }
            }
        }
        position = next
        return true
    }

    mutating func back() {
        position = (position - 1 + order.count) % order.count
    }

    mutating func jump(toItem index: Int) {
        if let p = order.firstIndex(of: index) { position = p }
    }
}

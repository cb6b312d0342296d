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
    /// A shuffled list's next order, drawn as the last item of a pass becomes current, so
    /// that the item after it is known ahead (opened beside it: gapless, or crossfading).
    private var nextOrder: [Int]?
    /// How its items overlap (`MediaPlayer+Crossfade`); off for a single source or a load.
    var crossfade = CrossfadeConfig()

    init(items: [String], mode: PlaylistMode) {
        self.items = items
        self.mode = mode
        order = Array(items.indices)
        if mode == .shuffle { order.shuffle() }
        drawAhead()
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
        drawAhead()
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

    /// The item after the current one is known without moving (a shuffled pass's next
    /// order is drawn ahead): a copy that advances lands where the list will.
    var followingIsDrawn: Bool { following().map { !$0.reshuffle || nextOrder != nil } ?? false }
    /// The item `following()` names, when it is known without a reshuffle.
    var followingItem: String? { following().flatMap { $0.reshuffle ? nil : items[order[$0.position]] } }

    mutating func advance() -> Bool {
        guard let (next, reshuffle) = following() else { return false }
        if reshuffle {
            pass += 1
            order = nextOrder ?? drawn(pass: pass)
            nextOrder = nil
        }
        position = next
        drawAhead()
        return true
    }

    mutating func back() {
        position = (position - 1 + order.count) % order.count
        drawAhead()
    }

    /// To `position` in the order (a position `following()` named).
    mutating func jump(toPosition position: Int) {
        if order.indices.contains(position) { self.position = position }
        drawAhead()
    }

    mutating func jump(toItem index: Int) {
        if let p = order.firstIndex(of: index) { position = p }
        drawAhead()
    }

    /// At a shuffled pass's last item, the next pass's order, if not drawn yet.
    private mutating func drawAhead() {
        guard mode == .shuffle, nextOrder == nil, position == order.count - 1 else { return }
        nextOrder = drawn(pass: pass + 1)
    }

    /// Pass `pass`'s order: `passOrder`'s, or at random, never starting with the item
    /// that ends the pass before (when there are two items or more).
    private func drawn(pass: Int) -> [Int] {
        if let given = passOrder?(pass), given.count == order.count, Set(given) == Set(order) { return given }
        let last = order[order.count - 1]
        var shuffled = order
        shuffled.shuffle()
        if shuffled.count > 1, shuffled[0] == last { shuffled.swapAt(0, shuffled.count - 1) }
        return shuffled
    }
}

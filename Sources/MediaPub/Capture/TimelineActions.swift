import Foundation

/// The actions waiting to run on the output timeline (`Capture.atOutputTime(_:key:_:)`), in tick order.
/// An action given a key replaces the one waiting under that key: a planner that plans again
/// (the programme's runner at each reload, docs/presets.md, Schedule) leaves one action per
/// key waiting, never one more per plan. A pure value, kept in the capture's state.
struct TimelineActions {
    private var waiting: [(tick: UInt64, key: String?, run: @Sendable () -> Void)] = []

    /// How many wait.
    var count: Int { waiting.count }

    /// `run` before tick `tick`; with a `key`, in place of what waits under it.
    mutating func add(tick: UInt64, key: String?, _ run: @escaping @Sendable () -> Void) {
        if let key { waiting.removeAll { $0.key == key } }
        // After those due at the same tick or before: actions run in the order given.
        let place = waiting.firstIndex { $0.tick > tick } ?? waiting.count
        waiting.insert((tick, key, run), at: place)
    }

    /// Those due at tick `n` or before, in order, taken out.
    mutating func takeDue(atOrBefore n: UInt64) -> [@Sendable () -> Void] {
        let due = waiting.prefix { $0.tick <= n }.count
        defer { waiting.removeFirst(due) }
        return waiting.prefix(due).map(\.run)
    }
}

/// Where a broadcast is in its life (`Broadcast`'s state). Each phase holds what
/// exists in it: the publisher from `.publisherReady` on, the capture (the timeline)
/// in `.running`; before the timeline, what it is to start with (`Pending`).
enum BroadcastPhase {
    /// What the timeline starts with, asked for before it exists.
    struct Pending {
        /// The publishing flag it starts with.
        var publishing: Bool
        /// A stop came: the timeline stops as soon as it starts.
        var stopRequested = false
        /// Actions to put on the timeline.
        var timelineActions: [(at: Double, key: String?, action: @Sendable (Broadcast) -> Void)] = []
    }

    /// Nothing made yet (the players may be loading).
    case preparing(Pending)
    /// The publisher is made and its outputs connect; the timeline is not made yet.
    case publisherReady(Publisher, Pending)
    /// The timeline runs (and, once it ends, the outputs finish).
    case running(Publisher, Capture)

    var publisher: Publisher? {
        switch self {
        case .preparing: nil
        case .publisherReady(let publisher, _), .running(let publisher, _): publisher
        }
    }

    var capture: Capture? {
        if case .running(_, let capture) = self { capture } else { nil }
    }

    /// Changes what the timeline will start with; nil once it runs (then `capture`).
    mutating func withPending(_ change: (inout Pending) -> Void) {
        switch self {
        case .preparing(var pending):
            change(&pending)
            self = .preparing(pending)
        case .publisherReady(let publisher, var pending):
            change(&pending)
            self = .publisherReady(publisher, pending)
        case .running:
            break
        }
    }
}

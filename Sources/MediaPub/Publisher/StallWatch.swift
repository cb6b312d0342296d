import Foundation

/// The stall watchdog's decision, as a value: a connection is stalled when its peer
/// (an SRT listener's acknowledgements, an RTMP server's TCP stack) has acknowledged
/// nothing for `limit` while we still hand data over and the output is publishing.
struct StallWatch: Equatable {
    /// `reconnect.stall`.
    let limit: TimeInterval
    /// When the peer last acknowledged something (or the watch last started over).
    private(set) var lastAck: MonotonicInstant

    init(limit: TimeInterval, now: MonotonicInstant = .now) {
        self.limit = limit
        lastAck = now
    }

    /// A new connection, or a first reading: the silence is counted from `now`.
    mutating func restart(at now: MonotonicInstant = .now) {
        lastAck = now
    }

    /// One reading (once a second). `acknowledged`: the peer acknowledged more than at
    /// the last reading; `sending`: more went out (or was produced) since then. True
    /// when the connection is stalled and is to be torn down and reconnected.
    mutating func observe(acknowledged: Bool, sending: Bool, publishing: Bool, at now: MonotonicInstant = .now) -> Bool {
        if acknowledged { lastAck = now }
        return publishing && !acknowledged && sending && now.timeIntervalSince(lastAck) >= limit
    }
}

import Foundation

/// An Icecast output's health (docs/presets.md, Icecast). shout2send logs in (HTTP
/// PUT/SOURCE with the password) at its first buffer and blocks while it does: a buffer
/// rendered is a login the server accepted. It is publishing once the server's TCP stack
/// has acknowledged some of the stream on that socket, still open both ways (a server
/// that answers the login and closes took nothing). From then on what it acknowledges of
/// the bytes the sink took, and the window it advertises, are its health, as for RTMP
/// (`ServerReads`): its application reading nothing for `reconnect.stall` while sound
/// goes out is a stall, though its kernel still acknowledges into its receive buffer. Also the deadline of a connect
/// under way (`ConnectDeadline`): no socket, or none of the stream acknowledged, for
/// `reconnect.stall`.
struct IcecastProbe: Equatable {
    /// One look at the link (Output+Icecast.swift reads it).
    struct Reading: Equatable {
        /// Buffers shout2send rendered on this connection (its `stats`' `rendered`).
        var rendered: UInt64
        /// The encoded bytes the sink took on this connection.
        var taken: Int
        /// Whether the connection's socket to the server was found.
        var socketFound: Bool
        /// What that socket holds that the server's TCP stack has not acknowledged.
        var unacknowledged = 0
        /// The receive window the server advertises on that socket (nil: not found, or
        /// the kernel does not tell it).
        var window: Int? = nil
    }

    /// What the server acknowledged on this connection (nil before a first reading).
    private(set) var acked: Int?
    /// The bytes handed to the output at the last reading (`produced`).
    private(set) var handedAtCheck: UInt64 = 0
    private(set) var stall: StallWatch
    /// Whether the server's application reads, from its window.
    private(set) var reads = ServerReads()
    /// The connect under way, stage by stage.
    private(set) var connect: ConnectDeadline

    init(limit: TimeInterval, now: MonotonicInstant = .now) {
        stall = StallWatch(limit: limit, now: now)
        connect = ConnectDeadline(limit: limit, now: now)
    }

    mutating func restart(at now: MonotonicInstant) {
        acked = nil
        reads = ServerReads()
        stall.restart(at: now)
        connect.restart(at: now)
    }

    /// Whether more was handed to the output (`handed`: all it was handed) since the last look.
    mutating func produced(_ handed: UInt64) -> Bool {
        defer { handedAtCheck = handed }
        return handed > handedAtCheck
    }

    /// What one reading tells: `overdue` (why the connect under way failed) while it is
    /// `connecting` and its stage made no progress for the limit; else acknowledged once
    /// the server's TCP stack acknowledged some of the stream (the login accepted, a
    /// buffer rendered, on a socket still open both ways: a server that says "200 OK" and
    /// closes took nothing), and stalled when its application read nothing (`ServerReads`)
    /// for the limit while more was `produced`.
    mutating func observe(_ reading: Reading, produced: Bool, connecting: Bool, publishing: Bool,
                          at now: MonotonicInstant) -> (verdict: LinkVerdict, overdue: String?) {
        let inStream = reading.rendered > 0 && reading.socketFound
        let sum = inStream ? max(0, reading.taken - reading.unacknowledged) : 0
        if connecting, sum == 0 {
            let stage: ConnectDeadline.Stage = reading.socketFound || reading.rendered > 0 ? .media : .tcp
            return (LinkVerdict(), connect.observe(stage, at: now) ? connect.failure : nil)
        }
        guard inStream else {
            // Its socket is gone: nothing more reaches the server.
            return (LinkVerdict(stalled: stall.observe(acknowledged: false, sending: produced, publishing: publishing, at: now)), nil)
        }
        let grew = sum > (acked ?? 0)
        if acked == nil { stall.restart(at: now) }   // a first reading
        acked = sum
        let read = reads.observe(window: reading.window, kernelAcknowledged: grew)
        return (LinkVerdict(acknowledged: true,
                            stalled: stall.observe(acknowledged: read, sending: produced, publishing: publishing, at: now)), nil)
    }
}

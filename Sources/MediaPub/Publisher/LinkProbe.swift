import Foundation

/// What one reading of a link tells its output: the peer took something since the
/// last reading, and whether the link is stalled (`StallWatch` decides).
struct LinkVerdict: Equatable {
    var acknowledged = false
    var stalled = false
}

/// An output's health signal, one kind per transport, as a value with no clock, no
/// socket and no element of its own: the output's watch (OutputWatch.swift) reads the
/// link and hands the reading over, the probe decides, and the output acts. What it
/// keeps is about the current connection (`restart` at each new one).
enum LinkProbe: Equatable {
    /// What the RTMP server acknowledged (RTMPProbe.swift).
    case rtmp(RTMPProbe)
    /// What the SRT listener we call acknowledged.
    case srtCaller(SRTCallerProbe)
    /// The viewers who called this SRT listener.
    case srtListener(SRTListenerProbe)
    /// What a recording's (or HLS output's) disk took.
    case disk(DiskProbe)
    /// Whether the Icecast server accepted the login and acknowledges the sound (IcecastProbe.swift).
    case icecast(IcecastProbe)

    init(target: OutputTarget, stall: TimeInterval, now: MonotonicInstant = .now) {
        switch target {
        case .rtmp: self = .rtmp(RTMPProbe(limit: stall, now: now))
        case .srt(let endpoint) where endpoint.isListener: self = .srtListener(SRTListenerProbe())
        case .srt: self = .srtCaller(SRTCallerProbe(limit: stall, now: now))
        case .file, .hls, .null: self = .disk(DiskProbe(limit: stall, now: now))
        case .icecast: self = .icecast(IcecastProbe(limit: stall, now: now))
        }
    }

    /// A new connection: counted from zero, its silence from `now`.
    mutating func restart(at now: MonotonicInstant) {
        switch self {
        case .rtmp(var p): p.restart(at: now); self = .rtmp(p)
        case .srtCaller(var p): p.restart(at: now); self = .srtCaller(p)
        case .srtListener(var p): p.restart(); self = .srtListener(p)
        case .disk(var p): p.restart(at: now); self = .disk(p)
        case .icecast(var p): p.restart(at: now); self = .icecast(p)
        }
    }

    /// `reconnect.stall`.
    var stallLimit: TimeInterval {
        switch self {
        case .rtmp(let p): return p.stall.limit
        case .srtCaller(let p): return p.stall.limit
        case .srtListener: return 0
        case .disk(let p): return p.stall.limit
        case .icecast(let p): return p.stall.limit
        }
    }

    /// An RTMP or Icecast server's acknowledged bytes on the current connection (nil for other outputs or none yet).
    var bytesAcked: Int? {
        switch self {
        case .rtmp(let p): return p.acked
        case .icecast(let p): return p.acked
        default: return nil
        }
    }

    /// An SRT caller's last statistics, for status.
    var srtStats: SRTStats? {
        if case .srtCaller(let p) = self { return p.stats }
        return nil
    }

    /// An SRT listener's callers now, for status.
    var callers: Int? {
        if case .srtListener(let p) = self { return p.callers }
        return nil
    }

    /// Runs `body` on the RTMP probe (nil for other outputs).
    @discardableResult
    mutating func rtmp<R>(_ body: (inout RTMPProbe) -> R) -> R? {
        guard case .rtmp(var p) = self else { return nil }
        defer { self = .rtmp(p) }
        return body(&p)
    }

    /// Runs `body` on the SRT caller's probe (nil for other outputs).
    @discardableResult
    mutating func srtCaller<R>(_ body: (inout SRTCallerProbe) -> R) -> R? {
        guard case .srtCaller(var p) = self else { return nil }
        defer { self = .srtCaller(p) }
        return body(&p)
    }

    /// Runs `body` on the SRT listener's probe (nil for other outputs).
    @discardableResult
    mutating func srtListener<R>(_ body: (inout SRTListenerProbe) -> R) -> R? {
        guard case .srtListener(var p) = self else { return nil }
        defer { self = .srtListener(p) }
        return body(&p)
    }

    /// Runs `body` on the Icecast probe (nil for other outputs).
    @discardableResult
    mutating func icecast<R>(_ body: (inout IcecastProbe) -> R) -> R? {
        guard case .icecast(var p) = self else { return nil }
        defer { self = .icecast(p) }
        return body(&p)
    }

    /// Runs `body` on the disk's probe (nil for network outputs).
    @discardableResult
    mutating func disk<R>(_ body: (inout DiskProbe) -> R) -> R? {
        guard case .disk(var p) = self else { return nil }
        defer { self = .disk(p) }
        return body(&p)
    }
}

/// An SRT caller's health: the listener acknowledges the packets it gets (srtsink's
/// statistics, read once a second). Whether data goes out is told by what the output
/// was handed, not by libsrt: once the peer is gone libsrt sends nothing more and its
/// counts stand still, or the socket has no statistics at all; neither is a link at rest.
struct SRTCallerProbe: Equatable {
    /// The last statistics of the current connection (nil before its first).
    private(set) var stats: SRTStats?
    /// The bytes handed to the output at the last reading.
    private(set) var handedAtCheck: UInt64 = 0
    private(set) var stall: StallWatch

    init(limit: TimeInterval, now: MonotonicInstant = .now) {
        stall = StallWatch(limit: limit, now: now)
    }

    mutating func restart(at now: MonotonicInstant) {
        stats = nil   // a new socket counts from zero
        stall.restart(at: now)
    }

    /// One reading of srtsink's statistics (nil: it has none), with all the output was
    /// `handed` so far: acknowledged when the peer acknowledged more packets; stalled when
    /// it acknowledged none for the limit while more was handed.
    mutating func observe(_ reading: SRTStats?, handed: UInt64, publishing: Bool, at now: MonotonicInstant) -> LinkVerdict {
        let sending = handed > handedAtCheck
        handedAtCheck = handed
        var acked = false
        if let reading {
            acked = reading.acksReceived > (stats?.acksReceived ?? 0)
            stats = reading
        }
        let stalled = stall.observe(acknowledged: acked, sending: sending, publishing: publishing, at: now)
        return LinkVerdict(acknowledged: acked, stalled: stalled)
    }
}

/// An SRT listener's health: the viewers that called it (srtsink tells of each that
/// comes and goes). No viewer is no stall: a listener waits for them.
struct SRTListenerProbe: Equatable {
    /// The callers connected to the current connection.
    private(set) var callers = 0

    mutating func restart() {
        callers = 0
    }

    /// A caller came (`added`) or went: acknowledged while one is there.
    mutating func observe(callerAdded added: Bool) -> LinkVerdict {
        callers = added ? callers + 1 : max(0, callers - 1)
        return LinkVerdict(acknowledged: callers > 0, stalled: false)
    }
}

/// A recording's (or HLS output's) disk in a paced run: it takes what is pushed, or
/// nothing waits for it.
struct DiskProbe: Equatable {
    /// The bytes its disk's side had taken at the last reading.
    private(set) var taken: UInt64 = 0
    private(set) var stall: StallWatch

    init(limit: TimeInterval, now: MonotonicInstant = .now) {
        stall = StallWatch(limit: limit, now: now)
    }

    mutating func restart(at now: MonotonicInstant) {
        stall.restart(at: now)
    }

    /// One reading of the connection's flow (`pushed`, `taken`): acknowledged when the
    /// disk took more, or nothing waits.
    mutating func observe(pushed: UInt64, taken: UInt64, publishing: Bool, at now: MonotonicInstant) -> LinkVerdict {
        let took = taken > self.taken || taken >= pushed
        self.taken = taken
        return LinkVerdict(acknowledged: took, stalled: stall.observe(acknowledged: took, sending: true, publishing: publishing, at: now))
    }
}

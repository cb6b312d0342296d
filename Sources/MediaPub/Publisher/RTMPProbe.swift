import Foundation

/// An RTMP output's health: whether the server's application reads what rtmp2sink
/// writes, not only whether its kernel takes it in. Read from its own RTMP
/// acknowledgements (rtmp2sink's `out-bytes-acked`) or, when it sends those rarely
/// (nginx-rtmp: every 5 MB), from its TCP stack: what it acknowledged (the bytes
/// written less those the socket still holds) and the receive window it advertises
/// (TCP_INFO's `tcpi_snd_wnd`). A server that stops reading goes on acknowledging
/// until its receive buffer is full, minutes at a low bitrate, but its window shrinks
/// from then on and never opens again; one that reads keeps it open, or opens it again.
/// On a lossy link the window of a server that reads narrows too, for seconds, while
/// its kernel holds data out of order waiting for a lost segment (300 ms each way and
/// 2 % loss: 5 s, docs/presets.md `reconnect.stall`): while our side recovers lost data,
/// what its TCP stack acknowledges is taken for read. A server that stops reading there is
/// then stalled once its window is closed (its kernel acknowledges nothing more).
/// rtmp2sink writes nothing until the server has answered the handshake; the commands
/// it writes before our first media (`commandBytes`) being acknowledged is not the
/// stream being acknowledged. Also the deadline of a connect under way (`ConnectDeadline`).
struct RTMPProbe: Equatable {
    /// One look at the link (OutputWatch.swift reads it).
    struct Reading: Equatable {
        /// What rtmp2sink wrote on this connection (its `out-bytes-total`).
        var written: Int
        /// Media had been pushed into the connection before `written` was read.
        var mediaPushed: Bool
        /// The server's own RTMP acknowledgements (rtmp2sink's `out-bytes-acked`).
        var serverAcked: Int = 0
        /// What the connection's socket holds that the server's TCP stack has not
        /// acknowledged (nil when its socket is not found).
        var unacknowledged: Int?
        /// The receive window the server advertises on that socket (nil when its socket is
        /// not found, or the kernel does not tell it: then its acknowledgements alone judge).
        var window: Int?
        /// Our side of the socket is recovering lost data (segments SACKed, lost or
        /// retransmitted): the server holds data out of order, which narrows its window.
        var recovering = false
    }

    /// What the server acknowledged on this connection (nil before a first reading).
    private(set) var acked: Int?
    /// What rtmp2sink had written on this connection before any of our media went in
    /// (the `connect`, `createStream` and `publish` commands).
    private(set) var commandBytes = 0
    /// The server's own RTMP acknowledgements at the last reading.
    private(set) var serverAcked = 0
    /// The window the server advertised when it was last seen reading, and at the last reading.
    private(set) var windowWhenRead: Int?
    private(set) var lastWindow: Int?
    /// The bytes handed to the output at the last reading (`produced`).
    private(set) var handedAtCheck: UInt64 = 0
    private(set) var stall: StallWatch
    /// The connect under way, stage by stage.
    var connect: ConnectDeadline

    init(limit: TimeInterval, now: MonotonicInstant = .now) {
        stall = StallWatch(limit: limit, now: now)
        connect = ConnectDeadline(limit: limit, now: now)
    }

    mutating func restart(at now: MonotonicInstant) {
        acked = nil
        commandBytes = 0
        serverAcked = 0
        windowWhenRead = nil
        lastWindow = nil
        stall.restart(at: now)
        connect.restart(at: now)
    }

    /// The connection is gone: what the server acknowledged is about none now.
    mutating func connectionGone() {
        acked = nil
    }

    /// Whether more was handed to the output (`handed`: all it was handed) since the last look.
    mutating func produced(_ handed: UInt64) -> Bool {
        defer { handedAtCheck = handed }
        return handed > handedAtCheck
    }

    /// One reading: `acknowledged` once the server acknowledged more than the commands
    /// (the stream reached it); stalled when its application read nothing (`reads`) for
    /// the limit while more was `produced`. Before any media went in, the bytes written
    /// are commands.
    mutating func observe(_ reading: Reading, produced: Bool, publishing: Bool, at now: MonotonicInstant) -> LinkVerdict {
        guard reading.written > 0 else { return LinkVerdict() }
        guard reading.mediaPushed else {
            commandBytes = max(commandBytes, reading.written)
            return LinkVerdict()
        }
        let tcpAcked = reading.unacknowledged.map { max(0, reading.written - $0) } ?? 0
        let sum = max(reading.serverAcked, tcpAcked)   // either one says the server has it
        let grew = sum > (acked ?? 0)
        if acked == nil { stall.restart(at: now) }   // a first reading
        acked = sum
        let read = reads(reading, kernelAcknowledged: grew)
        let stalled = stall.observe(acknowledged: read, sending: produced, publishing: publishing, at: now)
        return LinkVerdict(acknowledged: sum > commandBytes, stalled: stalled)
    }

    /// Whether the server's application read since the last reading: its own RTMP
    /// acknowledgements grew; or its TCP stack acknowledged more (`kernelAcknowledged`)
    /// with its window as open as when it was last seen reading, or opening again, or
    /// while lost data is being recovered (a narrower window is then no sign).
    /// Without a window, its TCP stack's acknowledgements are all there is to go by.
    private mutating func reads(_ reading: Reading, kernelAcknowledged: Bool) -> Bool {
        defer { serverAcked = max(serverAcked, reading.serverAcked) }
        if reading.serverAcked > serverAcked { return true }
        guard let window = reading.window else { return kernelAcknowledged }
        defer { lastWindow = window }
        let open = windowWhenRead.map { window >= $0 } ?? true
        let opening = lastWindow.map { window > $0 } ?? false
        guard kernelAcknowledged, open || opening || reading.recovering else { return false }
        windowWhenRead = window
        return true
    }
}

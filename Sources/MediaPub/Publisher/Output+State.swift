import Foundation

/// What an output keeps between its threads, inside `Output.state` (Output.swift
/// gives the lock order).
extension Output {
    /// What changes; internal for the watch (OutputWatch.swift).
    struct State {
        var supervision: OutputSupervision
        var connection: OutputConnection?
        /// The generation `connection` was made with (a failure since makes it stale).
        var connectionGeneration = 0
        /// The file a recording writes, created when the output opens.
        var recording: RecordingFile?
        /// The files this run wrote, in order (retention counts them as the newest).
        var written: [String] = []
        /// The files still being written, locked (OutputRotation.swift).
        var held: [RecordingFile] = []
        var openedAt = Date()
        var bytes: UInt64 = 0
        var rateMark: (at: Date, bytes: UInt64) = (Date(), 0)
        var rateKbps = 0
        /// The recording's file, an SRT caller's statistics or an RTMP server's acknowledgements, read every `watchInterval`.
        var watch: DispatchSourceTimer?
        var watchInterval: TimeInterval = 0
        /// The last statistics of an SRT caller's connection.
        var srtStats: SRTStats?
        /// An SRT listener's callers on the current connection (nil for other outputs).
        var srtCallers: Int?
        /// The connection whose failure the SRT listener was asked about (`SRTRejection`).
        var srtAsked: Int?
        /// RTMP: what the server's TCP stack acknowledged on this connection, and how
        /// much we had handed over at the last check.
        var tcpAcked: Int?
        /// RTMP: what rtmp2sink had written on this connection before any of our media
        /// went in (the `connect`, `createStream` and `publish` commands): acknowledging
        /// those is not acknowledging data.
        var rtmpCommandBytes = 0
        /// RTMP: the server's addresses, resolved again for each connection (`probeFor`),
        /// off the queue (`resolving`); the last good one serves while a resolution fails.
        var probe: TCPAcknowledged?
        var probeFor = 0
        var resolving = false
        var bytesAtCheck: UInt64 = 0
        /// A recording: the bytes its disk's side had taken at the last check.
        var diskTaken: UInt64 = 0
        var stall: StallWatch
        /// RTMP: the connect under way, stage by stage (OutputWatch.swift).
        var connect: ConnectDeadline
        /// A `ctl reconnect` waits its turn on the queue.
        var reconnectQueued = false
        /// RTMP: the sockets to the server that were open before the current connection began.
        var socketsBefore: Set<UInt64> = []
    }
}

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
        /// What status and metrics count (Output+Stats.swift).
        var stats = Stats()
        /// The recording's file, an SRT caller's statistics or an RTMP server's acknowledgements, read every `watchInterval`.
        var watch: DispatchSourceTimer?
        var watchInterval: TimeInterval = 0
        /// The link's health signal, per transport (LinkProbe.swift).
        var link: LinkProbe
        /// The connection whose failure the SRT listener was asked about (`SRTRejection`).
        var srtAsked: Int?
        /// RTMP: the server's addresses, resolved again for each connection (`probeFor`),
        /// off the queue (`resolving`); the last good one serves while a resolution fails.
        var probe: TCPAcknowledged?
        var probeFor = 0
        var resolving = false
        /// A `ctl reconnect` waits its turn on the queue.
        var reconnectQueued = false
        /// RTMP: the sockets to the server that were open before the current connection began.
        var socketsBefore: Set<UInt64> = []
    }
}

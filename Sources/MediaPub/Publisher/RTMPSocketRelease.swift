import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How a superseded RTMP connection (a `ctl reconnect`, a retry, a connect given up at
/// its deadline) ends without leaving its socket behind.
///
/// rtmp2sink (GStreamer 1.22) stopped while its connect is in the RTMP stage (the TCP
/// connection up, its `connect`, `createStream` or `publish` waiting for the server's
/// answer) never closes that socket. What waits for the answer is a source on the sink's
/// own main context, and nobody runs that context once the sink has stopped: stopping
/// cancels the connect, but rtmp2's connection links that cancellation to its own the
/// wrong way round, so the wait is never woken. The socket, the context's eventfd and a
/// connection to the server stayed for ever: two descriptors more for each reconnect that
/// landed there, and now and then one more connection to the server.
///
/// So the pipeline is stopped only once its connect is over. Every socket of this
/// output to the server is shut down, which makes the connect (or the connection) fail
/// as one whose server hung up: rtmp2sink says so on the bus and closes the socket
/// itself. A socket that comes up meanwhile (the connect was still resolving or in its
/// TCP handshake) is shut down as soon as it shows. A connect that shows no socket
/// within `deadline` (a server that never answers the TCP handshake) is stopped where
/// stopping does cancel it.
///
/// Which sockets are this output's: the one it claimed (`TCPSocketClaims`) or, when it
/// has claimed none yet, those nobody claimed that were not there before its connection
/// began. Descriptors are only ever shut down, never closed: each belongs to rtmp2sink,
/// which closes it.
struct RTMPSocketRelease {
    /// The server's addresses.
    let probe: TCPAcknowledged
    /// The output.
    let owner: ObjectIdentifier
    /// The sockets to the server that were open before this connection began.
    let before: Set<UInt64>

    /// How long a connect may take to be over once its sockets are shut down.
    static let deadline: TimeInterval = 1
    /// How often its sockets are looked for meanwhile.
    static let interval: useconds_t = 5_000

    /// Shuts `connection`'s sockets down, waits (up to `deadline`) for its connect to be
    /// over (rtmp2sink said it failed and closed every socket it had), and stops it.
    func stop(_ connection: OutputConnection) {
        var shut: [TCPAcknowledged.Connection] = []
        var claimed = false
        let end = MonotonicInstant.now.addingTimeInterval(Self.deadline)
        while true {
            for socket in sockets(claimed: &claimed) where !shut.contains(where: { $0.inode == socket.inode }) {
                TCPAcknowledged.shutDown(socket)
                shut.append(socket)
            }
            if connection.sinkFailed && !shut.contains(where: TCPAcknowledged.isOpen) || MonotonicInstant.now >= end { break }
            usleep(Self.interval)
        }
        guard connection.stop() else { return }
        // Stopped, rtmp2sink has closed whatever it could: a connection still up now (one
        // that came up in the last moment of the deadline) is nobody's. Its server sees it
        // close; its descriptor stays, as no one may close what rtmp2sink holds.
        for socket in sockets(claimed: &claimed) { TCPAcknowledged.shutDown(socket) }
    }

    /// This output's established connections to the server that are not shut down yet:
    /// the one it claimed; until it has claimed one (`claimed`), those nobody claimed that
    /// came since its connection began. Once it has, no other: one that nobody claimed yet
    /// may be another output's, its connect just begun.
    private func sockets(claimed: inout Bool) -> [TCPAcknowledged.Connection] {
        let all = probe.connections()
        let claims = TCPSocketClaims.shared
        let mine = claims.candidates(for: owner, among: all, before: Set(all.map(\.inode)))
        claimed = claimed || !mine.isEmpty
        return claimed ? mine : claims.candidates(for: owner, among: all, before: before)
    }
}

extension Output {
    /// Ends a superseded RTMP connection, its sockets closed before its pipeline stops (`RTMPSocketRelease`).
    func releaseSocket(of connection: OutputConnection, _ probe: TCPAcknowledged) {
        let before = state.withLock { $0.socketsBefore }
        RTMPSocketRelease(probe: probe, owner: ObjectIdentifier(self), before: before).stop(connection)
    }
}

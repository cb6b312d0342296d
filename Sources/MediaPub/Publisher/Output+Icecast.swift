import Foundation

/// An Icecast output's link and title (docs/presets.md, Icecast). shout2send logs in
/// (HTTP PUT/SOURCE with the password) at the first buffer and blocks while it does:
/// a buffer rendered is a login the server accepted, and the output publishes once the
/// server's TCP stack acknowledged some of the stream (IcecastProbe). From then on what
/// it acknowledges of the bytes handed to the sink is its health, as for RTMP
/// (`TCPAcknowledged`): nothing acknowledged for `reconnect.stall` while sound goes
/// out is a stall, and the link is reconnected.
extension Output {
    /// The server whose TCP acknowledgements tell an output's health (RTMP, Icecast).
    var acknowledgedServer: NetworkEndpoint? {
        switch target {
        case .rtmp(let endpoint): return endpoint
        case .icecast(let endpoint): return endpoint.server
        default: return nil
        }
    }

    /// Before an Icecast output's pipeline is made: the server is asked whether it takes
    /// the mount at all (MP3, Opus: shout2send logs in, and its libshout would try again
    /// at once, dozens of times a second, at a refusal), or (AAC) we log in ourselves and
    /// the socket is the connection's. MP3 and Opus: the login is then tried by us too and
    /// let go at once (`IcecastLogin.tryOut`), so that only a login the server takes
    /// reaches libshout (2.4), which leaves its socket open at a refused one: one
    /// descriptor more for each retry of a wrong password. Throws the server's refusal
    /// or why the login got nowhere (an `OutputFailure`); nil for other outputs.
    func icecastLogin() throws -> Int32? {
        guard case .icecast(let endpoint) = target else { return nil }
        let deadline = min(state.withLock { $0.link.stallLimit }, 5)
        if endpoint.codec == .aac { return try IcecastLogin.open(endpoint, deadline: deadline) }
        if case .refused(let why) = IcecastMountCheck.ask(endpoint, deadline: deadline) { throw IcecastLogin.refused(why) }
        try IcecastLogin.tryOut(endpoint, deadline: deadline)
        return nil
    }

    func checkIcecast() {
        let produced = linkCheckStarts { link, handed in link.icecast { $0.produced(handed) } }
        guard let (connection, generation) = watched, let sink = connection.sink else { return }
        let probe = serverAddresses(for: generation)
        // A socket to the server that was there before this connection began is another's
        // (an output beside it, its title's request), never this one's.
        let before = state.withLock { $0.socketsBefore }
        let socket = probe.flatMap {
            TCPSocketClaims.shared.connection(for: ObjectIdentifier(self), among: $0.connections().filter { !before.contains($0.inode) })
        }
        let reading = IcecastProbe.Reading(rendered: sink.structure("stats")?.uint64("rendered") ?? 0,
                                           taken: Int(clamping: connection.flow.taken),
                                           socketFound: socket != nil, unacknowledged: socket?.sendQueue ?? 0,
                                           window: socket.flatMap(TCPAcknowledged.window(of:)))
        let now = MonotonicInstant.now
        let (loggedIn, stalled, overdue) = state.withLock { s -> (Bool, Bool, String?) in
            guard s.supervision.isCurrent(generation) else { return (false, false, nil) }
            let current = s.supervision.state
            let connecting = current == .connecting || current == .reconnecting
            guard let (verdict, overdue) = s.link.icecast({
                $0.observe(reading, produced: produced, connecting: connecting, publishing: current == .publishing, at: now)
            }) else { return (false, false, nil) }
            // Counted once the server took the login: a connection refused sent nothing.
            if verdict.acknowledged { s.stats.connection(written: reading.taken, acknowledged: s.link.bytesAcked ?? 0) }
            return (verdict.acknowledged && connecting, verdict.stalled, overdue)
        }
        if let overdue {
            fail(OutputFailure(overdue, .connectTimeout), connection: generation)
        } else if loggedIn {
            markPublishing(connection: generation)
            sendTitle(to: connection)
        } else if stalled {
            fail(.serverStalled(for: MediaTime.formatDuration(state.withLock { $0.link.stallLimit })), connection: generation)
        }
    }

    /// The now-playing title changed: an Icecast output that is publishing sends it on its
    /// connection (one still connecting sends it once it is in: a tag event before the
    /// first buffer would come before the stream's caps).
    func titleChanged() {
        guard case .icecast = target, let (connection, _) = watched,
              state.withLock({ $0.supervision.state == .publishing }) else { return }
        sendTitle(to: connection)
    }

    /// The run's title as a tag event down the connection (shout2send makes it the
    /// mount's `artist - title`), in order with the sound.
    func sendTitle(to connection: OutputConnection) {
        guard let tags = streamTitle?.tags else { return }
        if case .icecast(let endpoint) = target, endpoint.codec == .aac {
            // No shout2send to make the tags the mount's title: asked of the server as it does, off the caller's thread.
            let song = "\(tags.artist ?? "Unknown") - \(tags.title ?? "Unknown")"
            // As with shout2send, a title the server did not take is no failure of the stream.
            queue.async { _ = IcecastLogin.setTitle(song, of: endpoint, deadline: 5) }
            return
        }
        // Both, always: shout2send keeps the last of each, and an item without an artist
        // would show the one before's.
        connection.audioSrc?.sendTags([("title", tags.title ?? "Unknown"), ("artist", tags.artist ?? "Unknown")])
    }
}

import Foundation

/// The output's watch, once a second on its queue: a recording's file is still
/// there; an SRT caller's peer and an RTMP server acknowledge what goes out.
/// A link that acknowledges nothing for `reconnect.stall` while data goes out
/// (`StallWatch` decides) is torn down and reconnected (reason: stalled).
extension Output {
    /// An SRT output calling a listener: its health is what the peer acknowledges.
    var isSRTCaller: Bool {
        guard case .srt(let endpoint) = target else { return false }
        return !endpoint.isListener
    }

    /// Starts the watch of a network output: SRT callers and RTMP.
    func watchLink() {
        if isSRTCaller {
            watch { $0.checkSRT() }
        } else if case .rtmp(let endpoint) = target {
            // The server's address is resolved on the queue (a slow resolver stalls nobody).
            queue.async { [weak self] in
                guard let probe = TCPAcknowledged(endpoint) else { return }
                self?.watch { $0.checkRTMP(probe) }
            }
        }
    }

    /// Runs `check` once a second on the output's queue until `finish` (never after it began).
    func watch(_ check: @escaping @Sendable (Output) -> Void) {
        state.withLock { s in
            guard !s.supervision.finishing, s.watch == nil else { return }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + 1, repeating: 1)
            timer.setEventHandler { [weak self] in if let self { check(self) } }
            s.watch = timer
            timer.resume()
        }
    }

    /// A recording whose file (or folder) was removed mid-run would go on into a file
    /// nobody can open: it is noticed, said, and a new file begun.
    func checkRecording() {
        let gone = state.withLock { s -> RecordingFile? in
            guard let recording = s.recording, !s.supervision.finishing, s.supervision.state == .publishing,
                  !recording.isStillThere else { return nil }
            s.supervision.recordingLost()
            s.recording = nil
            s.openedAt = Date()
            return recording
        }
        guard let gone else { return }
        onState(self, .reconnecting, "\(gone.path) was removed while being recorded: recording to a new file")
        connectOrFail()   // a new file at the asked-for path, its folder made again
    }

    /// The current connection and its generation, unless finishing.
    private var watched: (connection: OutputConnection, generation: Int)? {
        state.withLock { s in
            guard !s.supervision.finishing, let connection = s.connection else { return nil }
            return (connection, s.supervision.generation)
        }
    }

    /// An SRT caller is publishing only once its peer acknowledges packets.
    func checkSRT() {
        guard let (connection, generation) = watched, let sink = connection.sink,
              let stats = SRTStats.read(from: sink) else { return }
        let now = Date()
        let (firstAck, stalled) = state.withLock { s -> (Bool, Bool) in
            guard s.supervision.isCurrent(generation) else { return (false, false) }
            let previous = s.srtStats ?? SRTStats()
            let acked = stats.acksReceived > previous.acksReceived
            s.srtStats = stats
            let current = s.supervision.state
            let stalled = s.stall.observe(acknowledged: acked, sending: stats.packetsSent > previous.packetsSent,
                                          publishing: current == .publishing, at: now)
            return (acked && (current == .connecting || current == .reconnecting), stalled)
        }
        if firstAck { markPublishing(connection: generation) }
        if stalled {
            fail("stalled: the peer acknowledged nothing for \(MediaTime.formatDuration(stallLimit))", connection: generation)
        }
    }

    /// What the RTMP server's TCP stack acknowledged (`probe` finds its connection),
    /// while the encoder produces.
    func checkRTMP(_ probe: TCPAcknowledged) {
        let produced = state.withLock { s in
            defer { s.bytesAtCheck = s.bytes }
            return s.bytes > s.bytesAtCheck
        }
        guard let (connection, generation) = watched, let sink = connection.sink,
              let written = TCPAcknowledged.written(by: sink), let queued = probe.sendQueue() else { return }
        let now = Date()
        let acked = max(0, written - queued)
        let stalled = state.withLock { s -> Bool in
            guard s.supervision.isCurrent(generation) else { return false }
            let grew = acked > (s.tcpAcked ?? 0)
            if s.tcpAcked == nil { s.stall.restart(at: now) }   // a first reading
            s.tcpAcked = acked
            return s.stall.observe(acknowledged: grew, sending: produced, publishing: s.supervision.state == .publishing, at: now)
        }
        if stalled {
            fail("stalled: the server acknowledged nothing for \(MediaTime.formatDuration(stallLimit))", connection: generation)
        }
    }

    private var stallLimit: TimeInterval { state.withLock { $0.stall.limit } }
}

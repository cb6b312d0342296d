import Foundation

/// The output's watch, on its queue (a recording's once a second, an SRT link's once, an RTMP
/// link's four times, twenty until it publishes): a recording's file is still
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
            // Once a second, as before: srtsink's statistics are read from libsrt while the
            // element may be closing a failed connect, and reading them four times a second
            // crashed libsrt's heap (its GC thread) about one run in two.
            watch(every: 1) { $0.checkSRT() }
        } else if case .rtmp = target {
            watch(every: Self.linkArrivalInterval) { $0.checkRTMP() }
        } else if case .icecast = target {
            watch(every: Self.linkArrivalInterval) { $0.checkIcecast() }   // Output+Icecast.swift
        }
    }

    /// A link check begins: the watch's pace set for the state (`linkCheckInterval` once
    /// publishing, `linkArrivalInterval` until then); whether data went out since the last
    /// (`produced`, asked of the link's probe with all the output was handed).
    func linkCheckStarts(_ produced: (inout LinkProbe, UInt64) -> Bool?) -> Bool {
        state.withLock { s in
            Self.setWatchInterval(s.supervision.state == .publishing ? Self.linkCheckInterval : Self.linkArrivalInterval, &s)
            return produced(&s.link, s.stats.handed) ?? false
        }
    }

    /// How often an RTMP output's link is read once it is publishing (acknowledgements
    /// for the stall watch, the byte counts for status).
    static let linkCheckInterval: TimeInterval = 0.25
    /// How often until then (connecting, reconnecting): its first acknowledgement
    /// makes it publishing within this much, and the bytes of rtmp2sink's commands,
    /// written before any media, are read close to the first media.
    static let linkArrivalInterval: TimeInterval = 0.05

    /// Runs `check` every `interval` on the output's queue until `finish` (never after it began).
    func watch(every interval: TimeInterval = 1, _ check: @escaping @Sendable (Output) -> Void) {
        state.withLock { s in
            guard !s.supervision.finishing, s.watch == nil else { return }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + interval, repeating: interval)
            timer.setEventHandler { [weak self] in if let self { check(self) } }
            s.watch = timer
            s.watchInterval = interval
            timer.resume()
        }
    }

    /// The watch reads every `interval` from now on (its timer rescheduled; nothing if it is not running).
    static func setWatchInterval(_ interval: TimeInterval, _ s: inout State) {
        guard let timer = s.watch, s.watchInterval != interval else { return }
        s.watchInterval = interval
        timer.schedule(deadline: .now() + interval, repeating: interval)
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
        finished(gone.path)
        onState(self, .reconnecting, "\(gone.path) was removed while being recorded: recording to a new file")
        connectOrFail()   // a new file at the asked-for path, its folder made again
    }

    /// A recording (or HLS) in a paced run whose disk takes nothing: data waits for it
    /// and none of it has been taken for `reconnect.stall` (a hung disk, or one far
    /// slower than the stream). It is given up, naming its file, so that it holds nobody
    /// back. Judged by the bytes taken, not by how much waits (a buffer or two always
    /// in passing read as a backlog that never shrank). As fast as possible, the disk's
    /// pace is the run's: nothing is given up.
    func checkDisk() {
        guard paced, let (connection, generation) = watched else { return }
        let (pushed, taken) = connection.flow
        let now = MonotonicInstant.now
        let (stalled, file) = state.withLock { s -> (Bool, String?) in
            guard s.supervision.isCurrent(generation) else { return (false, nil) }
            let publishing = s.supervision.state == .publishing
            let verdict = s.link.disk { $0.observe(pushed: pushed, taken: taken, publishing: publishing, at: now) }
            return (verdict?.stalled ?? false, s.recording?.path)
        }
        guard stalled else { return }
        var written = file ?? "?"
        if case .hls(let hls) = target { written = hls.playlist }
        fail(OutputFailure("writing \(written) stalled: the disk took nothing for \(MediaTime.formatDuration(stallLimit))", .stalled),
             connection: generation)
    }

    /// The current connection and its generation, unless finishing, or unless it failed
    /// (it is still there until it is torn down: what it reads then is not the next one's).
    var watched: (connection: OutputConnection, generation: Int)? {
        state.withLock { s in
            guard !s.supervision.finishing, let connection = s.connection,
                  s.connectionGeneration == s.supervision.generation else { return nil }
            return (connection, s.connectionGeneration)
        }
    }

    /// An SRT caller is publishing only once its peer acknowledges packets; a sink
    /// without statistics (its socket broken) acknowledges nothing.
    func checkSRT() {
        guard let (connection, generation) = watched, let sink = connection.sink else { return }
        let stats = SRTStats.read(from: sink)
        let now = MonotonicInstant.now
        let (firstAck, stalled) = state.withLock { s -> (Bool, Bool) in
            guard s.supervision.isCurrent(generation) else { return (false, false) }
            let current = s.supervision.state
            let handed = s.stats.handed
            let verdict = s.link.srtCaller { $0.observe(stats, handed: handed, publishing: current == .publishing, at: now) }
                ?? LinkVerdict()
            return (verdict.acknowledged && (current == .connecting || current == .reconnecting), verdict.stalled)
        }
        if firstAck { markPublishing(connection: generation) }
        if stalled {
            fail(.peerStalled(for: MediaTime.formatDuration(stallLimit)), connection: generation)
        }
    }

    /// What the RTMP server acknowledged: its own RTMP acknowledgements (rtmp2sink's
    /// `out-bytes-acked`) or, when it sends those rarely (nginx-rtmp: every 5 MB), what
    /// its TCP stack acknowledged of the bytes rtmp2sink wrote (`probe` finds the socket).
    /// rtmp2sink writes nothing until the server has answered the handshake, so a server
    /// that accepts and never answers is never publishing; nor is one that has only
    /// acknowledged the commands written before our first media (`rtmpCommandBytes`).
    func checkRTMP() {
        let produced = linkCheckStarts { link, handed in link.rtmp { $0.produced(handed) } }
        guard let (connection, generation) = watched, let sink = connection.sink else { return }
        if let critical = LibraryLog.critical(on: sink) {
            // rtmp2sink failed an assertion on what the server sent (garbage in place of RTMP):
            // it goes on failing it thousands of times a second. The connection is given up.
            fail(OutputFailure("the server's answer broke rtmp2sink: \(critical)", .badAnswer), connection: generation)
            return
        }
        // Looked up as it connected (Output.connect); again here if that lookup failed.
        let probe = serverAddresses(for: generation)
        // Read before what was written: nothing pushed yet means all that was written is commands.
        let mediaPushed = connection.flow.pushed > 0
        let written = TCPAcknowledged.written(by: sink) ?? 0
        if let why = connectOverdue(generation, probe: probe, written: written, mediaPushed: mediaPushed) {
            fail(OutputFailure(why, .connectTimeout), connection: generation)
            return
        }
        guard written > 0 else { return }
        var reading = RTMPProbe.Reading(written: written, mediaPushed: mediaPushed)
        if mediaPushed {
            reading.serverAcked = sink.structure("stats")?.uint64("out-bytes-acked").map { Int(clamping: $0) } ?? 0
            let socket = probe.flatMap { TCPSocketClaims.shared.connection(for: ObjectIdentifier(self), among: $0.connections()) }
            reading.unacknowledged = socket?.sendQueue
            reading.window = socket.flatMap(TCPAcknowledged.window(of:))
            reading.recovering = socket.map(TCPAcknowledged.recovering) ?? false
        }
        let now = MonotonicInstant.now
        let (firstAck, stalled) = state.withLock { s -> (Bool, Bool) in
            guard s.supervision.isCurrent(generation) else { return (false, false) }
            let current = s.supervision.state
            let verdict = s.link.rtmp { $0.observe(reading, produced: produced, publishing: current == .publishing, at: now) }
                ?? LinkVerdict()
            // Counted once the server took the stream: a connection refused or never answered sent nothing.
            if verdict.acknowledged { s.stats.connection(written: reading.written, acknowledged: s.link.bytesAcked ?? 0) }
            return (verdict.acknowledged && (current == .connecting || current == .reconnecting), verdict.stalled)
        }
        if firstAck { markPublishing(connection: generation) }
        if stalled {
            fail(.serverStalled(for: MediaTime.formatDuration(stallLimit)), connection: generation)
        }
    }

    /// Why the connect under way (connecting or reconnecting) has failed: a stage of it
    /// (`ConnectDeadline`) made no progress for `reconnect.stall`; nil while it goes on,
    /// and once publishing. The server's acknowledgement of the stream is waited for from
    /// our first media on (a run whose timeline starts late is no server's fault).
    private func connectOverdue(_ generation: Int, probe: TCPAcknowledged?, written: Int, mediaPushed: Bool) -> String? {
        let connecting = state.withLock { s in
            s.supervision.isCurrent(generation) && (s.supervision.state == .connecting || s.supervision.state == .reconnecting)
        }
        guard connecting else { return nil }
        // rtmp2sink writes nothing of its own count until the RTMP session is up.
        let stage: ConnectDeadline.Stage
        if written > 0 {
            guard mediaPushed else { return nil }
            stage = .media
        } else if let probe, TCPSocketClaims.shared.connection(for: ObjectIdentifier(self), among: probe.connections()) != nil {
            stage = .rtmp
        } else {
            stage = .tcp
        }
        let now = MonotonicInstant.now
        return state.withLock { s in
            guard s.supervision.isCurrent(generation) else { return nil }
            return s.link.rtmp { $0.connect.observe(stage, at: now) ? $0.connect.failure : nil } ?? nil
        }
    }

    /// The RTMP server's addresses: resolved again (off the queue: a slow resolver stalls
    /// nobody) for each connection, as rtmp2sink resolves for each; meanwhile, or when
    /// that fails, the last ones found.
    func serverAddresses(for generation: Int) -> TCPAcknowledged? {
        guard let endpoint = acknowledgedServer else { return nil }
        let (probe, resolve) = state.withLock { s -> (TCPAcknowledged?, Bool) in
            let resolve = s.probeFor != generation && !s.resolving
            if resolve { s.resolving = true }
            return (s.probe, resolve)
        }
        if resolve {
            DispatchQueue.global().async { [weak self] in
                let found = TCPAcknowledged(endpoint)
                self?.state.withLock { s in
                    s.probe = found ?? s.probe
                    s.probeFor = found == nil ? s.probeFor : generation
                    s.resolving = false
                }
            }
        }
        return probe
    }

    private var stallLimit: TimeInterval { state.withLock { $0.link.stallLimit } }
}

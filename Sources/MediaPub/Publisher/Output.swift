import Foundation
import Synchronization

/// One output and the supervisor of its connections: each attempt is an
/// `OutputConnection` (appsrc → parse → mux → sink) fed with the encoded samples;
/// a failed one is reconnected with backoff (`OutputSupervision` decides), the link
/// is watched for stalls and the recording for its file (OutputWatch.swift), and
/// every state change is reported through `onState`. A failure here never touches
/// the encoder or the other outputs.
///
/// Threads: the encoder's streaming threads call `offer`; connecting, retries and
/// the watch run on the output's own serial `queue`; anyone reads `status`. All that
/// changes is in `state`.
///
/// Lock order: a connection's `audioPush`, then `state`, then `shown` (a leaf).
/// `onState` and `onRecording` are called holding none of them: a change is
/// recorded under the lock and told once it is released.
final class Output: Sendable {
    let url: String
    let maskedURL: String
    /// The output's name in status, events, metrics and `ctl reconnect`: its `id:`, else its index.
    let id: String
    /// Whether `id` was given (else it is the index).
    let hasExplicitID: Bool
    /// Another output of the run has the same masked URL: logs name this one by its id too.
    let sharesURL: Bool
    let target: OutputTarget
    /// When the run made it: HLS segments named for a start since then are this run's.
    let madeAt = Date()
    private let hasVideo: Bool
    /// AAC encoders prime with 1024 samples: pictures are stamped as late (ns).
    private let videoDelay: Int
    /// Called on every state change, holding no lock of the output's.
    let onState: @Sendable (Output, OutputState, String?) -> Void
    /// A file output cut into files of this much output time (OutputRotation.swift).
    let segment: TimeInterval?
    /// A file output's `keep` and `max_age`.
    let retention: RecordingRetention?
    /// A new file of a segmented recording, or a file retention could not remove; never holding `state`.
    let onRecording: @Sendable (Output, RecordingNotice) -> Void
    /// Connecting, retries and the watch run here, one at a time.
    let queue = DispatchQueue(label: "output")
    /// The run goes at the clock's pace: a recording's disk never holds the encoder back.
    let paced: Bool
    /// How long a publishing network output may take to send what is on its way at the end.
    static let networkDrain: TimeInterval = 3
    /// How long `finish` waits for a network output's queue before tearing it down itself.
    static let networkQueueWait: TimeInterval = 0.5

    /// All that changes (Output+State.swift).
    let state: Mutex<State>
    /// The file a recording writes, for `shownURL`: a leaf lock, taken holding nothing else or last.
    let shown = Mutex<String?>(nil)
    /// An SRT output's hold on libsrt, given back at the end of `finish`.
    let srtLibrary: SRTLibraryHold?
    /// Signalled at the muxer's EOS, or when the output fails while finishing.
    let eos = DispatchSemaphore(value: 0)
    /// The run's now-playing title, which an Icecast mount announces (Output+Icecast.swift).
    let streamTitle: StreamTitle?

    init(url: OutputURL, id: String, hasExplicitID: Bool = false, sharesURL: Bool = false, hasVideo: Bool, audioPriming: TimeInterval = 0,
         reconnect: ReconnectConfig, segment: TimeInterval? = nil, retention: RecordingRetention? = nil, paced: Bool = false,
         streamTitle: StreamTitle? = nil, onState: @escaping @Sendable (Output, OutputState, String?) -> Void,
         onRecording: @escaping @Sendable (Output, RecordingNotice) -> Void = { _, _ in }) {
        self.url = url.text
        self.id = id
        self.hasExplicitID = hasExplicitID
        self.sharesURL = sharesURL
        self.maskedURL = SecretMask.mask(url: url.text)
        let target = url.target
        self.target = target
        if case .srt = target { srtLibrary = SRTLibraryHold() } else { srtLibrary = nil }
        if case .rtmp = target { LibraryLog.watchRTMPSinks() }   // a critical on its sink's thread gives the connection up
        self.hasVideo = hasVideo && target.carriesVideo   // an audio-only output takes the sound only
        self.videoDelay = Int(audioPriming * 1e9)
        self.onState = onState
        self.segment = segment
        self.retention = retention
        self.paced = paced
        self.onRecording = onRecording
        self.streamTitle = streamTitle
        state = Mutex(State(supervision: OutputSupervision(reconnect: reconnect, retries: target.isNetwork),
                            link: LinkProbe(target: target, stall: reconnect.stall)))
    }

    /// A network output starts connecting, on its own queue (a slow server stalls
    /// nobody); what goes wrong is its state, never an error here.
    func openNetwork() {
        precondition(target.isNetwork, "openNetwork: \(maskedURL) is a recording")
        state.withLock { $0.openedAt = Date() }
        queue.async { [self] in connectOrFail() }
        watchLink()
    }

    /// Opens a recording (or HLS) at once: nothing of it may be lost. Network
    /// outputs are opened before the encoder is built (`openNetwork`).
    func open() throws {
        precondition(!target.isNetwork, "open: \(maskedURL) is opened by openNetwork")
        state.withLock { $0.openedAt = Date() }
        if let error = connectOrFail() {
            throw error
        } else if case .file = target {
            watch { output in
                output.checkRecording()
                output.checkDisk()
            }
        } else if case .hls = target {
            watch { $0.checkDisk() }
        }
    }

    private func connect() throws {
        teardown(superseded: true)   // never two pipelines for one output
        try requireSpaceToReconnect()
        var location: String? = nil
        if case .file(let path, _) = target {
            // A file of this run's own: whatever is at the path already is never opened.
            let (made, openedAt) = state.withLock { ($0.recording, $0.openedAt) }
            let file: RecordingFile
            do { file = try made ?? RecordingFile.create(OutputTarget.expand(path, at: openedAt)) } catch {
                throw MediaPubError.output(url, MediaPubError.reason(of: error))
            }
            if made == nil { recordTo(file) }
            location = file.path
        } else if case .hls(let hls) = target {
            // The playlist's folder is made (or the output fails, saying why); segments are named for this start.
            if let why = OutputFolder.prepare((hls.playlist as NSString).deletingLastPathComponent) {
                throw MediaPubError.output(url, why)
            }
            location = OutputTarget.expand(OutputTarget.hlsRunStamp, at: state.withLock { $0.openedAt })
        }
        let before = state.withLock { $0.probe }.map { Set($0.connections().map(\.inode)) } ?? []
        let socket = try icecastLogin()   // Output+Icecast.swift
        let connection: OutputConnection
        do {
            connection = try OutputConnection(target: target, hasVideo: hasVideo, videoDelay: videoDelay, location: location,
                                              segment: segment, paced: paced, socket: socket)
        } catch {
            if let socket { close(socket) }
            throw error
        }
        if let location { nameSegments(of: connection, first: location) }
        if case .icecast = target, let pad = connection.sink?.staticPad("sink") { Probes.dropUntitledTags(pad) }   // Output+Icecast.swift
        let generation = state.withLock { s -> Int? in
            guard !s.supervision.finishing || !target.isNetwork else { return nil }   // too late: the run is ending
            s.connection = connection
            s.stats.connectionEnded()
            s.link.restart(at: .now)   // a new socket counts from zero
            s.socketsBefore = before
            s.connectionGeneration = s.supervision.connected()
            return s.connectionGeneration
        }
        guard let generation else {
            connection.stop()
            return
        }
        if isSRTListener {
            connection.watchCallers { [weak self] added in self?.callerCounted(added, connection: generation) }
        }
        if let why = connection.start(onMessage: { [weak self] message in self?.handle(message, connection: generation) }) {
            teardown()
            throw MediaPubError.output(url, SecretMask.scrub(why, secretsOf: url))
        }
        // The server's addresses are looked up while rtmp2sink connects, so that the watch
        // sees the first data acknowledged at its first look.
        if case .rtmp = target { _ = serverAddresses(for: generation) }
    }

    /// Encoder streaming thread: pass a sample on to the current connection, which
    /// starts at zero with a keyframe. Never blocks on a network peer.
    func offer(_ sample: Sample, isVideo: Bool) {
        guard let (connection, generation) = state.withLock({ s in
            s.supervision.finishing ? nil : s.connection.map { ($0, s.connectionGeneration) }
        }) else { return }
        // `accepted` may run holding the connection's `audioPush`: it only records that the
        // output became publishing, which is told here, once that lock is released.
        var becamePublishing = false
        connection.offer(sample, isVideo: isVideo, accepted: { delivery in
            guard let publishing = accepted(delivery, connection: generation) else { return false }
            becamePublishing = becamePublishing || publishing
            return true
        }, overflowed: { diskStalled(connection: generation) })
        if becamePublishing { onState(self, .publishing, nil) }
    }

    /// A paced recording whose disk has taken nothing while a backlog built up (a hung
    /// or far too slow disk): given up, so that it holds nobody back.
    private func diskStalled(connection: Int) {
        var playlist: String? = nil
        if case .hls(let hls) = target { playlist = hls.playlist }
        let written = state.withLock { $0.supervision.isCurrent(connection) ? $0.recording?.path ?? playlist : nil }
        guard let written else { return }
        let megabytes = OutputConnection.diskBacklog / 1_000_000
        queue.async { [self] in
            fail(OutputFailure("writing \(written) stalled: the disk took nothing while \(megabytes) MB waited", .stalled),
                 connection: connection)
        }
    }

    /// A sample goes out (maybe holding the connection's `audioPush`): counted. A
    /// recording publishes from its first sample; RTMP and an SRT caller once the peer
    /// acknowledges data (the watch). An SRT listener has no peer until a viewer calls:
    /// one whose socket holds a moment after the first data is publishing.
    /// A sample of a connection that failed since (its disk filled) makes nothing publishing.
    /// Returns nil when the sample is refused (finishing), else whether the output became
    /// publishing: told by the caller, after the connection's lock is released.
    private func accepted(_ delivery: OutputConnection.Delivery, connection: Int) -> Bool? {
        let taken = state.withLock { s -> (becamePublishing: Bool, generation: Int)? in
            guard !s.supervision.finishing else { return nil }
            s.stats.handed += UInt64(delivery.bytes)
            let becamePublishing = !target.isNetwork && s.supervision.publishing(connection: connection)
            if !countsWrittenBytes, s.supervision.state == .publishing { s.stats.delivered(delivery.bytes) }
            return (becamePublishing, s.supervision.generation)
        }
        guard let taken else { return nil }
        if delivery.fixedBase, isSRTListener {
            queue.asyncAfter(deadline: .now() + 1.5) { [weak self] in self?.markPublishing(connection: taken.generation) }
        }
        return taken.becamePublishing
    }

    /// srtsink's thread: a caller of this listener connected (`added`) or went.
    private func callerCounted(_ added: Bool, connection: Int) {
        state.withLock { s in
            guard s.supervision.isCurrent(connection) else { return }
            _ = s.link.srtListener { $0.observe(callerAdded: added) }
        }
    }

    func markPublishing(connection: Int) {
        if state.withLock({ $0.supervision.publishing(connection: connection) }) { onState(self, .publishing, nil) }
    }

    /// Takes the current connection down (never holding `state`: its bus handler takes it).
    /// `superseded`: a retry or `ctl reconnect` replaces it, and nothing of it is wanted:
    /// an RTMP connection's sockets are closed first, and its connect is over before it
    /// stops (`RTMPSocketRelease`).
    func teardown(superseded: Bool = false) {
        let (connection, probe) = state.withLock { s in
            let connection = s.connection
            s.connection = nil
            s.link.rtmp { $0.connectionGone() }   // what the server acknowledged is about the current connection: none now
            s.stats.connectionEnded()
            return (connection, s.probe)
        }
        // shout2send closes its own socket however it stops (an Icecast output's probe only reads).
        if superseded, let connection, let probe, case .rtmp = target { releaseSocket(of: connection, probe) }
        TCPSocketClaims.shared.release(ObjectIdentifier(self))
        connection?.stop()   // stopped already when its socket was released: returns at once
    }

    /// Connects; a failure is reported (state and event, as for any failure) and returned.
    @discardableResult
    func connectOrFail() -> Error? {
        do {
            try connect()
            return nil
        } catch {
            fail(OutputFailure(thrown: error))
            return error
        }
    }

    /// Reports a failure and retries with backoff (network outputs) or gives up, as its
    /// cause decides (a refusal is retried on the slow end of the backoff, a missing element
    /// never; a full disk is retried like a network output). `connection`: the connection
    /// it is about (a later one makes it stale).
    func fail(_ failure: OutputFailure, connection: Int? = nil) {
        let message = SecretMask.scrub(failure.text, secretsOf: url)
        let outcome = state.withLock {
            $0.supervision.fail(OutputFailure(message, failure.cause), connection: connection, random: Double.random(in: 0..<1))
        }
        switch outcome {
        case .stale:
            return
        case .over:
            eos.signal()
        case .reported(let reported, let failed, let retryAfter):
            onState(self, reported, message)
            queue.async { [self] in
                // A `ctl reconnect` that got here first owns the pipeline now: leave it be.
                guard state.withLock({ $0.supervision.isCurrent(failed) }) else { return }
                teardown(superseded: true)
                guard let retryAfter else { return }
                queue.asyncAfter(deadline: .now() + retryAfter) { [self] in
                    // Superseded (a `ctl reconnect` got there first) or shutting down: nothing to do.
                    guard state.withLock({ $0.supervision.retryDue(after: failed) }) else { return }
                    connectOrFail()
                }
            }
        }
    }

    /// Reconnects at once (control `reconnect`), one reconnect at a time: asked while a
    /// connect is under way, or while another reconnect waits its turn or is being carried
    /// out (the connection it replaces closing), that one is the reconnect and nothing more
    /// is done. Decided, and said, before it returns.
    func reconnectNow() {
        let go = state.withLock { s -> Bool in
            let connecting = s.connection != nil && s.supervision.state != .publishing
            guard !s.reconnectQueued, !connecting, s.supervision.reconnectRequested() else { return false }
            s.reconnectQueued = true
            return true
        }
        guard go else { return }
        onState(self, .reconnecting, "asked to reconnect (ctl reconnect)")
        queue.async { [self] in
            connectOrFail()
            // Only now: asked meanwhile, a second one would have taken the connect just begun down.
            state.withLock { $0.reconnectQueued = false }
        }
    }
}

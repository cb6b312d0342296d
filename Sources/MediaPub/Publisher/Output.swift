import CGStreamer
import Foundation

/// The state of one output (SPEC §6).
public enum OutputState: String, Sendable {
    case connecting, publishing, reconnecting, failed, stopped
}

/// A snapshot of an output for status and metrics.
public struct OutputStatus: Sendable {
    /// Its `id:`, else its index.
    public var id: String
    public var url: String        // masked; a recording's file as written
    public var state: OutputState
    public var bytesSent: UInt64
    public var reconnects: Int
    public var bitrateKbps: Int
    public var error: String?
    /// An SRT caller's acknowledgements, round trip and losses (nil for other outputs).
    public var srt: SRTStats?
    /// An RTMP output's bytes the server's TCP stack acknowledged on this connection (nil when unknown).
    public var bytesAcked: Int?
}

/// One output: its own muxing pipeline (appsrc → parse → mux → sink) fed with
/// the encoded samples, and the supervisor that reconnects it with backoff.
/// A failure here never touches the encoder or the other outputs.
final class Output: @unchecked Sendable {
    let url: String
    let maskedURL: String
    /// The output's name in status, events, metrics and `ctl reconnect`: its `id:`, else its index.
    let id: String
    /// Whether `id` was given (else it is the index).
    let hasExplicitID: Bool
    let target: OutputTarget
    private let hasVideo: Bool
    /// AAC encoders prime with 1024 samples: the first decoded sound is that late, so
    /// pictures are stamped as late too and stay in sync in every player.
    private let videoDelay: Int
    private let reconnect: ReconnectConfig
    private let onState: (Output, OutputState, String?) -> Void
    private let queue: DispatchQueue

    private let lock = NSLock()
    /// Orders audio pushes: audio held until the first keyframe goes out before newer audio.
    private let audioPush = NSLock()
    private var pipeline: Pipeline?
    private var bus: Bus?
    private var videoSrc: AppSrc?
    private var audioSrc: AppSrc?
    private var base: UInt?
    /// Counts connections, so that errors of a torn-down one are not taken for the new one's.
    private var generation = 0
    private var early: [Sample] = []
    private var state: OutputState = .connecting
    private var lastError: String?
    private var bytes: UInt64 = 0
    private var reconnects = 0
    private var firstFailure: Date?
    private var connectedAt = Date()
    private var openedAt = Date()
    private var rateMark: (at: Date, bytes: UInt64) = (Date(), 0)
    private var rateKbps = 0
    /// Retries since the output last held a connection (the backoff's exponent).
    private var attempt = 0
    private var finishing = false
    /// The file a recording writes, created when the output opens.
    private var recording: RecordingFile?
    /// Checks that the recording's file is still there (file outputs), or reads an SRT caller's statistics.
    private var watch: DispatchSourceTimer?
    /// The last statistics of an SRT caller's connection, and when its peer last acknowledged.
    private var srtStats: SRTStats?
    private var lastAck = Date()
    /// RTMP: the server's address for reading TCP acknowledgements, what it acknowledged
    /// on this connection, and how much we had handed over at the last check.
    private lazy var tcpProbe: TCPAcknowledged? = { if case .rtmp(let u) = target { return TCPAcknowledged(rtmpURL: u) } else { return nil } }()
    private var tcpAcked: Int?
    private var bytesAtCheck: UInt64 = 0
    private var eos = DispatchSemaphore(value: 0)

    init(url: OutputURL, id: String, hasExplicitID: Bool = false, hasVideo: Bool, audioPriming: TimeInterval = 0,
         reconnect: ReconnectConfig, onState: @escaping (Output, OutputState, String?) -> Void) {
        self.url = url.text
        self.id = id
        self.hasExplicitID = hasExplicitID
        self.maskedURL = SecretMask.mask(url: url.text)
        self.target = url.target
        self.hasVideo = hasVideo
        self.videoDelay = Int(audioPriming * 1e9)
        self.reconnect = reconnect
        self.onState = onState
        queue = DispatchQueue(label: "output")
    }

    /// What people are shown: the masked URL, or the file actually written.
    var displayName: String {
        if case .file(let path, _) = target {
            lock.lock(); let written = recording?.path; lock.unlock()
            return "recording to " + (written ?? OutputTarget.expand(path, at: openedAt))
        }
        if case .srt(let url) = target, url.contains("mode=listener") { return "\(maskedURL) (viewers connect here)" }
        return maskedURL
    }

    var status: OutputStatus {
        lock.lock(); defer { lock.unlock() }
        // Bitrate over the last few seconds.
        let now = Date()
        if now.timeIntervalSince(rateMark.at) >= 2 {
            rateKbps = Int(Double(bytes - rateMark.bytes) * 8 / now.timeIntervalSince(rateMark.at) / 1000)
            rateMark = (now, bytes)
        }
        return OutputStatus(id: id, url: recording.map { "file://" + $0.path } ?? maskedURL, state: state,
                            bytesSent: bytes, reconnects: reconnects,
                            bitrateKbps: state == .publishing ? rateKbps : 0, error: lastError, srt: srtStats, bytesAcked: tcpAcked)
    }

    /// The URL shown: masked, and for a recording the file being written (strftime patterns expanded).
    /// Read from state callbacks, which `offer` makes while it holds `audioPush`: so it has a
    /// lock of its own, taken last and holding nothing (taking `lock` here deadlocked with
    /// the audio thread, which takes `lock` then `audioPush`).
    var shownURL: String {
        shownLock.lock(); defer { shownLock.unlock() }
        return shownPath.map { "file://" + $0 } ?? maskedURL
    }
    private let shownLock = NSLock()
    private var shownPath: String?

    /// When the recording went beside a file (or folder) that was already at its
    /// path: what was asked for and what is written instead.
    var renamedRecording: (requested: String, written: String)? {
        lock.lock(); defer { lock.unlock() }
        guard let recording, recording.renamed else { return nil }
        return (recording.requested, recording.path)
    }

    /// Opens the output: files at once (nothing of the recording may be lost),
    /// network outputs on the output's own queue (a slow server stalls nobody).
    func open() throws {
        openedAt = Date()
        if target.isNetwork {
            queue.async { [self] in connectOrFail() }
            if isSRTCaller { watchSRT() } else if case .rtmp = target { watchRTMP() }
        } else if let error = connectOrFail() {
            throw error
        } else if case .file = target {
            watchRecording()
        }
    }

    /// Once a second: a recording whose file (or folder) was removed mid-run would
    /// go on into a file nobody can open; it is noticed, said, and a new file begun.
    private func watchRecording() {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.setEventHandler { [weak self] in self?.checkRecording() }
        lock.lock(); watch = timer; lock.unlock()
        timer.resume()
    }

    /// An SRT output calling a listener: its health is what the peer acknowledges.
    private var isSRTCaller: Bool {
        guard case .srt(let url) = target else { return false }
        return !url.lowercased().contains("mode=listener")
    }

    /// Once a second: an SRT caller is publishing only once its peer acknowledges
    /// packets, and one whose peer acknowledges nothing for `reconnect.stall` while
    /// packets go out is torn down and reconnected (reason: stalled).
    private func watchSRT() {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.setEventHandler { [weak self] in self?.checkSRT() }
        lock.lock(); watch = timer; lock.unlock()
        timer.resume()
    }

    /// Once a second: what the RTMP server's TCP stack acknowledged; an output whose
    /// server acknowledges nothing for `reconnect.stall` while the encoder produces
    /// is torn down and reconnected (reason: stalled).
    private func watchRTMP() {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.setEventHandler { [weak self] in self?.checkRTMP() }
        lock.lock(); watch = timer; lock.unlock()
        timer.resume()
    }

    private func checkRTMP() {
        lock.lock()
        let produced = bytes > bytesAtCheck
        bytesAtCheck = bytes
        guard !finishing, let probe = tcpProbe, let sink = pipeline?.element(named: "sink"),
              let written = TCPAcknowledged.written(by: sink), let queued = probe.sendQueue() else {
            lock.unlock(); return
        }
        let now = Date()
        let acked = max(0, written - queued)
        let grew = acked > (tcpAcked ?? 0)
        if grew || tcpAcked == nil { lastAck = now }
        tcpAcked = acked
        let connection = generation
        let stalled = state == .publishing && !grew && produced && now.timeIntervalSince(lastAck) >= reconnect.stall
        lock.unlock()
        if stalled {
            fail("stalled: the server acknowledged nothing for \(MediaTime.formatDuration(reconnect.stall))", connection: connection)
        }
    }

    private func checkSRT() {
        lock.lock()
        guard !finishing, let sink = pipeline?.element(named: "sink"), let stats = SRTStats.read(from: sink) else {
            lock.unlock(); return
        }
        let previous = srtStats ?? SRTStats()
        let now = Date()
        let acked = stats.acksReceived > previous.acksReceived
        if acked { lastAck = now }
        srtStats = stats
        let connection = generation
        let firstAck = acked && (state == .connecting || state == .reconnecting)
        let stalled = state == .publishing && !acked && stats.packetsSent > previous.packetsSent
            && now.timeIntervalSince(lastAck) >= reconnect.stall
        lock.unlock()
        if firstAck { markPublishing(connection: connection) }
        if stalled {
            fail("stalled: the peer acknowledged nothing for \(MediaTime.formatDuration(reconnect.stall))", connection: connection)
        }
    }

    private func checkRecording() {
        lock.lock()
        let gone = recording.flatMap { !finishing && state == .publishing && !$0.isStillThere ? $0 : nil }
        if gone != nil {
            generation += 1   // the old file's pipeline has nothing more to say
            recording = nil
            reconnects += 1
            state = .reconnecting
            openedAt = Date()
        }
        lock.unlock()
        guard let gone else { return }
        onState(self, .reconnecting, "\(gone.path) was removed while being recorded: recording to a new file")
        connectOrFail()   // a new file at the asked-for path, its folder made again
    }

    private func connect() throws {
        teardown()   // never two pipelines for one output
        var location: String? = nil
        if case .file(let path, _) = target {
            // A file of this run's own: whatever is at the path already is never opened.
            lock.lock(); let made = recording; lock.unlock()
            let file: RecordingFile
            do { file = try made ?? RecordingFile.create(OutputTarget.expand(path, at: openedAt)) } catch {
                throw MediaPubError.output(url, MediaPubError.reason(of: error))
            }
            lock.lock(); recording = file; lock.unlock()
            shownLock.lock(); shownPath = file.path; shownLock.unlock()
            location = file.path
        } else if case .hls(let hls) = target {
            // The playlist's folder is made; segments are named for this run's start.
            try? FileManager.default.createDirectory(atPath: (hls.playlist as NSString).deletingLastPathComponent,
                                                     withIntermediateDirectories: true)
            location = OutputTarget.expand("%Y%m%d-%H%M%S", at: openedAt)
        }
        var parts: [String] = []
        let limits = target.isNetwork
            ? "max-bytes=16000000 block=false leaky-type=downstream"
            : "max-bytes=64000000 block=true"
        if hasVideo {
            parts.append("appsrc name=v format=time is-live=false \(limits) ! h264parse config-interval=-1 ! queue ! \(target.muxPad(video: true))")
        }
        parts.append("appsrc name=a format=time is-live=false \(limits) ! aacparse ! queue ! \(target.muxPad(video: false))")
        parts.append(target.muxAndSink(location: location))
        let pipeline = try Pipeline(description: parts.joined(separator: " "))
        let bus = pipeline.bus
        lock.lock()
        generation += 1
        let connection = generation
        self.pipeline = pipeline
        self.bus = bus
        videoSrc = pipeline.appSrc(named: "v")
        audioSrc = pipeline.appSrc(named: "a")
        base = nil
        srtStats = nil        // a new socket counts from zero
        tcpAcked = nil
        lastAck = Date()
        early = []
        connectedAt = Date()
        lock.unlock()
        if (try? pipeline.setState(.playing)) == nil {
            // The element that refused says why, on the bus (not watched yet, so still there).
            let why = bus.popError() ?? "cannot start"
            teardown()
            throw MediaPubError.output(url, SecretMask.scrub(why, secretsOf: url))
        }
        // Watched from here on: what was posted meanwhile waits on the bus.
        bus.start(name: "output") { [weak self] message in self?.handle(message, connection: connection) }
    }

    /// Encoder streaming thread: pass a sample on, rebased so that every
    /// connection starts at zero with a keyframe. Never blocks on a network peer.
    func offer(_ sample: Sample, isVideo: Bool) {
        // Work on running time: encoders may offset their PTS (x264enc starts at 1000 h).
        guard let buffer = sample.buffer, let rawPTS = buffer.pts?.ns, let pts = sample.runningTime?.ns, rawPTS >= pts else { return }
        let segmentOffset = rawPTS - pts
        lock.lock()
        guard !finishing, let src = isVideo ? videoSrc : audioSrc else { lock.unlock(); return }
        var backlog: [Sample] = []
        if base == nil {
            if !isVideo && hasVideo {
                // Audio encodes faster than video: hold it until the first keyframe fixes the base.
                early.append(sample)
                if early.count > 2000 { early.removeFirst() }
                lock.unlock()
                return
            }
            if isVideo && !buffer.isKeyframe { lock.unlock(); return }
            base = pts
            if target.isNetwork && !isSRTCaller {
                // rtmp2sink (and srtsink as a listener) connect on the first data and report a refused or
                // lost connection from their own threads: one that holds a moment is publishing.
                // An SRT caller is publishing once its peer acknowledges (watchSRT).
                let connection = generation
                queue.asyncAfter(deadline: .now() + 1.5) { [weak self] in self?.markPublishing(connection: connection) }
            }
            backlog = early
            early = []
        }
        guard let base, pts >= base else { lock.unlock(); return }
        bytes += UInt64(buffer.size)
        let becamePublishing = !target.isNetwork && (state == .connecting || state == .reconnecting)
        if becamePublishing { state = .publishing; lastError = nil }
        let audio = audioSrc
        // Lock order: lock, then audioPush. Held audio must go out before newer audio.
        if !isVideo || !backlog.isEmpty { audioPush.lock() }
        lock.unlock()
        if becamePublishing { onState(self, .publishing, nil) }
        if isVideo {
            let shift = Int(segmentOffset + base)
            // Pictures are shown as late as the AAC priming. A fragmented MP4 starts every
            // track's decoding at zero (no edit list), so there the delay rides on the
            // presentation time alone (a composition offset), which it keeps.
            let delayed = target.delaysByCompositionOffset
                ? buffer.shifted(pts: shift - videoDelay, dts: shift) : buffer.shifted(by: shift - videoDelay)
            src.push(sample: Sample(buffer: delayed, caps: sample.caps))
            guard !backlog.isEmpty else { return }
            for held in backlog {
                guard let b = held.buffer, let raw = b.pts?.ns, let t = held.runningTime?.ns, raw >= t, t >= base else { continue }
                audio?.push(sample: Sample(buffer: b.shifted(by: Int(raw - t + base)), caps: held.caps))
            }
            audioPush.unlock()
        } else {
            src.push(sample: Sample(buffer: buffer.shifted(by: Int(segmentOffset + base)), caps: sample.caps))
            audioPush.unlock()
        }
    }

    private func markPublishing(connection: Int) {
        lock.lock()
        let changed = connection == generation && (state == .connecting || state == .reconnecting)
        if changed { state = .publishing; lastError = nil }   // recovered: the last error is history
        lock.unlock()
        if changed { onState(self, .publishing, nil) }
    }

    private func handle(_ message: BusMessage, connection: Int) {
        lock.lock()
        let stale = connection != generation
        lock.unlock()
        if stale { return }  // a torn-down connection's last words
        switch message {
        case .endOfStream:
            eos.signal()
        case .error(let error):
            let (source, text) = (error.source, error.message)
            lock.lock(); let neverGotGoing = state != .publishing; lock.unlock()
            if case .srt(let srtURL) = target, neverGotGoing {
                // srtsink does not say why a listener refused it: ask the listener (off this thread).
                queue.async { [self] in
                    switch SRTRejection.outcome(for: srtURL) {
                    case .refused(let why): fail("rejected: \(why)", rejected: true, connection: connection)
                    case .noAnswer(let why): fail(why, connection: connection)
                    case .accepted: fail("\(source): \(text)", connection: connection)
                    }
                }
                return
            }
            lock.lock(); let written = recording?.path; lock.unlock()
            // A recording's trouble names its file (a full disk: "No space left on the resource.").
            fail(written.map { "writing \($0) failed: \(text)" } ?? "\(source): \(text)")
        default:
            break
        }
    }

    private func teardown() {
        lock.lock()
        let pipeline = self.pipeline, bus = self.bus
        self.pipeline = nil; self.bus = nil; videoSrc = nil; audioSrc = nil
        lock.unlock()
        bus?.stop()
        pipeline?.stop()
    }

    /// Connects; a failure is reported (state and event, as for any failure) and returned.
    @discardableResult
    private func connectOrFail() -> Error? {
        do {
            try connect()
            return nil
        } catch {
            switch error {
            case MediaPubError.missingElement:
                fail("\(error)", forGood: true)   // no retry brings an element that is not installed
            case MediaPubError.output(_, let why):
                fail(why)   // the state report names the output already
            default:
                fail("\(error)")
            }
            return error
        }
    }

    /// Reports a failure and retries with backoff (network outputs) or gives up.
    /// `rejected`: the server refused us (key, passphrase): retried on the slow end of
    /// the backoff. `connection`: the connection it is about (a later one makes it stale).
    private func fail(_ why: String, forGood: Bool = false, rejected: Bool = false, connection: Int? = nil) {
        let message = SecretMask.scrub(why, secretsOf: url)
        lock.lock()
        if let connection, connection != generation { lock.unlock(); return }
        if finishing, state != .failed, state != .stopped {
            // Failing while the file is finished (the last writes hit a full disk): it is
            // reported failed, with why, by `finish`.
            lastError = message
            state = .failed
        }
        if finishing || state == .failed || state == .stopped { lock.unlock(); eos.signal(); return }
        lastError = message
        generation += 1
        let failedConnection = generation
        let now = Date()
        if now.timeIntervalSince(connectedAt) > 30 { firstFailure = nil; attempt = 0 }
        if firstFailure == nil { firstFailure = now }
        let givingUp = forGood || !target.isNetwork || now.timeIntervalSince(firstFailure!) >= reconnect.giveUpAfter
        state = givingUp ? .failed : .reconnecting
        attempt += 1
        // Refused by the server (key, passphrase): the slow end of the backoff, not hammered.
        let delay = reconnect.delay(attempt: rejected ? 64 : attempt, random: Double.random(in: 0..<1))
        lock.unlock()
        onState(self, givingUp ? .failed : .reconnecting, message)
        queue.async { [self] in
            // A `ctl reconnect` that got here first owns the pipeline now: leave it be.
            lock.lock(); let superseded = generation != failedConnection; lock.unlock()
            if superseded { return }
            teardown()
            guard !givingUp else { return }
            queue.asyncAfter(deadline: .now() + delay) { [self] in
                lock.lock()
                // Superseded (a `ctl reconnect` got there first) or shutting down: nothing to do.
                let stale = finishing || generation != failedConnection || state != .reconnecting
                if !stale { reconnects += 1 }
                lock.unlock()
                if stale { return }
                connectOrFail()
            }
        }
    }

    /// Reconnects at once (control `reconnect`).
    func reconnectNow() {
        queue.async { [self] in
            lock.lock()
            let stop = finishing || state == .stopped
            if !stop {
                generation += 1   // supersedes a pending backoff retry
                reconnects += 1
                attempt = 0
                state = .reconnecting
            }
            lock.unlock()
            if stop { return }
            connectOrFail()
        }
    }

    /// Sends EOS and waits (bounded) for the muxer to finish the file or stream.
    func finish(timeout: TimeInterval) {
        lock.lock()
        finishing = true
        let before = state
        watch?.cancel()
        watch = nil
        let v = videoSrc, a = audioSrc, running = pipeline != nil
        lock.unlock()
        if running {
            v?.endOfStream()
            a?.endOfStream()
            _ = eos.wait(timeout: .now() + timeout)
            if case .srt = target {
                // SRT live mode drops what is still unsent when the socket closes: let it drain.
                Thread.sleep(forTimeInterval: 1.0)
            }
        }
        queue.sync { teardown() }
        lock.lock()
        let final: OutputState = state == .failed ? .failed : .stopped
        state = final
        let wroteNothing = bytes == 0
        let recording = self.recording
        let why = final == .failed ? lastError : nil
        lock.unlock()
        if wroteNothing {
            // A recording that never got a picture or a sound is no file at all; only
            // the file this run created goes, never what stood at the path before.
            recording?.removeIfStillOurs()
        }
        if final != before { onState(self, final, why) }   // a failed output was reported failed once
    }
}

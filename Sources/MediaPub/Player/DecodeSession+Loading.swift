import Foundation

/// Loading, on a thread of its own: the source made readable (a FIFO's writer
/// waited for, bytes fetched for `memory: true`), then preroll, position and rate, play.
extension DecodeSession {
    /// Nothing prerolled within this long: the source fails.
    static let prerollSeconds: TimeInterval = 30
    /// Prerolled, the first buffers come at once; after the seek to a start position
    /// they are decoded first. Not there within this long, the capture takes them later.
    static let firstBufferSeconds: TimeInterval = 5

    /// Starts decoding: bus messages go to the bus's own queue, loading to a thread of its own.
    func start() {
        let tags = self.tags
        pipeline.bus.start(name: "decode", onPostingThread: { tags.note($0) }) { [weak self] message in self?.handle(message) }
        let thread = Thread { [weak self] in self?.load() }
        thread.name = "load"
        thread.start()
    }

    private func fail(_ text: String, _ cause: SourceFailure.Cause) {
        onEvent(self, .failed(SourceFailure(text, cause)))
    }

    private func load() {
        do { try spec.checkReadable(source) } catch { fail(MediaPubError.reason(of: error), .unplayable); return }
        defer { closeFIFO() }
        if case .none = memory, let path = spec.localPath, let problem = waitForWriter(path) {
            onEvent(self, .failed(problem))
            return
        }
        if isClosed { return }  // not while the pipeline would open a FIFO nobody writes to
        switch memory {
        case .none:
            if case .uri(let uri, _) = spec, HLSPlaylist.isPlaylist(uri) { readPlaylist(uri) }
        case .data(let data):
            serveFromMemory(data)
        case .load:
            do {
                guard let data = try fetchWhole() else { return }
                if isClosed { return }
                serveFromMemory(data)
            } catch let error as RemoteFetch.Failure {
                fail(error.reason, .transfer(error.problem))
                return
            } catch {
                fail(MediaPubError.reason(of: error), .unplayable)
                return
            }
        }
        preroll()
    }

    /// The resource's bytes for `memory: true`; nil when it failed (reported).
    private func fetchWhole() throws -> Data? {
        if let path = spec.localPath {
            guard let bytes = FileManager.default.contents(atPath: path) else {
                fail("cannot read the file", .unplayable)
                return nil
            }
            return bytes
        } else if case .uri(let uri, _) = spec, HLSPlaylist.isPlaylist(uri) {
            // The whole presentation, fetched segment by segment.
            return try HLSPlaylist.fetchWhole(uri) { number, count, reason in
                onEvent(self, .warning("segment \(number) of \(SecretMask.mask(url: uri)) could not be fetched (\(reason)): skipped"))
            }
        } else if case .uri(let uri, _) = spec {
            return try RemoteFetch().get(uri)
        }
        return Data()
    }

    /// Prerolled within `prerollSeconds`, unless the source gives nothing for
    /// `stallSeconds` before; then to the start position and rate, and playing.
    private func preroll() {
        guard (try? pipeline.setState(.paused)) != nil else {
            return // the bus reports the error
        }
        state.withLock { $0.lastSourceData = MonotonicInstant.now }
        let began = MonotonicInstant.now
        var result: StateChange? = .async
        while !isClosed, MonotonicInstant.now.timeIntervalSince(began) < DecodeSession.prerollSeconds {
            result = try? pipeline.waitForState(timeout: ClockTime(seconds: 0.5))
            if result != .async { break }
            if let silence = sourceSilence, silence >= DecodeSession.stallSeconds {
                state.withLock { $0.broken = true }
                onEvent(self, .failed(DecodeSession.stalled))
                return
            }
        }
        if isClosed { return }
        switch result {
        case nil: return
        case .async?:
            fail("nothing to decode within 30 s (server not answering, or the stream is empty)", .prerollTimeout)
            return
        default: break
        }
        let seekTo = startAt - Double(offsetMs) / 1000
        if result != .noPreroll, seekTo > 0 || speed != 1 {
            pipeline.seek(to: ClockTime(seconds: seekTo), rate: speed)
        }
        _ = try? pipeline.setState(.playing)
        if result == .noPreroll, spec.isStream { waitForStreams() }
        takeFirst(wait: DecodeSession.firstBufferSeconds)
        _ = durationMs  // kept as `lengthMs` before it is ready: where a crossfade begins (MediaPlayer+Crossfade)
        let nothing = state.withLock { s in
            let nothing = s.audioSink == nil && s.videoSink == nil
            if !nothing { s.ready = true }
            return nothing
        }
        if nothing { fail("no audio or video stream", .unplayable) } else { onEvent(self, .ready) }
    }

    /// A live feed that waits for its sender (an SRT listener) has no decoded stream
    /// until one comes: waited for as long as it takes, until it breaks or is closed.
    private func waitForStreams() {
        while !isClosed, state.withLock({ $0.audioSink == nil && $0.videoSink == nil && !$0.broken }) {
            _ = sinkArrived.wait(timeout: .now() + 1)
        }
    }

    private func serveFromMemory(_ data: Data) {
        guard !data.isEmpty else { fail("empty resource", .unplayable); return }
        pipeline.appSrc(named: "memsrc")?.serve(data)
    }

    /// Seconds the source element has given nothing, while it is watched and has not ended.
    private var sourceSilence: TimeInterval? {
        state.withLock { s in
            guard s.watchesSource, !s.sourceEnded else { return nil }
            return MonotonicInstant.now.timeIntervalSince(s.lastSourceData)
        }
    }

    /// Opening a FIFO for reading waits for a writer, for ever: the pipeline would
    /// hang in its start. A writer is waited for here, `stallSeconds` at most; the
    /// FIFO stays open on our side until the pipeline has it open too (so what a
    /// quick writer wrote is not lost). Returns a problem, or nil to go on.
    private func waitForWriter(_ path: String) -> SourceFailure? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFIFO else { return nil }
        let fd = open(path, O_RDONLY | O_NONBLOCK)
        guard fd >= 0 else { return SourceFailure("cannot read the FIFO", .unplayable) }
        state.withLock { $0.fifo = fd }
        let began = MonotonicInstant.now
        while MonotonicInstant.now.timeIntervalSince(began) < DecodeSession.stallSeconds {
            if isClosed { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let n = poll(&p, 1, 250)
            if n > 0, p.revents & Int16(POLLIN) != 0 { return nil }
            // A writer came and left without a word: wait for the next one.
            if n > 0 { usleep(250_000) }
        }
        return SourceFailure("\(DecodeSession.stalledMessage): nothing writes to the FIFO", .stalled)
    }

    private func closeFIFO() {
        let fd = state.withLock { s in
            defer { s.fifo = -1 }
            return s.fifo
        }
        if fd >= 0 { Foundation.close(fd) }
    }
}

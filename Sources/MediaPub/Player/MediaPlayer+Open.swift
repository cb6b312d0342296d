import Foundation

/// Opening a session (docs/design.md, The player's deck): building its pipeline
/// (`gst_parse_launch`) takes milliseconds and may wait on the library, so it is never done
/// under the player's lock nor on the timeline thread. Under the lock the player only asks
/// for one, numbered; the pipeline is built on the player's `opener` queue, without the
/// lock; and the session is installed under the lock only if what asked for it still wants
/// it (the same number: nothing replaced it meanwhile), as an output's connect is. A
/// session no longer wanted is closed unused.
extension MediaPlayer {
    /// What a session is opened for.
    enum OpenPurpose: Sendable, Equatable {
        /// The current item (`State.currentOpening`).
        case current
        /// The next item, prepared ahead (`State.upcoming`).
        case upcoming
        /// The load (a skip, a reopening) of this ticket (`PendingLoad.session`).
        case load(ticket: Int)
        /// The cue of this ticket (`PendingCue.session`).
        case cue(ticket: Int)
    }

    /// Everything the pipeline is built from, read under the lock when it was asked for.
    struct OpenRequest: Sendable {
        let generation: UInt64
        let purpose: OpenPurpose
        let source: String
        let startAt: TimeInterval
        let memory: DecodeSession.Memory
        let wantsVideo: Bool
        let speed: Double
        let pitch: Double
    }

    /// Under the lock: `source` is opened at `startAt` for `purpose`, off the lock. Returns
    /// the open's number (what is to receive the session keeps it: `State.currentOpening`, `NextItem`).
    @discardableResult
    func open(_ source: String, startAt: TimeInterval, memory: DecodeSession.Memory, for purpose: OpenPurpose,
              _ s: inout State) -> UInt64 {
        s.opens &+= 1
        let request = OpenRequest(generation: s.opens, purpose: purpose, source: source, startAt: startAt, memory: memory,
                                  wantsVideo: feedsVideo || s.taps.wantsVideo, speed: s.config.speed, pitch: s.config.pitch)
        opener.async { [weak self] in self?.build(request) }
        return request.generation
    }

    /// How the current item is held in memory: bytes given with `load(data:)`, or read at load (`memory: true`).
    func memoryKind(_ s: borrowing State) -> DecodeSession.Memory {
        s.memoryData.map { .data($0) } ?? (s.config.memory ? .load : .none)
    }

    /// On the opener queue, holding no lock: the pipeline built, then installed.
    private func build(_ r: OpenRequest) {
        let built = Result {
            try DecodeSession(source: r.source, format: format, wantsVideo: r.wantsVideo, speed: r.speed, pitch: r.pitch,
                              startAt: r.startAt, memory: r.memory) { [weak self] session, event in
                // Bus, loader and streaming threads only hand the event over: they never wait for the player.
                self?.queue.async { [weak self, weak session] in
                    guard let self, let session else { return }
                    self.sessionEvent(event, from: session)
                }
            }
        }
        let unwanted = state.withLock { s -> DecodeSession? in install(built, r, &s) }
        unwanted?.close()  // never started: closed here, on the opener queue
    }

    /// Under the lock: the session built for `r` takes its place if that still waits for
    /// it, and starts; else it is returned, to be closed. A failure to build it is the
    /// failure of what asked for it.
    private func install(_ built: Result<DecodeSession, Error>, _ r: OpenRequest, _ s: inout State) -> DecodeSession? {
        let session = try? built.get()
        switch r.purpose {
        case .current:
            guard s.currentOpening == r.generation else { return session }
            s.currentOpening = nil
        case .upcoming:
            guard s.upcoming?.opening == r.generation else { return session }
        case .load(let ticket):
            guard let pending = s.pendingLoad, pending.ticket == ticket, pending.session == nil else { return session }
        case .cue(let ticket):
            guard let cue = s.cue, cue.ticket == ticket, cue.session == nil else { return session }
        }
        guard let session else {
            if case .failure(let error) = built { openFailed(r, SourceFailure(MediaPubError.reason(of: error), .unplayable), &s) }
            return nil
        }
        switch r.purpose {
        case .current: s.current = session
        case .upcoming: s.upcoming?.stage = .opened(session)
        case .load: s.pendingLoad?.session = session
        case .cue: s.cue?.session = session
        }
        session.start()
        s.waiters.wakeAll()  // a tick may wait for it (the next item of a crossfade)
        return nil
    }

    /// Under the lock: no session could be made for `r`.
    private func openFailed(_ r: OpenRequest, _ failure: SourceFailure, _ s: inout State) {
        switch r.purpose {
        case .current:
            // Only while the player still waits for that item.
            guard s.phase == .loading || s.phase == .paused, s.current == nil, s.playlist.current == r.source else { return }
            itemFailed(source: r.source, failure, &s)
        case .upcoming:
            dropUpcoming(&s)  // it fails again, as the current item, when its turn comes
        case .load(let ticket):
            guard let pending = s.pendingLoad else { return }
            s.pendingLoad = nil
            pendingFailed(ticket, pending.kind, pending.playlist, source: r.source, failure, &s)
        case .cue(let ticket):
            guard let cue = s.cue else { return }
            s.cue = nil
            cueFailed(ticket, source: r.source, failure, cue.onSettled, &s)
        }
    }
}

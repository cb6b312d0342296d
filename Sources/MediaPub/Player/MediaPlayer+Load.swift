import Foundation

/// `load`: the new source is prepared in a session of its own beside the item
/// that plays, which goes on meanwhile. The new one takes over once it has its
/// first picture and sound in hand (`DecodeSession.takeFirst`), between two ticks
/// of the capture: no black frame, no silence. One that cannot be loaded is
/// dropped and leaves the player as it was (docs/control.md, `load`).
extension MediaPlayer {
    /// A load on its way: the session being prepared and what becomes of the player once it is ready.
    struct PendingLoad {
        let ticket: Int
        let session: DecodeSession
        let playlist: Playlist
        let memoryData: Data?
    }

    /// How a load (by its ticket) went, as far as it is known.
    public enum LoadOutcome: Sendable, Equatable {
        /// Still being prepared; the player plays what it played.
        case loading
        /// Refused, with why (the source named): nothing changed.
        case failed(String)
        /// It took over (or a later command took its place): the player's state now.
        case done(PlayerState)
    }

    /// Replaces the resource, once the new one is ready to play. Returns the
    /// load's ticket, for `waitForLoad`.
    @discardableResult
    public func load(source: String) -> Int {
        LibraryLog.addSecrets(of: [source])
        return state.withLock { s in
            prepareLoad(Playlist(source: source, repeat: s.config.repeat), memory: nil, &s)
        }
    }

    /// Decodes `data` from memory (`name` gives its kind by extension and names it in errors).
    @discardableResult
    public func load(data: Data, name: String) -> Int {
        state.withLock { s in
            prepareLoad(Playlist(source: "memory:\(name)", repeat: s.config.repeat), memory: data, &s)
        }
    }

    /// Waits (bounded) until the load of `ticket` is known.
    public func waitForLoad(_ ticket: Int, timeout: TimeInterval) -> LoadOutcome {
        state.wait(until: Date().addingTimeInterval(timeout)) { $0.pendingLoad?.ticket == ticket }
        return state.withLock { s in
            if s.pendingLoad?.ticket == ticket { return .loading }
            if let failed = s.failedLoad, failed.ticket == ticket { return .failed(failed.why) }
            return .done(s.phase)
        }
    }

    /// Opens the new source in a session of its own (a load before it is given up).
    private func prepareLoad(_ list: Playlist, memory: Data?, _ s: inout State) -> Int {
        dropPendingLoad(&s)
        s.loadsAsked += 1
        let ticket = s.loadsAsked
        let source = list.current
        do {
            let kind: DecodeSession.Memory = memory.map { .data($0) } ?? (s.config.memory ? .load : .none)
            let session = try newSession(source, startAt: s.config.startAt, memory: kind, s)
            s.pendingLoad = PendingLoad(ticket: ticket, session: session, playlist: list, memoryData: memory)
            session.start()
        } catch {
            loadFailed(ticket, source: source, SourceFailure(MediaPubError.reason(of: error), .unplayable), &s)
        }
        return ticket
    }

    /// Gives up the load on its way, if any (a later load, stop, next or previous takes its place).
    func dropPendingLoad(_ s: inout State) {
        guard let pending = s.pendingLoad else { return }
        s.pendingLoad = nil
        retire(pending.session)
        s.waiters.wakeAll()
    }

    /// On the player's queue, under the lock: what the session of the load on its way reported.
    func pendingLoadEvent(_ event: DecodeSession.Event, _ pending: PendingLoad, _ s: inout State) {
        switch event {
        case .ready:
            takeOver(pending, &s)
        case .failed(let failure):
            s.pendingLoad = nil
            retire(pending.session)
            loadFailed(pending.ticket, source: pending.session.source, failure, &s)
        case .warning(let text):
            emit(.warning("player \(id): \(text)"), s)
        case .decodedAll, .tags, .restarted:
            break  // read from the session when it takes over
        }
    }

    private func loadFailed(_ ticket: Int, source: String, _ failure: SourceFailure, _ s: inout State) {
        let why = failureText(source: source, failure)
        s.failedLoad = (ticket, why)
        let playing = s.phase == .playing || s.phase == .paused ? "; still playing \(SecretMask.mask(url: s.playlist.current))" : ""
        emit(.warning("player \(id): cannot load \(why)\(playing)"), s)
        s.waiters.wakeAll()
    }

    /// The loaded source, ready, becomes the player's item: the one that played goes.
    private func takeOver(_ pending: PendingLoad, _ s: inout State) {
        s.pendingLoad = nil
        adopt(pending.session, playlist: pending.playlist, memoryData: pending.memoryData, &s)
    }

    /// A session prepared beside the current item (a load's, a cue's), ready, becomes the
    /// player's current item, playing: the one that played goes. Its `player.track` is sent.
    func adopt(_ session: DecodeSession, playlist: Playlist, memoryData: Data?, _ s: inout State) {
        closeSessions(&s)
        s.current = session
        s.playlist = playlist
        s.memoryData = memoryData
        s.frozenFrame = nil
        s.currentReady = true
        s.lastProgressMs = nil
        s.stalled = .zero
        s.starvedSince = nil
        s.policy.itemChosen()
        s.policy.itemPlays()
        setState(.playing, &s)
        s.playedSinceStart = true
        let (index, source, tags) = (s.playlist.index, s.playlist.current, session.currentTags)
        s.sentTags = tags
        emit({ .track(index: index, source: source, durationMs: $0, tags: tags) }, durationOf: session, s)
        // A short item may have decoded to its end while it was prepared.
        if session.hasDecodedAll { preloadNext(&s) }
        s.waiters.wakeAll()
    }
}

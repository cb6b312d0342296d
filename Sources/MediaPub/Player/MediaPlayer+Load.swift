import Foundation

/// `load`: the new source is prepared in a session of its own beside the item
/// that plays, which goes on meanwhile. The new one takes over once it has its
/// first picture and sound in hand (`DecodeSession.takeFirst`), between two ticks
/// of the capture: no black frame, no silence. One that cannot be loaded is
/// dropped and leaves the player as it was (docs/control.md, `load`). The commands
/// that change what plays otherwise go the same way (`MediaPlayer+Switch`).
extension MediaPlayer {
    /// A load on its way: the session being prepared and what becomes of the player once it is ready.
    struct PendingLoad {
        let ticket: Int
        /// nil until opened (`MediaPlayer+Open`).
        var session: DecodeSession?
        let playlist: Playlist
        let memoryData: Data?
        var kind = Kind.load
        /// Where in its item it was opened (seconds).
        var startAt: TimeInterval = 0
        /// The output tick the player was at when it was asked for.
        var askedAtTick: UInt64 = 0

        enum Kind: Equatable {
            /// `load`: a source in place of the player's.
            case load
            /// `next`, `previous`: the item of the playlist they moved to.
            case skip
            /// The current item again, in a session of its own (seek, speed, pitch): no new track.
            case reposition
        }
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
            prepare(Playlist(source: source, repeat: s.config.repeat), startAt: s.config.startAt, memory: nil, kind: .load, &s)
        }
    }

    /// Decodes `data` from memory (`name` gives its kind by extension and names it in errors).
    @discardableResult
    public func load(data: Data, name: String) -> Int {
        state.withLock { s in
            prepare(Playlist(source: "memory:\(name)", repeat: s.config.repeat), startAt: s.config.startAt, memory: data,
                    kind: .load, &s)
        }
    }

    /// Waits (bounded) until the load of `ticket` is known.
    public func waitForLoad(_ ticket: Int, timeout: TimeInterval) -> LoadOutcome {
        state.wait(until: MonotonicInstant.now.addingTimeInterval(timeout)) { $0.pendingLoad?.ticket == ticket }
        return state.withLock { s in
            if s.pendingLoad?.ticket == ticket { return .loading }
            if let failed = s.failedLoad, failed.ticket == ticket { return .failed(failed.why) }
            return .done(s.phase)
        }
    }

    /// Opens `list`'s current item at `startAt` in a session of its own, to take over as
    /// `kind` says once ready (what was on its way before is given up). Returns its ticket.
    func prepare(_ list: Playlist, startAt: TimeInterval, memory: Data?, kind: PendingLoad.Kind, _ s: inout State) -> Int {
        dropPendingLoad(&s)
        s.loadsAsked += 1
        let ticket = s.loadsAsked
        let memoryKind: DecodeSession.Memory = memory.map { .data($0) } ?? (s.config.memory ? .load : .none)
        s.pendingLoad = PendingLoad(ticket: ticket, session: nil, playlist: list, memoryData: memory, kind: kind,
                                    startAt: startAt, askedAtTick: s.nextTick)
        open(list.current, startAt: startAt, memory: memoryKind, for: .load(ticket: ticket), &s)
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
    func pendingLoadEvent(_ event: DecodeSession.Event, _ pending: PendingLoad, from session: DecodeSession, _ s: inout State) {
        switch event {
        case .ready:
            s.pendingLoad = nil
            if pending.kind == .reposition {
                replaceCurrent(with: session, askedAtTick: pending.askedAtTick, &s)
            } else {
                adopt(session, playlist: pending.playlist, memoryData: pending.memoryData, &s)
            }
        case .failed(let failure):
            s.pendingLoad = nil
            retire(session)
            pendingFailed(pending.ticket, pending.kind, pending.playlist, source: session.source, failure, &s)
        case .warning(let text):
            emit(.warning("player \(id): \(text)"), s)
        case .decodedAll, .tags, .restarted:
            break  // read from the session when it takes over
        }
    }

    /// What was prepared could not be opened: a load or a reopening of the current item
    /// is refused and leaves the player as it was; the item a skip moved to fails as the
    /// current item does (`RetryPolicy`: retried, skipped...).
    func pendingFailed(_ ticket: Int, _ kind: PendingLoad.Kind, _ list: Playlist, source: String,
                               _ failure: SourceFailure, _ s: inout State) {
        let why = failureText(source: source, failure)
        s.failedLoad = (ticket, why)
        s.waiters.wakeAll()
        if kind == .skip {
            closeSessions(&s)
            s.playlist = list
            s.currentReady = false
            setState(.loading, &s)
            itemFailed(source: source, failure, &s)
            return
        }
        let playing = s.phase == .playing || s.phase == .paused ? "; still playing \(SecretMask.mask(url: s.playlist.current))" : ""
        emit(.warning("player \(id): cannot \(kind == .load ? "load" : "reopen") \(why)\(playing)"), s)
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
        keepUpWithSettings(&s)
    }
}

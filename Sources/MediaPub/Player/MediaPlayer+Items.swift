import Foundation

/// The player's items: opening the current one in a decoding session, preparing
/// the next one ahead (gapless handover), going on after an item's end, and the
/// events its sessions report. Every function here runs under the player's lock
/// (it takes the state `inout`), except `sessionEvent`, which takes it.
extension MediaPlayer {
    /// Opens `playlist.current` as the current session.
    func openCurrent(_ s: inout State) {
        closeSessions(&s)
        s.currentReady = false
        setState(.loading, &s)
        s.current = makeSession(s.playlist.current, startAt: s.config.startAt, s)
        s.current?.start()
    }

    /// The current item again, from `ms`.
    func reopenCurrent(atMs ms: Int, _ s: inout State) {
        let resume = s.phase
        closeSessions(&s)
        s.currentReady = false
        s.current = makeSession(s.playlist.current, startAt: Double(ms) / 1000, s)
        s.current?.start()
        setState(resume == .paused ? .paused : .loading, &s)
    }

    /// The current item again from `ms`, in a new session that goes on with the item (no new track).
    func continueCurrent(atMs ms: Int, _ s: inout State) {
        retire(s.current)
        s.current = nil
        s.resumeAtMs = nil
        s.currentReady = false
        s.lastProgressMs = nil
        s.continuing = true
        setState(s.phase == .paused ? .paused : .loading, &s)
        s.current = makeSession(s.playlist.current, startAt: Double(ms) / 1000, s)
        s.current?.start()
    }

    func makeSession(_ source: String, startAt: TimeInterval, _ s: borrowing State) -> DecodeSession? {
        do {
            let memory: DecodeSession.Memory = s.memoryData.map { .data($0) } ?? (s.config.memory ? .load : .none)
            return try newSession(source, startAt: startAt, memory: memory, s)
        } catch {
            let failure = SourceFailure(MediaPubError.reason(of: error), .unplayable)
            queue.async { [weak self] in self?.itemFailed(source: source, failure) }
            return nil
        }
    }

    /// A session for `source` whose events reach `sessionEvent` on the player's queue.
    func newSession(_ source: String, startAt: TimeInterval, memory: DecodeSession.Memory,
                    _ s: borrowing State) throws -> DecodeSession {
        try DecodeSession(source: source, format: format, wantsVideo: feedsVideo || s.taps.wantsVideo,
                          speed: s.config.speed, pitch: s.config.pitch, startAt: startAt,
                          memory: memory) { [weak self] session, event in
            // Bus, loader and streaming threads only hand the event over: they never wait for the player.
            self?.queue.async { [weak self, weak session] in
                guard let self, let session else { return }
                self.sessionEvent(event, from: session)
            }
        }
    }

    func closeSessions(_ s: inout State) {
        if s.pendingLoad?.kind == .reposition { dropPendingLoad(&s) }  // it reopens the item that goes
        retire(s.current)
        s.current = nil
        dropUpcoming(&s)
        dropOutgoing(&s)
        dropFadingOut(&s)
        s.resumeAtMs = nil
        s.continuing = false
        s.endlessWait = nil
    }

    func dropUpcoming(_ s: inout State) {
        retire(s.upcoming)
        s.upcoming = nil
        s.upcomingPosition = nil
        s.upcomingFollowsOn = false
        s.waiters.wakeAll()  // a tick may wait for it to be ready (a crossfade)
    }

    /// Closes a session on a background queue: tearing a pipeline down takes
    /// milliseconds the capture thread must not lose.
    func retire(_ session: DecodeSession?) {
        guard let session else { return }
        DispatchQueue.global().async { session.close() }
    }

    /// Opens the next item ahead, so it starts gaplessly; at the playlist's end, the first
    /// item of what the player goes on with (`followOn`).
    func preloadNext(_ s: inout State) {
        guard s.upcoming == nil else { return }
        if s.playlist.following() == nil, let then = s.followOn {
            s.upcomingFollowsOn = true
            s.upcoming = try? newSession(then.current, startAt: 0, memory: s.config.memory ? .load : .none, s)
            s.upcoming?.start()
            return
        }
        guard s.playlist.followingIsDrawn, let (position, _) = s.playlist.following() else { return }
        var copy = s.playlist
        _ = copy.advance()
        s.upcomingPosition = position
        s.upcoming = makeSession(copy.current, startAt: 0, s)
        s.upcoming?.start()
    }

    /// The current session has nothing more to give: the item goes on (a segment
    /// left out), the next one takes over (prepared ahead, or opened now), or the
    /// list is over. Returns false when it is over.
    func advanceAfterEnd(_ s: inout State) -> Bool {
        // Drained before its failure reached the player (the event waits for the lock the capture holds).
        if s.resumeAtMs == nil, let session = s.current, let message = session.failure,
           skipSegment(of: session, failedWith: message, &s), s.current !== session {
            return true  // already going on in a new session
        }
        if let ms = s.resumeAtMs {
            // The same item goes on after a segment it had to leave out.
            continueCurrent(atMs: ms, &s)
            return true
        }
        // A cue waiting for this item's end (a block after one that finishes its item) lands here.
        if landAtItemEnd(&s) { return true }
        if s.pendingLoad?.kind == .reposition { dropPendingLoad(&s) }  // it reopens the item that ended
        retire(s.current)
        s.current = nil
        s.lastProgressMs = nil
        guard s.playlist.advance() else {
            guard let then = s.followOn else {
                dropUpcoming(&s)
                setState(.ended, &s)
                return false
            }
            // What the player goes on with comes in as a cut: faded in from where it starts.
            s.followOn = nil
            s.playlist = then
            s.memoryData = nil
            s.fadeInPending = true
            let next = s.upcomingFollowsOn ? s.upcoming : nil
            if next == nil { dropUpcoming(&s) }
            promote(next, &s)
            return true
        }
        var prepared = !s.upcomingFollowsOn && s.upcomingPosition == s.playlist.position ? s.upcoming : nil
        // Prepared, and ready, for an order changed since (`setRepeat` near the end): it plays all the same.
        if prepared == nil, let next = s.upcoming, !s.upcomingFollowsOn, next.isReady, let position = s.upcomingPosition {
            s.playlist.jump(toPosition: position)
            prepared = next
        }
        if prepared == nil { dropUpcoming(&s) }
        promote(prepared, &s)
        return true
    }

    /// Under the lock, the playlist moved to its next item: `next` (prepared ahead for it)
    /// becomes the current item, or the item is opened now.
    func promote(_ next: DecodeSession?, _ s: inout State) {
        guard let next else {
            s.current = makeSession(s.playlist.current, startAt: 0, s)
            s.currentReady = false
            setState(.loading, &s)
            s.current?.start()
            return
        }
        s.current = next
        s.upcoming = nil
        s.upcomingPosition = nil
        s.upcomingFollowsOn = false
        s.currentReady = next.isReady
        // A short item decodes to its end while it waits as the next one: its
        // `decodedAll` came while it was not current, so the item after it is prepared now.
        if next.hasDecodedAll { preloadNext(&s) }
        // A prerolled item is never reported as loading: one still finishing its preroll
        // goes on as playing (the capture waits for it, `awaitingItem`), and gets its
        // player.track once ready.
        if s.currentReady {
            let (index, source, tags) = (s.playlist.index, s.playlist.current, next.currentTags)
            s.sentTags = tags
            emit({ .track(index: index, source: source, durationMs: $0, tags: tags) }, durationOf: next, s)
        }
        // Prepared before a speed or pitch change: it catches up.
        keepUpWithSettings(&s)
    }

    /// A progress event each `progress_interval` of media time.
    func reportProgress(_ s: inout State) {
        guard s.phase == .playing, let session = s.current else { return }
        let position = session.positionMs
        let step = max(100, Int(s.config.progressInterval * 1000))
        if let last = s.lastProgressMs, position >= last, position - last < step { return }
        s.lastProgressMs = position - position % step
        emit({ .progress(positionMs: position, durationMs: $0) }, durationOf: session, s)
    }

    /// On the player's queue: what a session reported, decided and acted on under
    /// one hold of the lock (the capture thread may promote `upcoming` any time).
    func sessionEvent(_ event: DecodeSession.Event, from session: DecodeSession) {
        // A track event, built once the lock is let go (its duration is a query of the pipeline).
        let track: (@Sendable (Int?) -> PlayerEvent)? = state.withLock { s in
            if let pending = s.pendingLoad, session === pending.session {
                pendingLoadEvent(event, pending, &s)
                return nil
            }
            if let cue = s.cue, session === cue.session {
                cueEvent(event, cue, &s)
                return nil
            }
            let isCurrent = session === s.current
            guard isCurrent || session === s.upcoming else { return nil }
            switch event {
            case .ready:
                if !isCurrent { s.waiters.wakeAll() }  // a tick may wait for it (a crossfade)
                guard isCurrent, !s.currentReady else { return nil }
                s.currentReady = true
                s.policy.itemPlays()
                if s.phase == .loading { setState(.playing, &s) }
                s.sentTags = session.currentTags
                s.waiters.wakeAll()  // a capture may wait for a prerolled item to be ready
                defer { s.continuing = false }
                guard !s.continuing else { return nil }
                let (index, source, tags) = (s.playlist.index, s.playlist.current, session.currentTags)
                return { .track(index: index, source: source, durationMs: $0, tags: tags) }
            case .decodedAll:
                if isCurrent { preloadNext(&s) }
            case .failed(let failure):
                if isCurrent { itemFailed(source: session.source, failure, &s) } else { dropUpcoming(&s) }
            case .tags:
                // Kept by the session (now-playing). Tags that come after the item's
                // player.track was sent go out as an updated player.track.
                guard isCurrent, s.currentReady, let sent = s.sentTags, session.currentTags != sent else { return nil }
                let (index, source, tags) = (s.playlist.index, s.playlist.current, session.currentTags)
                s.sentTags = tags
                return { .track(index: index, source: source, durationMs: $0, tags: tags) }
            case .warning(let text):
                emit(.warning("player \(id): \(text)"), s)
            case .restarted(let how):
                guard isCurrent else { return nil }
                // The old session only holds the stale window: dropped, the new stream joined.
                emit(.warning("player \(id): \(SecretMask.mask(url: session.source)) started over (\(how)): joining it again"), s)
                s.endlessPlayed[session.source] = nil  // a new stream: its numbers are new
                continueCurrent(atMs: 0, &s)
            }
            return nil
        }
        if let track { state.withLock { emit(track, durationOf: session, $0) } }
    }
}

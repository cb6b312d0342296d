import Foundation

/// The player's items: opening the current one in a decoding session, preparing
/// the next one ahead (gapless handover), going on after an item's end, and the
/// events its sessions report. Every function here runs under the player's lock
/// (it takes the state `inout`), except `sessionEvent`, which takes it.
extension MediaPlayer {
    /// The next item prepared ahead, so that it starts gaplessly or crossfades in.
    struct NextItem {
        enum Stage {
            /// Being opened: the open's number (`MediaPlayer+Open`).
            case opening(UInt64)
            case opened(DecodeSession)
        }

        var stage: Stage
        /// The playlist position it is for; nil: the first item of `followOn`, opened ahead of the playlist's end.
        let position: Int?

        var followsOn: Bool { position == nil }
        var session: DecodeSession? { if case .opened(let session) = stage { session } else { nil } }
        var opening: UInt64? { if case .opening(let number) = stage { number } else { nil } }
    }

    /// Opens `playlist.current` as the current session.
    func openCurrent(_ s: inout State) {
        closeSessions(&s)
        s.currentReady = false
        setState(.loading, &s)
        openAsCurrent(s.playlist.current, startAt: s.config.startAt, &s)
    }

    /// The current item again, from `ms`.
    func reopenCurrent(atMs ms: Int, _ s: inout State) {
        let resume = s.phase
        closeSessions(&s)
        s.currentReady = false
        openAsCurrent(s.playlist.current, startAt: Double(ms) / 1000, &s)
        setState(resume == .paused ? .paused : .loading, &s)
    }

    /// The current item again from `ms`, in a new session that goes on with the item (no new track).
    func continueCurrent(atMs ms: Int, _ s: inout State) {
        retire(s.current)
        s.current = nil
        s.deck.course.goesOn()
        s.currentReady = false
        s.watch.positionMoved()
        setState(s.phase == .paused ? .paused : .loading, &s)
        openAsCurrent(s.playlist.current, startAt: Double(ms) / 1000, &s)
    }

    /// Under the lock: `source` becomes the current session once opened (`MediaPlayer+Open`);
    /// none is current meanwhile.
    func openAsCurrent(_ source: String, startAt: TimeInterval, _ s: inout State) {
        s.current = nil
        s.currentOpening = open(source, startAt: startAt, memory: memoryKind(s), for: .current, &s)
    }

    func closeSessions(_ s: inout State) {
        if s.deck.load.pending?.kind == .reposition { dropPendingLoad(&s) }  // it reopens the item that goes
        retire(s.current)
        s.current = nil
        s.currentOpening = nil
        dropUpcoming(&s)
        dropOutgoing(&s)
        dropFadingOut(&s)
        s.deck.course.itemGone()
        s.endlessWait = nil
    }

    func dropUpcoming(_ s: inout State) {
        retire(s.deck.upcoming?.session)
        s.deck.upcoming = nil
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
        guard s.deck.upcoming == nil else { return }
        if s.playlist.following() == nil, let then = s.deck.course.followOn {
            let number = open(then.current, startAt: 0, memory: s.config.memory ? .load : .none, for: .upcoming, &s)
            s.deck.upcoming = NextItem(stage: .opening(number), position: nil)
            return
        }
        guard s.playlist.followingIsDrawn, let (position, _) = s.playlist.following() else { return }
        var copy = s.playlist
        _ = copy.advance()
        let number = open(copy.current, startAt: 0, memory: memoryKind(s), for: .upcoming, &s)
        s.deck.upcoming = NextItem(stage: .opening(number), position: position)
    }

    /// The current session has nothing more to give: the item goes on (a segment
    /// left out), the next one takes over (prepared ahead, or opened now), or the
    /// list is over. Returns false when it is over.
    func advanceAfterEnd(_ s: inout State) -> Bool {
        // Drained before its failure reached the player (the event waits for the lock the capture holds).
        if s.deck.course.resumeAtMs == nil, let session = s.current, let message = session.failure,
           skipSegment(of: session, failedWith: message, &s), s.current !== session {
            return true  // already going on in a new session
        }
        if let ms = s.deck.course.resumeAtMs {
            // The same item goes on after a segment it had to leave out.
            continueCurrent(atMs: ms, &s)
            return true
        }
        // A cue waiting for this item's end (a block after one that finishes its item) lands here.
        if landAtItemEnd(&s) { return true }
        if s.deck.load.pending?.kind == .reposition { dropPendingLoad(&s) }  // it reopens the item that ended
        retire(s.current)
        s.current = nil
        s.watch.positionMoved()
        guard s.playlist.advance() else {
            guard let then = s.deck.course.takeFollowOn() else {
                dropUpcoming(&s)
                setState(.ended, &s)
                return false
            }
            // What the player goes on with comes in as a cut: faded in from where it starts.
            s.playlist = then
            s.memoryData = nil
            s.fades.cutInPending = true
            let next = s.deck.upcoming?.followsOn == true ? s.deck.upcoming?.session : nil
            if next == nil { dropUpcoming(&s) }
            promote(next, &s)
            return true
        }
        var prepared = s.deck.upcoming.flatMap { !$0.followsOn && $0.position == s.playlist.position ? $0.session : nil }
        // Prepared, and ready, for an order changed since (`setRepeat` near the end): it plays all the same.
        if prepared == nil, let next = s.deck.upcoming?.session, next.isReady, let position = s.deck.upcoming?.position {
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
            openAsCurrent(s.playlist.current, startAt: 0, &s)
            s.currentReady = false
            setState(.loading, &s)
            return
        }
        s.current = next
        s.deck.upcoming = nil
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
        guard s.watch.progressDue(at: position, step: step) else { return }
        emit({ .progress(positionMs: position, durationMs: $0) }, durationOf: session, s)
    }

    /// On the player's queue: what a session reported, decided and acted on under
    /// one hold of the lock (the capture thread may promote `upcoming` any time).
    func sessionEvent(_ event: DecodeSession.Event, from session: DecodeSession) {
        // A track event, built once the lock is let go (its duration is a query of the pipeline).
        let track: (@Sendable (Int?) -> PlayerEvent)? = state.withLock { s in
            if let pending = s.deck.load.pending, session === pending.session {
                pendingLoadEvent(event, from: session, &s)
                return nil
            }
            if let cue = s.deck.cue.pending, session === cue.session {
                cueEvent(event, from: session, &s)
                return nil
            }
            let isCurrent = session === s.current
            guard isCurrent || session === s.deck.upcoming?.session else { return nil }
            switch event {
            case .ready:
                if !isCurrent { s.waiters.wakeAll() }  // a tick may wait for it (a crossfade)
                guard isCurrent, !s.currentReady else { return nil }
                s.currentReady = true
                s.policy.itemPlays()
                if s.phase == .loading { setState(.playing, &s) }
                s.sentTags = session.currentTags
                s.waiters.wakeAll()  // a capture may wait for a prerolled item to be ready
                guard s.deck.course.started() else { return nil }
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

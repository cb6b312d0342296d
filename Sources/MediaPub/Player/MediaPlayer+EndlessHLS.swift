import Foundation

/// An endless HLS stream whose origin stopped (its playlist no longer grows, or what
/// it lists cannot be fetched) is a stalled source: once what was queued has
/// played, the player is `loading` (the standby fills) and the origin is retried
/// with the backoff of `reconnect` (docs/presets.md): each retry reads the
/// playlist, and the stream is joined again once the segment a join starts at is
/// one not played yet. What was played is remembered per source, by media
/// sequence number, so that no segment plays twice; an origin whose numbering
/// went back started over, and is a new stream.
extension MediaPlayer {
    /// Sources whose played segments are remembered, at most (a playlist of endless streams).
    static let endlessMemoryLimit = 64

    /// Whether `failure` of `session` is an endless stream's that waits for its origin.
    func isEndlessStall(_ session: DecodeSession, _ failure: SourceFailure, _ s: borrowing State) -> Bool {
        guard session.isEndless || s.endlessPlayed[session.source] != nil else { return false }
        if case .segment = failure.cause { return true }
        return failure.isTransient
    }

    /// The endless stream of `session` stalled (`why`): standby, then retried.
    func awaitEndless(_ session: DecodeSession, why: String, _ s: inout State) {
        if let last = session.endlessLastSequence {
            if s.endlessPlayed[session.source] == nil, s.endlessPlayed.count >= MediaPlayer.endlessMemoryLimit { s.endlessPlayed.removeAll() }
            s.endlessPlayed[session.source] = max(last, s.endlessPlayed[session.source] ?? last)
        }
        closeSessions(&s)
        s.currentReady = false
        setState(.loading, &s)
        retryEndlessLater(session.source, why: why, &s)
    }

    /// The next retry, after the backoff's next step; in a playlist, the item is
    /// skipped after `RetryPolicy.maxRetries` of them.
    private func retryEndlessLater(_ source: String, why: String, _ s: inout State) {
        let attempt = s.policy.retryEndless()
        let masked = SecretMask.mask(url: source)
        if s.playlist.items.count > 1, attempt > RetryPolicy.maxRetries {
            emit(.warning("player \(id): skipping \(masked): \(why)"), s)
            guard s.playlist.advance() else { return setState(.ended, &s) }
            s.policy.itemChosen()
            return openCurrent(&s)
        }
        let delay = reconnect.delay(attempt: attempt, random: 0.5)  // the middle of the spread: 1 s, 2 s, 4 s …
        s.endlessWaits += 1
        let wait = s.endlessWaits
        s.endlessWait = wait
        emit(.warning("player \(id): \(masked): \(why); retrying in \(MediaTime.formatDuration(delay))"), s)
        queue.asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self, self.state.withLock({ $0.endlessWait == wait }) else { return }
            // Read off the player's queue: a slow origin holds nothing up.
            DispatchQueue.global().async { [weak self] in
                let playlist = try? HLSPlaylist.fetch(source, timeout: 5)
                self?.queue.async { [weak self] in self?.endlessRetried(source, wait, playlist) }
            }
        }
    }

    /// On the player's queue: the playlist as a retry read it (nil: it could not).
    private func endlessRetried(_ source: String, _ wait: Int, _ playlist: HLSPlaylist?) {
        state.withLock { s in
            guard s.endlessWait == wait, s.current == nil, s.currentOpening == nil, s.playlist.current == source else { return }
            s.endlessWait = nil
            guard let playlist, !playlist.segments.isEmpty else {
                return retryEndlessLater(source, why: "cannot read its playlist", &s)
            }
            if let played = s.endlessPlayed[source] {
                if playlist.lastSequence < played {
                    s.endlessPlayed[source] = nil  // the numbering went back: the origin started over
                } else if playlist.endlessStartSequence <= played {
                    return retryEndlessLater(source, why: "no new segment since \(played)", &s)
                }
            }
            emit(.warning("player \(id): \(SecretMask.mask(url: source)) moves again: joining the live stream"), s)
            s.deck.course.goesOn()
            openAsCurrent(source, startAt: 0, &s)
        }
    }
}

import Foundation

/// When the current item fails: said in our words, then retried, played out,
/// skipped or ended as `RetryPolicy` decides, by the failure's cause (never its words).
extension MediaPlayer {
    /// The current item failed.
    func itemFailed(source: String, _ failure: SourceFailure, _ s: inout State) {
        let isNetwork = MediaPlayer.isNetwork(source)
        let text = failureText(source: source, failure)
        if let session = s.current, session.source == source, let raw = session.failure,
           skipSegment(of: session, failedWith: raw, &s) { return }
        if let session = s.current, session.source == source, isEndlessStall(session, failure, s) {
            return awaitEndless(session, why: "the live stream stalled (\(SecretMask.scrub(failure.text, secretsOf: source)))", &s)
        }
        let situation = RetryPolicy.Situation(
            failure: failure, isNetwork: isNetwork, stopped: s.phase == .stopped,
            hasPlayed: s.current.map { s.currentReady && $0.playhead > .zero } ?? false,
            itemCount: s.playlist.items.count, playedSinceStart: s.playedSinceStart)
        var policy = s.policy
        let decision = policy.decide(situation) { s.playlist.advance() }
        s.policy = policy
        switch decision {
        case .retry(let delay):
            emit(.warning("player \(id): \(text); retrying in \(Int(delay))s"), s)
            let position = s.current?.positionMs ?? 0
            closeSessions(&s)
            s.currentReady = false
            setState(.loading, &s)
            queue.asyncAfter(deadline: .now() + delay) { [weak self] in
                self?.state.withLock { s in
                    guard let self, s.phase == .loading, s.current == nil, s.currentOpening == nil,
                          s.playlist.current == source else { return }
                    self.openAsCurrent(source, startAt: Double(position) / 1000, &s)
                }
            }
        case .playOut:
            // Corrupt, truncated or dropped after it played: what decoded plays out,
            // then the item ends as at its end (the next one is prepared now).
            emit(.warning("player \(id): \(text); moving on after what decoded"), s)
            preloadNext(&s)
        case .skip:
            emit(.warning("player \(id): skipping \(text)"), s)
            openCurrent(&s)
        case .end:
            // Something of this run played: the list is over, not failed.
            emit(.warning("player \(id): skipping \(text); nothing left to play"), s)
            closeSessions(&s)
            setState(.ended, &s)
        case .fail:
            closeSessions(&s)
            setState(.error, error: text, &s)
        }
    }

    static func isNetwork(_ source: String) -> Bool {
        ["http", "https"].contains(PathResolution.sourceScheme(of: source) ?? "")
    }

    /// `source` (masked) and what went wrong with it, in our words where GStreamer's
    /// generic ones say nothing a user can act on; the source's secrets scrubbed
    /// from the text (GStreamer's may quote the location).
    func failureText(source: String, _ failure: SourceFailure) -> String {
        let reason = failure.plainReason(isNetwork: MediaPlayer.isNetwork(source)) ?? failure.text
        return "\(SecretMask.mask(url: source)): \(SecretMask.scrub(reason, secretsOf: source))"
    }

    /// When `message` says an HLS segment of `session` (the current one) could not be
    /// fetched (hlsdemux gave up on it, and with it the whole stream), a VOD item goes
    /// on after that segment (once what decoded has played) and an endless one is joined
    /// again. Returns whether it was such a failure.
    func skipSegment(of session: DecodeSession, failedWith message: String, _ s: inout State) -> Bool {
        // Already going on after a segment: later errors are that failure's consequences.
        if s.deck.course.resumeAtMs != nil { return true }
        guard let segment = session.segmentFailure(in: message),
              segment.isEndless || segment.resumeMs > session.mediaStartMs else { return false }
        let why = segment.status.map { " (\($0))" } ?? ""
        let what = "segment \(segment.number) of \(SecretMask.mask(url: session.source)) could not be fetched\(why)"
        if segment.isEndless {
            // The endless stream waits for a segment it has not played (`MediaPlayer+EndlessHLS`).
            awaitEndless(session, why: what, &s)
        } else if s.currentReady, session.playhead > .zero {
            emit(.warning("player \(id): \(what): skipped"), s)
            s.deck.course.segmentLeftOut(resumeAtMs: segment.resumeMs)
        } else {
            emit(.warning("player \(id): \(what): skipped"), s)
            continueCurrent(atMs: segment.resumeMs, &s)
        }
        return true
    }
}

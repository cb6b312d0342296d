import Foundation

/// A cue: new content (a playlist, its current item opened at an offset) prepared in
/// a session of its own beside what plays, like a `load`, that does not take over when
/// ready but on a given output tick, when `commitCue` is called on the timeline thread
/// just before that tick: the tick's picture is the new item's first frame and its
/// sound starts in that tick. The outgoing sound fades out over the `CutFade` before
/// the tick, the incoming fades in; pictures cut on the frame. A cue that fails or is
/// cancelled leaves what plays as it was (docs/design.md, Switching on the frame).
extension MediaPlayer {
    /// How a cue (by its ticket) goes, as far as it is known.
    public enum CueOutcome: Sendable, Equatable {
        /// Being prepared; not committed yet.
        case preparing
        /// Prepared, waiting for its commit.
        case ready
        /// Committed but not prepared yet (realtime): what plays goes on, its sound back
        /// after the fade; once prepared, it fades out again and the cue takes over.
        case waiting
        /// It took over `lateTicks` output ticks (`lateMs` ms of output) after the tick
        /// it was cued for: 0 is on the frame.
        case landed(lateTicks: Int, lateMs: Int)
        /// It could not be prepared (the source named, and why): what plays goes on.
        case failed(String)
        /// Called off (why): by `cancelCue`, a later cue, or `stop`. What plays goes on.
        case cancelled(String)

        var isSettled: Bool {
            switch self {
            case .preparing, .ready, .waiting: false
            case .landed, .failed, .cancelled: true
            }
        }
    }

    /// Prepares `playlist` (its current item opened at `offset` seconds) to take over on
    /// output tick `tick` (`Capture.tick(at:)`), once committed. A cue on its way is
    /// replaced. `then`: what the player goes on with once `playlist` is over, as a cut (a
    /// programme's filler after a block). Returns the cue's ticket; `onSettled` is told how
    /// it ended, on the player's queue, holding no lock.
    @discardableResult
    func cue(_ playlist: Playlist, startAt offset: TimeInterval, at tick: UInt64, then: Playlist? = nil,
             onSettled: (@Sendable (CueOutcome) -> Void)? = nil) -> Int {
        LibraryLog.addSecrets(of: playlist.items)
        // Never traps on nan or an offset past the longest media time.
        let offset = offset.isFinite ? min(max(0, offset), MediaTime.maxDuration) : 0
        return state.withLock { s in
            let (ticket, replaced) = s.deck.cue.ask(playlist, then: then, tick: tick, onSettled: onSettled)
            if let replaced { settled(replaced, &s) }
            let memory: DecodeSession.Memory = s.config.memory ? .load : .none
            open(playlist.current, startAt: offset, memory: memory, for: .cue(ticket: ticket), &s)
            return ticket
        }
    }

    /// On the timeline thread, just before the tick the cue is for (a `Capture.atOutputTime(_:key:_:)`
    /// action): the cued content becomes the player's from the tick rendered next. Not
    /// ready yet, it is waited for up to `wait` seconds (as fast as possible: the switch is
    /// then exact); still not ready (realtime: `wait` 0), it takes over once it is, after
    /// fading out what plays (`.waiting`; `onSettled` and `cueOutcome` say how late).
    /// Never waits longer than `wait`.
    func commitCue(_ ticket: Int, wait: TimeInterval) -> CueOutcome {
        let first = state.withLock { s -> CueOutcome? in
            guard s.deck.cue.commit(ticket), let cue = s.deck.cue.pending else { return s.deck.cue.outcome(of: ticket) }
            s.waiters.wakeAll()  // a tick waiting for content counts this cue from now on
            if let landed = landIfDue(at: s.nextTick, &s) { return landed }
            return wait > 0 && !cue.ready ? nil : .waiting
        }
        if let first { return first }
        state.wait(until: MonotonicInstant.now.addingTimeInterval(wait.isFinite ? wait : 0)) { $0.deck.cue.preparing(ticket) }
        return state.withLock { s in
            guard s.deck.cue.pending?.ticket == ticket else { return s.deck.cue.outcome(of: ticket) }
            return landIfDue(at: s.nextTick, &s) ?? .waiting
        }
    }

    /// The cue of `ticket` lands where the item that plays ends, as soon as it is ready
    /// (a block after one that finishes its item, `overrun: finish`): on the sample the
    /// item ends, faded in, whatever would have come after it left out. `commitCue`
    /// still lands it at the latest when it is called. Never waits.
    func commitCueAtItemEnd(_ ticket: Int) {
        state.withLock { $0.deck.cue.commitAtItemEnd(ticket) }
    }

    /// Under the lock, the current item over (`advanceAfterEnd`): a cue waiting for its end
    /// lands now, within the tick being rendered. Returns whether one did.
    func landAtItemEnd(_ s: inout State) -> Bool {
        guard let cue = s.deck.cue.landAtItemEnd() else { return false }
        land(cue, at: s.nextTick &- 1, withinTick: true, &s)
        return true
    }

    /// Calls off the cue of `ticket`, if it is still on its way: what plays goes on
    /// (its sound back over the fade, if it had begun to fade out). Returns its outcome.
    @discardableResult
    func cancelCue(_ ticket: Int) -> CueOutcome {
        state.withLock { s in
            if s.deck.cue.pending?.ticket == ticket { dropCue(.cancelled("cancelled"), &s) }
            return s.deck.cue.outcome(of: ticket)
        }
    }

    /// How the cue of `ticket` goes, without waiting.
    func cueOutcome(_ ticket: Int) -> CueOutcome {
        state.withLock { $0.deck.cue.outcome(of: ticket) }
    }

    /// Waits (bounded) while the cue of `ticket` is being prepared; never on the timeline thread.
    func waitForCue(_ ticket: Int, timeout: TimeInterval) -> CueOutcome {
        state.wait(until: MonotonicInstant.now.addingTimeInterval(timeout)) { $0.deck.cue.preparing(ticket) }
        return cueOutcome(ticket)
    }

    /// Under the lock: `cue`, settled in the deck (called off, failed, landed), is retired and
    /// `onSettled` told its outcome after what was reported before.
    private func settled(_ cue: DeckCue<DecodeSession>.Pending, retire: Bool = true, _ s: inout State) {
        if retire { self.retire(cue.session) }
        s.waiters.wakeAll()
        if let onSettled = cue.onSettled, let outcome = s.deck.cue.settled.last(where: { $0.ticket == cue.ticket })?.outcome {
            queue.async { onSettled(outcome) }
        }
    }

    /// Gives up the cue on its way, if any.
    func dropCue(_ outcome: CueOutcome, _ s: inout State) {
        guard let cue = s.deck.cue.drop(outcome) else { return }
        settled(cue, &s)
    }

    /// Under the lock: the cue on its way could not be opened or prepared (the session it had retired).
    func cueFailed(source: String, _ failure: SourceFailure, _ s: inout State) {
        let why = failureText(source: source, failure)
        let playing = s.phase == .playing || s.phase == .paused ? "; still playing \(SecretMask.mask(url: s.playlist.current))" : ""
        emit(.warning("player \(id): cannot cue \(why)\(playing)"), s)
        dropCue(.failed(why), &s)
    }

    /// On the player's queue, under the lock: what the cued session reported.
    func cueEvent(_ event: DecodeSession.Event, from session: DecodeSession, _ s: inout State) {
        switch event {
        case .ready:
            // Late: it lands on the next tick when what plays is silent still (the fade-out
            // before its tick), else once that has faded out again.
            s.deck.cue.ready(session, nextTick: s.nextTick, silent: s.fades.cut.isSilent,
                             fadeTicks: CutFade.ticks(tickRate: format.tickRate))
            s.waiters.wakeAll()
        case .failed(let failure):
            cueFailed(source: session.source, failure, &s)
        case .warning(let text):
            emit(.warning("player \(id): \(text)"), s)
        case .decodedAll, .tags, .restarted:
            break  // read from the session when it takes over
        }
    }

    /// Under the lock, before tick `n` (on the timeline thread): a committed cue that is
    /// ready lands now if its tick has come. Returns how it went if it landed.
    @discardableResult
    func landIfDue(at n: UInt64, _ s: inout State) -> CueOutcome? {
        guard let cue = s.deck.cue.landIfDue(at: n) else { return nil }
        return land(cue, at: n, &s)
    }

    /// Under the lock, the cue ready: it becomes the player's content from tick `n` on
    /// (`withinTick`: from where the tick being rendered has got to, faded in from there).
    @discardableResult
    private func land(_ cue: DeckCue<DecodeSession>.Pending, at n: UInt64, withinTick: Bool = false,
                      _ s: inout State) -> CueOutcome {
        guard let session = cue.session else { return .cancelled("no cue on its way") }
        // A load still on its way was asked for before the content that now starts.
        dropPendingLoad(&s)
        s.deck.course.followOn = cue.then  // before `adopt`, which opens the next item ahead of a short one's end
        adopt(session, playlist: cue.playlist, memoryData: nil, &s)
        if withinTick { s.fades.cutInPending = true } else { s.fades.cut.cutIn() }
        let late = n >= cue.tick ? Int(clamping: n - cue.tick) : -Int(clamping: cue.tick - n)
        let lateMs = Int((Double(late) * 1000 / Double(format.tickRate)).rounded())
        let outcome = CueOutcome.landed(lateTicks: late, lateMs: lateMs)
        s.deck.cue.settle(cue.ticket, outcome)
        settled(cue, retire: false, &s)
        return outcome
    }

    /// Under the lock: as fast as possible, the render of tick `n` waits for the cue on its
    /// way to be ready (or to fail) once it is committed or its fade-out reaches into the tick.
    func cueAwaited(tick n: UInt64, _ s: borrowing State) -> Bool {
        guard let cue = s.deck.cue.pending, !cue.ready else { return false }
        guard !cue.committed else { return true }
        guard let silentFrom = cutSilentFrom(tick: n, s) else { return false }
        return format.tickClock.audioFrames(atTick: n &+ 1) &+ UInt64(s.fades.cut.length) > silentFrom
    }

    /// Under the lock: where the sound must be silent from for the cut to come (the
    /// timeline's audio frame of the tick the cue lands on), for the render of tick `n`.
    /// Past that tick a cue that has not landed (not committed, or not ready: realtime)
    /// counts no longer: the sound comes back.
    func cutSilentFrom(tick n: UInt64, _ s: borrowing State) -> UInt64? {
        guard let cue = s.deck.cue.pending, n < cue.landsAt else { return nil }
        return format.tickClock.audioFrames(atTick: cue.landsAt)
    }
}

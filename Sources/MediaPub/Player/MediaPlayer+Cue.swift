import Foundation

/// A cue: new content (a playlist, its current item opened at an offset) prepared in
/// a session of its own beside what plays, like a `load`, that does not take over when
/// ready but on a given output tick, when `commitCue` is called on the timeline thread
/// just before that tick: the tick's picture is the new item's first frame and its
/// sound starts in that tick. The outgoing sound fades out over the `CutFade` before
/// the tick, the incoming fades in; pictures cut on the frame. A cue that fails or is
/// cancelled leaves what plays as it was (docs/design.md, Switching on the frame).
extension MediaPlayer {
    /// A cue on its way.
    struct PendingCue {
        let ticket: Int
        /// nil until opened (`MediaPlayer+Open`).
        var session: DecodeSession?
        let playlist: Playlist
        /// What the player goes on with once `playlist` is over (`State.followOn`).
        let then: Playlist?
        /// The output tick it is to land on.
        let tick: UInt64
        /// The tick it lands on once committed and ready: `tick`, or later when it was not
        /// ready by then (what plays sounds again meanwhile, and fades out before it lands).
        var landsAt: UInt64
        /// Told how the cue ended (landed, failed, cancelled), on the player's queue.
        let onSettled: (@Sendable (CueOutcome) -> Void)?
        /// Its first picture and sound are in hand.
        var ready = false
        /// `commitCue` was called: it lands the moment it is ready.
        var committed = false
        /// `commitCueAtItemEnd` was called: ready, it lands the moment the current item ends.
        var atItemEnd = false
    }

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

    /// How many settled cues' outcomes are kept for `cueOutcome`.
    private static let settledKept = 8

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
            s.cuesAsked += 1
            let ticket = s.cuesAsked
            dropCue(.cancelled("replaced by cue \(ticket)"), &s)
            let memory: DecodeSession.Memory = s.config.memory ? .load : .none
            s.cue = PendingCue(ticket: ticket, session: nil, playlist: playlist, then: then, tick: tick, landsAt: tick,
                               onSettled: onSettled)
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
            guard let cue = s.cue, cue.ticket == ticket else { return outcome(of: ticket, s) }
            s.cue?.committed = true
            s.waiters.wakeAll()  // a tick waiting for content counts this cue from now on
            if let landed = landIfDue(at: s.nextTick, &s) { return landed }
            return wait > 0 && !cue.ready ? nil : .waiting
        }
        if let first { return first }
        state.wait(until: MonotonicInstant.now.addingTimeInterval(wait.isFinite ? wait : 0)) { s in
            s.cue.map { $0.ticket == ticket && !$0.ready } ?? false
        }
        return state.withLock { s in
            guard let cue = s.cue, cue.ticket == ticket else { return outcome(of: ticket, s) }
            return landIfDue(at: s.nextTick, &s) ?? .waiting
        }
    }

    /// The cue of `ticket` lands where the item that plays ends, as soon as it is ready
    /// (a block after one that finishes its item, `overrun: finish`): on the sample the
    /// item ends, faded in, whatever would have come after it left out. `commitCue`
    /// still lands it at the latest when it is called. Never waits.
    func commitCueAtItemEnd(_ ticket: Int) {
        state.withLock { s in
            guard s.cue?.ticket == ticket else { return }
            s.cue?.atItemEnd = true
        }
    }

    /// Under the lock, the current item over (`advanceAfterEnd`): a cue waiting for its end
    /// lands now, within the tick being rendered. Returns whether one did.
    func landAtItemEnd(_ s: inout State) -> Bool {
        guard let cue = s.cue, cue.atItemEnd, cue.ready else { return false }
        land(at: s.nextTick &- 1, withinTick: true, &s)
        return true
    }

    /// Calls off the cue of `ticket`, if it is still on its way: what plays goes on
    /// (its sound back over the fade, if it had begun to fade out). Returns its outcome.
    @discardableResult
    func cancelCue(_ ticket: Int) -> CueOutcome {
        state.withLock { s in
            if s.cue?.ticket == ticket { dropCue(.cancelled("cancelled"), &s) }
            return outcome(of: ticket, s)
        }
    }

    /// How the cue of `ticket` goes, without waiting.
    func cueOutcome(_ ticket: Int) -> CueOutcome {
        state.withLock { outcome(of: ticket, $0) }
    }

    /// Waits (bounded) while the cue of `ticket` is being prepared; never on the timeline thread.
    func waitForCue(_ ticket: Int, timeout: TimeInterval) -> CueOutcome {
        state.wait(until: MonotonicInstant.now.addingTimeInterval(timeout)) { s in
            s.cue.map { $0.ticket == ticket && !$0.ready } ?? false
        }
        return cueOutcome(ticket)
    }

    /// Under the lock.
    private func outcome(of ticket: Int, _ s: borrowing State) -> CueOutcome {
        if let cue = s.cue, cue.ticket == ticket {
            return cue.committed ? .waiting : cue.ready ? .ready : .preparing
        }
        return s.settledCues.last { $0.ticket == ticket }?.outcome ?? .cancelled("no cue \(ticket) on its way")
    }

    /// Under the lock: the cue of `ticket` ended as `outcome`; `onSettled` is told after what was reported before.
    private func settle(_ ticket: Int, _ outcome: CueOutcome, _ onSettled: (@Sendable (CueOutcome) -> Void)?, _ s: inout State) {
        s.settledCues.append((ticket, outcome))
        if s.settledCues.count > MediaPlayer.settledKept { s.settledCues.removeFirst() }
        s.waiters.wakeAll()
        if let onSettled { queue.async { onSettled(outcome) } }
    }

    /// Gives up the cue on its way, if any.
    func dropCue(_ outcome: CueOutcome, _ s: inout State) {
        guard let cue = s.cue else { return }
        s.cue = nil
        retire(cue.session)
        settle(cue.ticket, outcome, cue.onSettled, &s)
    }

    func cueFailed(_ ticket: Int, source: String, _ failure: SourceFailure,
                           _ onSettled: (@Sendable (CueOutcome) -> Void)?, _ s: inout State) {
        let why = failureText(source: source, failure)
        let playing = s.phase == .playing || s.phase == .paused ? "; still playing \(SecretMask.mask(url: s.playlist.current))" : ""
        emit(.warning("player \(id): cannot cue \(why)\(playing)"), s)
        settle(ticket, .failed(why), onSettled, &s)
    }

    /// On the player's queue, under the lock: what the cued session reported.
    func cueEvent(_ event: DecodeSession.Event, _ cue: PendingCue, from session: DecodeSession, _ s: inout State) {
        switch event {
        case .ready:
            s.cue?.ready = true
            if cue.committed, s.nextTick >= cue.landsAt {
                // Late: it lands on the next tick when what plays is silent still (the fade-out
                // before its tick), else once that has faded out again.
                s.cue?.landsAt = s.fade.isSilent ? s.nextTick : s.nextTick &+ CutFade.ticks(tickRate: format.tickRate)
            }
            s.waiters.wakeAll()
        case .failed(let failure):
            s.cue = nil
            retire(session)
            cueFailed(cue.ticket, source: session.source, failure, cue.onSettled, &s)
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
        guard let cue = s.cue, cue.committed, cue.ready, n >= cue.landsAt else { return nil }
        return land(at: n, &s)
    }

    /// Under the lock, the cue ready: it becomes the player's content from tick `n` on
    /// (`withinTick`: from where the tick being rendered has got to, faded in from there).
    @discardableResult
    private func land(at n: UInt64, withinTick: Bool = false, _ s: inout State) -> CueOutcome {
        guard let cue = s.cue, let session = cue.session else { return .cancelled("no cue on its way") }
        s.cue = nil
        // A load still on its way was asked for before the content that now starts.
        dropPendingLoad(&s)
        s.followOn = cue.then  // before `adopt`, which opens the next item ahead of a short one's end
        adopt(session, playlist: cue.playlist, memoryData: nil, &s)
        if withinTick { s.fadeInPending = true } else { s.fade.cutIn() }
        let late = n >= cue.tick ? Int(clamping: n - cue.tick) : -Int(clamping: cue.tick - n)
        let lateMs = Int((Double(late) * 1000 / Double(format.tickRate)).rounded())
        let outcome = CueOutcome.landed(lateTicks: late, lateMs: lateMs)
        settle(cue.ticket, outcome, cue.onSettled, &s)
        return outcome
    }

    /// Under the lock: as fast as possible, the render of tick `n` waits for the cue on its
    /// way to be ready (or to fail) once it is committed or its fade-out reaches into the tick.
    func cueAwaited(tick n: UInt64, _ s: borrowing State) -> Bool {
        guard let cue = s.cue, !cue.ready else { return false }
        guard !cue.committed else { return true }
        guard let silentFrom = cutSilentFrom(tick: n, s) else { return false }
        return format.tickClock.audioFrames(atTick: n &+ 1) &+ UInt64(s.fade.length) > silentFrom
    }

    /// Under the lock: where the sound must be silent from for the cut to come (the
    /// timeline's audio frame of the tick the cue lands on), for the render of tick `n`.
    /// Past that tick a cue that has not landed (not committed, or not ready: realtime)
    /// counts no longer: the sound comes back.
    func cutSilentFrom(tick n: UInt64, _ s: borrowing State) -> UInt64? {
        guard let cue = s.cue, n < cue.landsAt else { return nil }
        return format.tickClock.audioFrames(atTick: cue.landsAt)
    }
}

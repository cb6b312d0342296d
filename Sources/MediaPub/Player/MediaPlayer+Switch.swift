import Foundation

/// The commands that change what plays (docs/control.md: `next`, `prev`, `seek`, `speed`,
/// `pitch`, `repeat`), at any instant, never leave the capture a tick with nothing: what
/// plays goes on while the new session is prepared beside it, and the new one takes over
/// once it has its first picture and sound in hand, as a `load` does (`MediaPlayer+Load`).
/// A new speed or a pitch the session cannot take in place opens the item again ahead of
/// where it is, by as long as the last such reopening took to take over (in output time:
/// none as fast as possible), so the item goes on about from where it was. The item prepared ahead (gapless) stays ready across them: the
/// next item whose settings are behind catches up once it plays (`keepUpWithSettings`); a
/// `repeat` that comes when that item is ready and the end near applies from the next
/// item on. A paused player changes in place (nothing of it is on air but its picture).
extension MediaPlayer {
    /// A `repeat` this close to the item's end (output seconds) leaves the next item prepared as it is.
    static let repeatLead: TimeInterval = 1

    /// Under the lock: the current item is ready, and on air or paused.
    private func playsOn(_ s: borrowing State) -> Bool {
        (s.phase == .playing || s.phase == .paused) && s.currentReady && s.current != nil
    }

    public func next() {
        state.withLock { s in
            guard s.playlist.items.count > 1 || s.config.repeat else { return }
            var list = skipBase(s)
            if list.mode == .repeatOne || !list.advance() {
                list.jump(toItem: (list.index + 1) % list.items.count)
            }
            s.policy.itemChosen()
            skip(to: list, &s)
        }
    }

    public func previous() {
        state.withLock { s in
            var list = skipBase(s)
            list.back()
            s.policy.itemChosen()
            skip(to: list, &s)
        }
    }

    /// Under the lock: the playlist `next` and `previous` move from: where a skip on its
    /// way goes (two quick `next`s go two items on), else the player's.
    private func skipBase(_ s: borrowing State) -> Playlist {
        s.deck.load.skipping ?? s.playlist
    }

    /// Under the lock: `list` (moved to its new item) becomes what plays: at once when that
    /// item is the one prepared ahead, else once it is ready. A crossfading playlist fades
    /// the item out under it (`MediaPlayer+Crossfade`); a player with nothing ready opens it now.
    private func skip(to list: Playlist, _ s: inout State) {
        dropPendingLoad(&s)
        guard playsOn(s), !s.playlist.crossfade.isOn else {
            s.playlist = list
            openCurrentCrossfading(&s)
            return
        }
        if let upcoming = s.deck.upcoming, let next = upcoming.session, !upcoming.followsOn, next.isReady,
           upcoming.position == list.position, next.source == list.current {
            // What plays goes, with what was noted of it (a segment to go on after, an endless stream's wait).
            s.deck.upcoming = nil
            closeSessions(&s)
            (s.playlist, s.frozenFrame) = (list, nil)
            s.watch.positionMoved()
            promote(next, &s)
            setState(.playing, &s)
            return
        }
        prepare(list, startAt: s.config.startAt, memory: nil, kind: .skip, &s)
    }

    private enum SeekPlan {
        case refused
        /// Not ready: the item is opened again at the position.
        case reopened
        /// Paused: a flushing seek of the session in place.
        case seek(DecodeSession, rate: Double)
        /// Prepared beside what plays (its ticket).
        case beside(Int)
    }

    /// Seeks the current item to `ms` of media time; returns once the item plays from
    /// there (or could not: false), within 10 s. What plays goes on until then. A load or
    /// a skip on its way is opened at `ms` instead. On a realtime timeline (a timeline
    /// action), which never waits, it returns once the seek is asked for; a paused item's
    /// seek in place is made on the opener queue whenever it is asked on the timeline.
    @discardableResult
    public func seek(toMs ms: Int) -> Bool {
        // Beyond MediaTime.maxDuration the position in nanoseconds would overflow.
        guard ms >= 0, Double(ms) <= MediaTime.maxDuration * 1000 else { return false }
        let at = Double(ms) / 1000
        let plan = state.withLock { s -> SeekPlan in
            if let pending = s.deck.load.pending {
                return .beside(prepare(pending.playlist, startAt: at, memory: pending.memoryData, kind: pending.kind, &s))
            }
            guard let session = s.current, s.currentReady else {
                guard s.phase == .loading || s.phase == .paused || s.phase == .playing else { return .refused }
                reopenCurrent(atMs: ms, &s)
                return .reopened
            }
            guard s.phase == .playing else { return .seek(session, rate: s.config.speed) }
            return .beside(prepare(s.playlist, startAt: at, memory: s.memoryData, kind: .reposition, &s))
        }
        switch plan {
        case .refused: return false
        case .reopened: return true
        case .beside(let ticket):
            // A realtime timeline never waits; as fast as possible, a tick may wait for its sources.
            if TimelineThread.forbidsWait(10) { return true }
            if case .failed = waitForLoad(ticket, timeout: 10) { return false }
            return true
        case .seek(let session, let rate):
            if TimelineThread.isCurrent {
                seekOnOpener(session, toMs: ms, rate: rate)
                state.withLock { s in if s.current === session { s.watch.positionMoved() } }
                return true
            }
            // The flushing seek waits for the decoder's threads: it is made without the lock.
            let ok = session.seek(toMs: ms, rate: rate)
            state.withLock { s in if s.current === session { s.watch.positionMoved() } }
            return ok
        }
    }

    /// The current item from its start again, in place (the standby's ringtone, on the
    /// timeline thread, which must not wait for a new session nor for a flushing seek, which
    /// waits for the decoder's threads): the seek is made on the opener queue, and the item
    /// gives nothing until it is made (`DecodeSession.holdForSeek`). Returns whether one was asked for.
    @discardableResult
    func rewind() -> Bool {
        guard let (session, rate) = state.withLock({ s in s.currentReady ? s.current.map { ($0, s.config.speed) } : nil })
        else { return false }
        seekOnOpener(session, toMs: 0, rate: rate)
        return true
    }

    /// A flushing seek of `session` in place (it waits for the decoder's threads), made without
    /// the lock: here, or on the opener queue when called on the timeline thread, which never
    /// waits (a timeline action: docs/design.md, What may run on the timeline thread).
    private func seekInPlace(_ session: DecodeSession, toMs ms: Int, rate: Double) {
        if TimelineThread.isCurrent { seekOnOpener(session, toMs: ms, rate: rate) } else { _ = session.seek(toMs: ms, rate: rate) }
    }

    /// The seek made on the opener queue; until it is, the item gives nothing (`holdForSeek`):
    /// what it had queued from before is never heard, and a tick that may wait waits for it.
    private func seekOnOpener(_ session: DecodeSession, toMs ms: Int, rate: Double) {
        session.holdForSeek()
        opener.async { _ = session.seek(toMs: ms, rate: rate) }
    }

    /// `value` when it lies in `range`, else a usage error that names `name` and the range.
    private static func checked(_ value: Double, in range: ClosedRange<Double>, _ name: String) throws -> Double {
        guard range.contains(value) else {
            let g = { (x: Double) in String(format: "%g", x) }
            throw MediaPubError.usage("\(name) \(g(value)) is out of range \(g(range.lowerBound))..\(g(range.upperBound))")
        }
        return value
    }

    /// Play speed 0.5...4.0 with the pitch kept (the item opened again at that rate through
    /// scaletempo, where it is; paused, a rate seek in place).
    public func setSpeed(_ speed: Double) throws {
        let speed = try MediaPlayer.checked(speed, in: PlayerConfig.speedRange, "speed")
        let paused = state.withLock { s -> DecodeSession? in
            s.config.speed = speed
            guard let session = s.current, s.currentReady else { return nil }  // what opens next opens at it
            guard s.phase == .paused else {
                keepUpWithSettings(&s)
                return nil
            }
            return session
        }
        // A rate seek, made without the lock (as `seek`).
        if let paused { seekInPlace(paused, toMs: paused.positionMs, rate: speed) }
    }

    /// Voice changer: -12...12 semitones, 0 is off. Set in place where the item has a pitch
    /// stage, else the item is opened again with one, where it is.
    public func setPitch(_ semitones: Double) throws {
        let semitones = try MediaPlayer.checked(semitones, in: PlayerConfig.pitchRange, "pitch")
        let retune = state.withLock { s -> (DecodeSession, Double)? in
            s.config.pitch = semitones
            guard let session = s.current, s.currentReady else { return nil }
            guard !session.setPitch(semitones) else { return (session, s.config.speed) }
            if s.phase == .paused { reopenCurrent(atMs: session.positionMs, &s) } else { keepUpWithSettings(&s) }
            return nil
        }
        // Set in place: what the decoder has queued ahead was shifted at the old pitch (up to
        // its appsink's 16 buffers, some 750 ms): flushed by a seek to where it is, made
        // without the lock, so the new pitch is heard from the next tick.
        if let (session, speed) = retune { seekInPlace(session, toMs: session.positionMs, rate: speed) }
    }

    /// Repeat the current item (a single source loops; a playlist repeats its current item).
    public func setRepeat(_ on: Bool) {
        state.withLock { s in
            s.config.repeat = on
            s.playlist.mode = on ? .repeatOne : (s.config.playlist?.mode ?? .once)
            // Prepared ahead, or being opened (`MediaPlayer+Open`).
            guard let upcoming = s.deck.upcoming else { return }
            let wanted = s.playlist.following()?.position
            guard upcoming.followsOn ? wanted != nil : upcoming.position != wanted else { return }
            // Ready, with the end near: it plays at this end (`advanceAfterEnd`), the new order from the next one.
            if upcoming.session?.isReady == true, let current = s.current, let length = current.lengthMs,
               Double(length - current.positionMs) / 1000 / max(0.1, s.config.speed) < Self.repeatLead { return }
            dropUpcoming(&s)
            if s.current?.hasDecodedAll == true { preloadNext(&s) }
        }
    }

    /// Under the lock: a playing item whose speed or pitch is not the player's (set since it
    /// was opened, or prepared ahead before) is opened again with them, `reopenLead` ahead of
    /// where it is, and takes over once ready. Not while a load or a skip is on its way (what
    /// it opens keeps up then).
    func keepUpWithSettings(_ s: inout State) {
        guard s.phase == .playing, let current = s.current else { return }
        if let pending = s.deck.load.pending, pending.kind == .load || pending.kind == .skip { return }
        let pitched = current.setPitch(s.config.pitch) || current.pitch == s.config.pitch
        guard !pitched || current.rate != s.config.speed else { return }
        // A reopening on its way (a seek) keeps its position; else ahead of where the item is.
        let ahead = s.deck.load.pending?.startAt ?? Double(current.positionMs) / 1000 + s.deck.course.reopenLead * current.rate
        prepare(s.playlist, startAt: ahead, memory: s.memoryData, kind: .reposition, &s)
    }

    /// Under the lock, the reopened item ready (`LoadKind.reposition`): it takes the
    /// current one's place, the same item going on (no new track). How long it took (output
    /// ticks since `askedAtTick`) is the next reopening's lead.
    func replaceCurrent(with session: DecodeSession, askedAtTick: UInt64, _ s: inout State) {
        guard let old = s.current else {
            adopt(session, playlist: s.playlist, memoryData: s.memoryData, &s)
            return
        }
        let took = s.nextTick >= askedAtTick ? Double(s.nextTick - askedAtTick) / Double(format.tickRate) : 0
        s.deck.course.reopened(took: took)
        retire(old)
        s.current = session
        s.currentReady = true
        s.watch.restart()
        s.deck.course.itemGone()
        if session.hasDecodedAll { preloadNext(&s) }
        s.waiters.wakeAll()
        keepUpWithSettings(&s)
    }
}

import Foundation

/// Committing a switch on its tick (docs/presets.md, Schedule): the cue made on the
/// programme's cue queue goes on air, or the filler, or nothing; how it settled is said.
extension ScheduleRunner {
    /// On the timeline, just before the tick of `due`: what was cued goes on air. When the
    /// block on air finishes its item (`overrun: finish`), the switch waits for the item's end.
    func commit(_ cue: ScheduleCue?, entry: ProgrammeEntry?, scheduled: Date, due: Double, generation: Int,
                        waited: Bool = false, joinedMs: Int? = nil) {
        // Once: after the wait the block's next item (its playlist goes on) is not waited for too.
        if !waited, onAir?.entry?.overrun == .finish, let rest = remainingOfItem(), rest > 0.5 / Double(tickClock.tickRate) {
            // The player lands it on the item's last sample; the commit a tick after is its backstop
            // (the cue not ready by then, or the item held paused by a live feed).
            if let ticket = cue?.made.ticket { player.commitCueAtItemEnd(ticket) }
            onTimeline(outputSeconds() + rest + 1 / Double(tickClock.tickRate), .commit) { [weak self] in
                guard let self, self.isCurrent(generation) else { return }
                self.commit(cue, entry: entry, scheduled: scheduled, due: due, generation: generation, waited: true,
                            joinedMs: joinedMs)
            }
            return
        }
        // What the cue queue has made by now (as fast as possible, waited for; realtime: a cue
        // still being made is committed once it is, and lands late).
        let made = cue?.commit(wait: realtime ? 0 : Self.commitWait) ?? .nothing
        settled(cue)
        let ticket = made.ticket
        // Nothing to play (a block's end, no filler): the player stops and the standby is on air.
        if made == .nothing, entry == nil { player.stop() }
        let outcome = ticket.map { commitOnTimeline($0, wait: realtime ? 0 : Self.commitWait) }
        let lateMs: Int
        var entry = entry
        switch outcome {
        case .landed(_, let late)?: lateMs = late
        case .failed(let why)?:
            lateMs = 0
            // The block is not on air: the filler is (what played goes on without one).
            if entry != nil { fillerNextTick(generation: generation) }
            emit(.warning("schedule: \(entry?.blockID ?? "filler") could not start: \(why)"))
            entry = nil
        default: lateMs = max(0, Int(((outputSeconds() - due) * 1000).rounded()))
        }
        let previous = state.withLock { s -> OnAir? in
            guard s.generation == generation else { return nil }
            let previous = s.onAir
            s.onAir = OnAir(entry: entry, since: due, lateMs: lateMs)
            s.next = nil
            return previous
        }
        setLevels(for: entry)
        if let ended = previous?.entry {
            emit(.scheduleBlock(block: ended.blockID, state: .ended, scheduledAt: ended.startClock.description,
                                lateMs: 0, joinedAtMs: nil))
        }
        if let entry {
            emit(.scheduleBlock(block: entry.blockID, state: .started, scheduledAt: entry.startClock.description,
                                lateMs: lateMs, joinedAtMs: joinedMs))
            // A cue that failed while this commit was being recorded: told now.
            if let ticket, case .failed(let why) = player.cueOutcome(ticket) { cueFailed(entry, why: why, generation: generation) }
        }
        plan()
    }

    /// A switch to `entry` (nil: filler) found nothing to play after its commit had passed:
    /// on the next tick, what the commit would have done: with no filler the player stops (the
    /// standby is on air, as status says); a block with nothing to play is not on air, the
    /// filler is. Unless the plan changed meanwhile.
    func committedNothing(_ entry: ProgrammeEntry?, generation: Int) {
        onTimeline(outputSeconds() + 1 / Double(tickClock.tickRate), .late) { [weak self] in
            guard let self, self.isCurrent(generation) else { return }
            if let entry { self.cueFailed(entry, why: "nothing to play", generation: generation) } else { self.player.stop() }
        }
    }

    /// What a cue for `entry` tells the runner once it is settled (on the player's queue).
    func whenSettled(_ entry: ProgrammeEntry?, generation: Int) -> @Sendable (MediaPlayer.CueOutcome) -> Void {
        { [weak self] outcome in
            if case .failed(let why) = outcome, let entry { self?.cueFailed(entry, why: why, generation: generation) }
        }
    }

    /// `entry`'s cue failed after its commit said it was on air (realtime: the commit does not
    /// wait): it is not; the filler is, from the next tick, and status and `schedule.block` say
    /// so. A cue that failed before its commit is the commit's to tell.
    func cueFailed(_ entry: ProgrammeEntry, why: String, generation: Int) {
        let since = outputSeconds()
        let wasOnAir = state.withLock { s -> Bool in
            guard s.generation == generation, let current = s.onAir?.entry,
                  current.block == entry.block, current.start == entry.start else { return false }
            s.onAir = OnAir(entry: nil, since: since, lateMs: 0)
            return true
        }
        guard wasOnAir else { return }
        setLevels(for: nil)
        fillerNextTick(generation: generation)
        emit(.warning("schedule: \(entry.blockID) could not start: \(why)"))
        emit(.scheduleBlock(block: entry.blockID, state: .ended, scheduledAt: entry.startClock.description,
                            lateMs: 0, joinedAtMs: nil))
    }
}

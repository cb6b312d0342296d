import Foundation

/// Steering the programme (docs/control.md, `ctl schedule reload`, `ctl skip`): a new
/// programme, a replan, a skip, and the switch they all make on the next tick.
extension ScheduleRunner {
    /// A new programme (`ctl schedule reload`, its file changed), checked in full before:
    /// what it has on air now goes on air on the next tick, unless that is already on air;
    /// the switches after are planned anew.
    func replace(_ programme: Programme) {
        guard let generation = nextGeneration(programme: programme) else { return }
        replan(generation, knownOnly: true)
    }

    /// What the programme has on air now goes on air on the next tick (joined where it is),
    /// unless that is already on air; the switches after are planned anew. `knownOnly`: only
    /// lengths known already count (`content`): on the timeline thread, which never waits.
    func replan(_ generation: Int, knownOnly: Bool = false) {
        let entry = programme.onAir(at: now)
        if entry.map(isOnAir) ?? (onAir?.entry == nil) {
            plan()
        } else {
            switchNow(to: entry, joining: true, generation: generation, knownOnly: knownOnly)
        }
    }

    /// `ctl skip`: the next block goes on air now, from its top. Returns its id, or
    /// nil when the programme has no block ahead.
    func skip() -> String? {
        let now = self.now
        guard let next = programme.upcoming(after: max(now, onAir?.entry?.start ?? now), count: 1).first else { return nil }
        // Only now are the switches planned before called off: a refused skip changes nothing.
        guard let generation = nextGeneration() else { return nil }
        switchNow(to: next, joining: false, generation: generation)
        return next.blockID
    }

    /// Cues `entry` (nil: filler) now and commits it on the next tick. `joining`: where
    /// it is by the clock, else from its top.
    func switchNow(to entry: ProgrammeEntry?, joining: Bool, generation: Int, knownOnly: Bool = false) {
        let (programme, now) = (self.programme, self.now)
        let due = outputSeconds() + 1 / Double(tickClock.tickRate)
        // A block joined where it is says how far in (a reload, a wall-clock step).
        let joined = joining ? entry.map { Int((now.timeIntervalSince($0.start) * 1000).rounded()) }.flatMap { $0 > 0 ? $0 : nil } : nil
        let cue = makeCue(entry, at: joining ? now : entry?.start ?? now, programme: programme, tick: tickClock.tick(at: due),
                          knownOnly: knownOnly, generation: generation)
        onTimeline(due, .commit) { [weak self] in
            guard let self, self.isCurrent(generation) else {
                if let ticket = cue.drop() { self?.player.cancelCue(ticket) }
                return
            }
            self.commit(cue, entry: entry, scheduled: entry?.start ?? now, due: due, generation: generation, joinedMs: joined)
        }
    }
}

import Foundation

/// Starting the programme (docs/presets.md, Schedule): what is on air at the start, joined
/// where it is once its items' lengths are known, and the first switch planned.
extension ScheduleRunner {
    /// Before the player starts, the run starting at `start` (output second 0): what is
    /// on air then (a block joined where it is, docs/presets.md "Joining in progress",
    /// else filler) becomes its content.
    /// Returns whether the player has something to play from the start (else it waits,
    /// stopped, for the programme's first switch).
    /// Nothing waits for a network item's probe: a block joined after its start whose items'
    /// lengths are not all known yet leaves the filler (or nothing) on air until `begin` has
    /// found them in the background (`joinWhenKnown`); local files are probed here.
    @discardableResult
    func prime(start: Date = Date()) -> Bool {
        let programme = state.withLock { s in
            s.anchor = start
            return s.programme
        }
        var entry = programme.onAir(at: start)
        if let e = entry, start.timeIntervalSince(e.start) >= 0.001 {
            // Local files are probed now (milliseconds each); a network item is not waited for.
            _ = durations.durations(of: e.items.filter { ["file", nil].contains(PathResolution.sourceScheme(of: $0)) })
            if lengthsPending(e, at: start) {
                state.withLock { $0.joinLater = e }
                entry = nil
            }
        }
        let (playlist, offset) = content(entry, at: start, programme: programme, onTimeline: true)
        if let playlist { player.prime(playlist, startAt: offset, then: followOn(entry, programme: programme)) }
        setLevels(for: entry)
        state.withLock { $0.onAir = OnAir(entry: entry, since: 0, lateMs: 0) }
        if let entry {
            let joined = Int((start.timeIntervalSince(entry.start) * 1000).rounded())
            emit(.scheduleBlock(block: entry.blockID, state: .started, scheduledAt: entry.startClock.description,
                                lateMs: 0, joinedAtMs: joined > 0 ? joined : nil))
        }
        return playlist != nil || player.settings.source != nil || player.settings.playlist != nil
    }

    /// Once the timeline exists: the switches from the run's start on are planned, and in
    /// realtime the wall clock is watched on every tick.
    func begin() {
        plan()
        if realtime { watchClock() }
        if let entry = state.withLock({ s in defer { s.joinLater = nil }; return s.joinLater }) { joinWhenKnown(entry) }
    }

    /// Whether `entry` joined at `instant` (after its start) needs lengths not found yet: it is
    /// joined once they are (`joinWhenKnown`), never by waiting for them.
    func lengthsPending(_ entry: ProgrammeEntry, at instant: Date) -> Bool {
        instant.timeIntervalSince(entry.start) >= 0.001
            && entry.items.contains { durations.known($0) == nil && durations.failure($0) == nil }
    }

    /// In the background (`programme-join`): the lengths of `entry`'s items are looked for on
    /// `programme-probe`, one at a time, for `durations.deadline` at most (those not found by
    /// then count as unknown: docs/presets.md, Joining a block in progress; probing stops once
    /// the plan changes); then what the programme has on air goes on air, joined where it is,
    /// unless a reload or skip came meanwhile.
    func joinWhenKnown(_ entry: ProgrammeEntry) {
        let generation = state.withLock { $0.generation }
        let probed = DispatchGroup()
        probeQueue.async(group: probed) { [weak self] in
            for item in entry.items {
                guard let self, self.isCurrent(generation) else { return }
                if self.durations.known(item) == nil { _ = self.durations.durations(of: [item]) }
            }
        }
        joinQueue.async { [weak self] in
            guard let deadline = self?.durations.deadline else { return }
            _ = probed.wait(timeout: .now() + deadline)
            guard let self else { return }
            if let next = self.nextGeneration(from: generation) { self.replan(next, knownOnly: true) }
        }
    }
}

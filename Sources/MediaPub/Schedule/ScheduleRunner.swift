import Foundation
import Synchronization

/// Plays a programme (docs/presets.md, Schedule) on its player, on the output timeline.
///
/// The output timeline is the clock: output second `t` is the wall instant `anchor + t`.
/// As fast as possible the anchor is the run's start, so an hour of programme plays in
/// seconds; in realtime it is taken again from the wall clock at each switch planned, and
/// at once when the wall clock moves by more than a frame against the monotonic clock
/// (checked every tick): a clock that NTP corrects or an operator sets is followed (the
/// timeline itself never jumps back).
///
/// Each switch (a block's start, a block's end to filler) is cued on the player
/// `lead` seconds ahead (its content opened beside what plays), on the runner's own
/// `programme-cue` queue (`ScheduleCue`), and committed on the timeline thread just before
/// the tick its instant falls on: it lands on that frame. The timeline thread only decides
/// and commits: it never opens, reads or checks anything (docs/design.md, What may run on
/// the timeline thread).
/// Reload and skip bump `generation`: actions planned before do nothing.
final class ScheduleRunner: Sendable {
    let player: MediaPlayer
    let realtime: Bool
    /// Output ticks per second.
    let tickClock: TickClock
    let emit: @Sendable (Event) -> Void
    /// Puts an action on the timeline, at an output second, in place of the one waiting under
    /// its key (`Broadcast.schedule`, `TimelineActions`): a plan replaces its predecessor's
    /// actions, so that reloads and skips leave no more waiting than one plan's.
    let onTimeline: @Sendable (Double, Timeline, @escaping @Sendable () -> Void) -> Void

    /// The runner's actions on the timeline, one of each waiting at most.
    enum Timeline: String, Sendable {
        /// A switch's cue, `lead` ahead of it.
        case cue = "programme.cue"
        /// A switch's commit, on its tick.
        case commit = "programme.commit"
        /// The filler after a block's player ended.
        case filler = "programme.filler"
        /// The wall clock's check, every tick of a realtime run.
        case clock = "programme.clock"
        /// A switch with nothing to play, made after its commit (realtime): what its commit
        /// would have done, on the next tick.
        case late = "programme.late"
    }
    /// The output seconds so far (the capture's).
    let outputSeconds: @Sendable () -> Double

    /// How far ahead of its instant a switch is prepared.
    static let lead: TimeInterval = 5
    /// How long a commit may wait for its content as fast as possible (realtime: not at all).
    static let commitWait: TimeInterval = 10

    struct OnAir: Sendable {
        /// nil: filler.
        var entry: ProgrammeEntry?
        /// The output second it went on air.
        var since: Double
        var lateMs: Int
    }

    struct State {
        var programme: Programme
        var generation = 0
        /// The wall instant of output second 0.
        var anchor: Date
        var onAir: OnAir?
        /// The next switch planned: its instant and what goes on air then (nil: filler).
        var next: (at: Date, entry: ProgrammeEntry?)?
        /// Realtime: the wall clock and the monotonic clock (uptime, ns) when the anchor was
        /// last taken; the wall clock has moved when it gained on the other since.
        var clockMark: (wall: Date, uptime: UInt64)?
        /// The block on air at the start, joined once its items' lengths are found.
        var joinLater: ProgrammeEntry?
        /// The cues made for this generation's plan and not committed yet: called off when the
        /// plan changes (their actions then do nothing, or were replaced under their key and
        /// never run), so that no stale cue keeps its content open.
        var cues: [ObjectIdentifier: ScheduleCue] = [:]
    }
    let state: Mutex<State>
    /// The player's levels from before a block with levels of its own (`publish_volume`,
    /// `play_volume`) went on air, given back when it ends (nil: no such block on air).
    private let savedLevels = Mutex<(publish: Int, play: Int)?>(nil)
    /// Items' lengths, probed once each for the run (joining a block in progress).
    let durations: ItemDurations
    /// Waits for a joined block's lengths (`joinWhenKnown`), then joins it: one thread at most.
    let joinQueue = DispatchQueue(label: "programme-join")
    /// Probes a joined block's items, one at a time (one thread at most, each probe bounded by
    /// its deadline), until a reload, skip, step or join changes the plan or the run ends.
    let probeQueue = DispatchQueue(label: "programme-probe")
    /// Makes the switches' cues (`ScheduleCue`), one at a time, in the order asked.
    let cueQueue = DispatchQueue(label: "programme-cue")
    /// The wall clock (tests give one they can step).
    let wallClock: @Sendable () -> Date

    init(programme: Programme, player: MediaPlayer, realtime: Bool, tickClock: TickClock,
         emit: @escaping @Sendable (Event) -> Void,
         onTimeline: @escaping @Sendable (Double, Timeline, @escaping @Sendable () -> Void) -> Void,
         outputSeconds: @escaping @Sendable () -> Double, probeDeadline: TimeInterval = 10,
         wallClock: @escaping @Sendable () -> Date = { Date() }) {
        durations = ItemDurations(deadline: probeDeadline)
        self.wallClock = wallClock
        self.player = player
        self.realtime = realtime
        self.tickClock = tickClock
        self.emit = emit
        self.onTimeline = onTimeline
        self.outputSeconds = outputSeconds
        state = Mutex(State(programme: programme, anchor: wallClock()))
    }

    var programme: Programme { state.withLock { $0.programme } }
    var onAir: OnAir? { state.withLock { $0.onAir } }

    /// The wall instant the output is at now.
    var now: Date {
        let t = outputSeconds()
        return state.withLock { $0.anchor }.addingTimeInterval(t)
    }

    // MARK: Planning

    /// Plans the next switch after what is on air now: a cue `lead` ahead, its commit on the tick.
    func plan() {
        let (generation, anchor, programme, onAir) = state.withLock { s in
            if realtime {
                s.anchor = wallClock().addingTimeInterval(-outputSeconds())
                s.clockMark = clocks() ?? s.clockMark
            }
            return (s.generation, s.anchor, s.programme, s.onAir)
        }
        let from = anchor.addingTimeInterval(outputSeconds())
        guard let at = Self.nextSwitch(after: from, current: onAir?.entry, programme: programme) else {
            state.withLock { $0.next = nil }
            return
        }
        let entry = programme.onAir(at: at)
        state.withLock { s in if s.generation == generation { s.next = (at, entry) } }
        let due = max(0, at.timeIntervalSince(anchor))
        let cue = Mutex<ScheduleCue?>(nil)
        // On the timeline only the cue's order: it is made on the cue queue.
        onTimeline(max(0, due - Self.lead), .cue) { [weak self] in
            guard let self, self.isCurrent(generation) else { return }
            let made = self.makeCue(entry, at: at, programme: programme, tick: self.tickClock.tick(at: due),
                                    knownOnly: true, generation: generation)
            cue.withLock { $0 = made }
        }
        onTimeline(due, .commit) { [weak self] in
            guard let self, self.isCurrent(generation) else { return }
            self.commit(cue.withLock { $0 }, entry: entry, scheduled: at, due: due, generation: generation)
        }
    }

    /// Makes the player's cue of `entry` (nil: filler) for output tick `tick`, its content as it
    /// is at `instant`, on the cue queue (`knownOnly`: only lengths known already count,
    /// `content`). A plan changed before it is made makes nothing.
    func makeCue(_ entry: ProgrammeEntry?, at instant: Date, programme: Programme, tick: UInt64, knownOnly: Bool,
                 generation: Int, isFiller: Bool = false) -> ScheduleCue {
        let cue = ScheduleCue(isFiller: isFiller)
        let current = state.withLock { s in
            if s.generation == generation { s.cues[ObjectIdentifier(cue)] = cue }
            return s.generation == generation
        }
        // A plan changed already: called off before it is made.
        if !current { _ = cue.drop() }
        cueQueue.async { [weak self] in
            guard let self, self.isCurrent(generation),
                  case let (playlist?, offset) = self.content(entry, at: instant, programme: programme, onTimeline: knownOnly)
            else {
                // Its commit came before (realtime, the queue was busy): the commit took it as
                // still being made and did nothing; what it would have done is done now.
                if cue.made(.nothing) == .commit { self?.committedNothing(entry, generation: generation) }
                return
            }
            let ticket = self.player.cue(playlist, startAt: offset, at: tick, then: self.followOn(entry, programme: programme),
                                         onSettled: self.whenSettled(entry, generation: generation))
            switch cue.made(.cued(ticket)) {
            case .keep: break
            case .commit: _ = self.player.commitCue(ticket, wait: 0)
            case .cancel: self.player.cancelCue(ticket)
            }
        }
        return cue
    }

    /// The instant of the switch after `instant`: the end of the block on air, or the next
    /// block's start, whichever is first; nil when nothing ever changes.
    static func nextSwitch(after instant: Date, current: ProgrammeEntry?, programme: Programme) -> Date? {
        // A block started early (`skip`) is not started again at its own time.
        let next = programme.upcoming(after: max(instant, current?.start ?? instant), count: 1).first?.start
        // A block that went on air after its own end (the one before finished its item) ends now.
        let end = current.map(\.end).flatMap { $0 != .distantFuture ? max($0, instant) : nil }
        switch (end, next) {
        case let (e?, n?): return min(e, n)
        case let (e?, nil): return e
        case let (nil, n?): return n
        case (nil, nil): return nil
        }
    }

    /// A new plan (a reload, skip or join; `programme`: the new programme): the generation moves
    /// on, unless it is no longer `expected`, and the cues made for the plan before are called off.
    func nextGeneration(from expected: Int? = nil, programme: Programme? = nil) -> Int? {
        let (generation, stale) = state.withLock { s -> (Int?, [ScheduleCue]) in
            if let expected, s.generation != expected { return (nil, []) }
            if let programme { s.programme = programme }
            s.generation += 1
            defer { s.cues.removeAll() }
            return (s.generation, Array(s.cues.values))
        }
        for cue in stale { if let ticket = cue.drop() { player.cancelCue(ticket) } }
        return generation
    }

    /// The cues made and not yet committed nor called off.
    var outstandingCues: Int { state.withLock { $0.cues.count } }

    /// `cue` is committed (or was called off): no longer the plan's to call off.
    func settled(_ cue: ScheduleCue?) {
        guard let cue else { return }
        state.withLock { _ = $0.cues.removeValue(forKey: ObjectIdentifier(cue)) }
    }

    func isCurrent(_ generation: Int) -> Bool { state.withLock { $0.generation == generation } }

    /// Whether `entry` (that occurrence of its block) is what is on air.
    func isOnAir(_ entry: ProgrammeEntry) -> Bool {
        let current = onAir?.entry
        return entry.block == current?.block && entry.start == current?.start
    }

    /// The levels of what goes on air: a block's own while it plays; the player's as they
    /// were before it (its preset's, or what `ctl volume` set) once it ends.
    func setLevels(for entry: ProgrammeEntry?) {
        let block = entry?.block
        let own = (player.settings.publishVolume, player.settings.playVolume)
        let before = savedLevels.withLock { saved -> (publish: Int, play: Int)? in
            if block?.publishVolume != nil || block?.playVolume != nil {
                if saved == nil { saved = own }
                return saved
            }
            defer { saved = nil }
            return saved
        }
        guard let before else { return }
        player.setPublishVolume(block?.publishVolume ?? before.publish)
        player.setPlayVolume(block?.playVolume ?? before.play)
    }

    /// Seconds of the player's item left to play (nil: not playing, or its length not known),
    /// on the timeline thread: its length as the player last had it, the pipeline not asked.
    func remainingOfItem() -> TimeInterval? {
        guard player.currentState == .playing, let length = player.lengthMs else { return nil }
        return max(0, Double(length - player.positionMs) / 1000)
    }

    /// What the player goes on with once a block's content is over (a `once` block has played
    /// all it had): the filler, until the block ends (docs/presets.md, Joining a block in
    /// progress), as a cut the player makes on the block's last sample. nil for the filler.
    func followOn(_ entry: ProgrammeEntry?, programme: Programme) -> Playlist? {
        entry == nil ? nil : content(nil, at: Date(), programme: programme).0
    }

    /// The filler (if there is one) goes on air on the next tick, unless the plan changes first.
    func fillerNextTick(generation: Int) {
        let due = outputSeconds() + 1 / Double(tickClock.tickRate)
        let programme = self.programme
        guard programme.config.filler != nil else { return }
        // A filler asked for before in this plan, not committed yet, is replaced: called off.
        let replaced = state.withLock { s in s.cues.values.filter { $0.isFiller } }
        for old in replaced {
            if let ticket = old.drop() { player.cancelCue(ticket) }
            settled(old)
        }
        let cue = makeCue(nil, at: now, programme: programme, tick: tickClock.tick(at: due), knownOnly: true, generation: generation,
                          isFiller: true)
        onTimeline(due, .filler) { [weak self] in
            guard let self, self.isCurrent(generation) else { return }
            let wait = self.realtime ? 0 : Self.commitWait
            let made = cue.commit(wait: wait)
            self.settled(cue)
            if let ticket = made.ticket { _ = self.commitOnTimeline(ticket, wait: wait) }
        }
    }

    /// The player's cue of `ticket` committed, on the timeline thread (the item after it, the
    /// player's gapless preload, is opened on the player's opener queue).
    func commitOnTimeline(_ ticket: Int, wait: TimeInterval) -> MediaPlayer.CueOutcome {
        player.commitCue(ticket, wait: wait)
    }
}

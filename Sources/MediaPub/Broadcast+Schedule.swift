import Foundation

/// A run with a programme (docs/presets.md, Schedule): its runner, made with the
/// broadcast, primes the programme's player before it starts and plans the switches
/// once the timeline exists.
extension Broadcast {
    /// The runner of `preset.schedule` on its player; nil without a programme.
    static func scheduleRunner(for preset: Preset, players: [MediaPlayer], format: MediaFormat, realtime: Bool,
                               broadcast: @escaping @Sendable () -> Broadcast?) -> ScheduleRunner? {
        guard let config = preset.schedule,
              let player = players.first(where: { $0.id == config.player }) ?? players.first else { return nil }
        return ScheduleRunner(
            programme: Programme(config), player: player, realtime: realtime, tickClock: format.tickClock,
            emit: { event in broadcast()?.reporter.report(event) },
            onTimeline: { seconds, key, action in broadcast()?.atOutputTime(seconds, key: key.rawValue) { _ in action() } },
            outputSeconds: { broadcast()?.capture?.outputSeconds ?? 0 })
    }

    /// Once the timeline exists: the programme's switches are planned, and its file (if it
    /// has one of its own) is watched and read again when it changes.
    func beginProgramme() {
        guard let runner = programmeRunner else { return }
        runner.begin()
        guard let file = runner.programme.config.file else { return }
        let watch = ProgrammeFileWatch(path: file, queue: DispatchQueue(label: "programme-file")) { [weak self] in
            self?.log.info("schedule: \(file) changed: read again")
            try? self?.reloadSchedule()   // a broken file is said (an error event) and the programme kept
        }
        state.withLock { $0.programmeWatch = watch }
    }

    /// `ctl schedule`: the programme now; nil without one.
    public func scheduleStatus() -> ScheduleStatus? {
        programmeRunner?.status()
    }

    /// The programme's runner, once the run began.
    var programmeRunner: ScheduleRunner? { state.withLock { $0.programme } }

    /// The timeline, while it runs.
    var capture: Capture? { state.withLock { $0.phase.capture } }
}

extension Broadcast {
    /// `ctl schedule reload`: the programme's file read again and checked in full; a
    /// broken one leaves the programme on air as it was, and says why (file:line: key).
    func reloadSchedule() throws {
        guard let runner = programmeRunner else { throw ControlFailure("schedule: this run has no programme") }
        guard let file = runner.programme.config.file else {
            throw ControlFailure("schedule reload: the programme is in the preset; give it a file of its own (schedule: { file: … })")
        }
        do {
            let config = try ScheduleConfig.load(file: file, for: preset)
            runner.replace(Programme(config))
        } catch {
            let why = error.problems.map(\.description).joined(separator: "; ")
            reporter.report(.error("schedule reload: \(why); the programme on air is kept"))
            throw ControlFailure("schedule reload: \(why)")
        }
    }

    /// `ctl skip`: the programme's next block now.
    func skipBlock() throws {
        guard let runner = programmeRunner else { throw ControlFailure("skip: this run has no programme") }
        guard runner.skip() != nil else { throw ControlFailure("skip: the programme has no block ahead") }
    }
}

extension Broadcast {
    /// The wall instant the programme starts from: `--from` (a rehearsal as fast as
    /// possible, docs/presets.md, Schedule), else now. `--from` without a programme, in a
    /// realtime run or not a date and time is refused, saying why.
    static func programmeStart(_ preset: Preset, _ options: RunOptions, realtime: Bool) throws -> Date {
        guard let text = options.programmeFrom else { return Date() }
        guard let schedule = preset.schedule else {
            throw MediaPubError.usage("--from \(text.clipped()): \(preset.file) has no programme (schedule:)")
        }
        guard !realtime else {
            throw MediaPubError.usage("--from \(text.clipped()): a realtime run plays the programme as the clock goes; "
                                      + "add --no-realtime to rehearse it from another time")
        }
        guard case .success(.once(let local)) = ScheduleBlock.Start.parse(text) else {
            throw MediaPubError.usage("--from \(text.clipped()): expected a date and time such as \"2026-12-24 19:55\"")
        }
        return schedule.zone.instant(local)
    }
}

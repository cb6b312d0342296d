import Foundation
import Synchronization

/// One broadcast: players → capture → publisher → outputs, run to the end.
/// The composition root: it makes the parts and wires them; what the run
/// offers while it runs is `RunServices`, when it ends and how is
/// `ExitPolicy`, what it says is `Reporter`, its terminal line `ProgressLine`.
public final class Broadcast: Sendable {
    public let preset: Preset
    let options: RunOptions
    let log: Logger
    public let events: Events
    let format: MediaFormat
    public let players: [MediaPlayer]
    let reporter: Reporter
    private let exitPolicy = ExitPolicy()
    /// An endless source of the preset, as given (nil: none): the run is paced to the wall clock.
    let endlessSource: String?
    /// The live feed that takes the output over while it delivers (Broadcast+LiveFeed.swift).
    let liveFeed: LiveFeedTakeover?
    /// The logos and texts drawn on the output picture (Broadcast+Overlays.swift); nil: none.
    let overlays: OverlayFeed?
    private let started = MonotonicInstant.now
    /// `run` was called (it runs once).
    private let ran = Atomic<Bool>(false)
    /// What the Icecast mounts announce as playing (StreamTitle.swift).
    let streamTitle = StreamTitle()

    struct State {
        var phase: BroadcastPhase
        var runState = RunState.starting
        /// The programme's runner (Broadcast+Schedule.swift), once the run began.
        var programme: ScheduleRunner?
        var programmeWatch: ProgrammeFileWatch?
    }
    let state: Mutex<State>

    public init(preset: Preset, options: RunOptions = RunOptions(), log: Logger = Logger(), events: Events = Events()) throws {
        // A reader that goes away (events on a closed pipe, stderr to `| head`)
        // must cost its own output, not the process: writes then fail with EPIPE.
        signal(SIGPIPE, SIG_IGN)
        GStreamer.initialize()
        guard preset.players.count <= Preset.maxPlayers else { throw MediaPubError.tooManyPlayers(Preset.maxPlayers) }
        if let why = RunBounds.firstProblem(preset, options) { throw MediaPubError.usage(why) }
        endlessSource = EndlessSources.first(in: preset)
        if options.realtime == false, let endless = endlessSource {
            throw MediaPubError.usage("--no-realtime: \(SecretMask.mask(url: endless)) is a live source (its media comes as the clock goes, "
                                      + "without an end): a run with it is realtime; drop --no-realtime")
        }
        events.onNotice = { [log] level, text in log.log(level, text) }
        // The log falling behind (stderr nobody reads) is said on the events.
        log.onFallingBehind = { [events] text in events.emit(.warning(text)) }
        self.preset = preset
        self.options = options
        self.log = log
        self.events = events
        reporter = Reporter(log: log, events: events)
        state = Mutex(State(phase: .preparing(BroadcastPhase.Pending(publishing: preset.publishing))))
        format = MediaFormat(preset: preset)
        let videoIndex = preset.videoPlayerIndex
        players = preset.players.enumerated().map { index, config in
            MediaPlayer(config: config, format: MediaFormat(preset: preset), feedsVideo: index == videoIndex, reconnect: preset.reconnect)
        }
        liveFeed = Self.liveFeedTakeover(preset, format: format, programme: players, reporter: reporter)
        overlays = Self.overlayFeed(preset, outputs: options.outputConfigs(of: preset), format: format, reporter: reporter)
        ItemLoudness.share(preset.audio.loudness, channels: format.channels, among: players, monitored: preset.monitor)
        for player in players {
            player.setEventHandler { [weak self, weak player] event in
                guard let self, let player else { return }
                self.reporter.player(event, of: player)
                if case .track(_, let source, _, let tags) = event { self.trackChanged(player, source: source, tags) }
            }
        }
        guard !outputURLs.isEmpty else {
            throw MediaPubError.usage("\(preset.file): no outputs: add outputs to the preset or give --output URL")
        }
        // The preset's outputs are checked as it loads (RecordingNameChecks); `--output`s here.
        let targets = options.outputs.map(\.target)
        for j in targets.indices {
            guard let i = targets.indices.first(where: { $0 < j && targets[$0].mayWriteSameNames(as: targets[j]) }) else { continue }
            let (first, second) = (SecretMask.mask(url: options.outputs[i].text), SecretMask.mask(url: options.outputs[j].text))
            throw MediaPubError.usage("--output \(second) and --output \(first) would write files of the same names: give each its own")
        }
        // Whatever GStreamer logs of these (GST_DEBUG), it logs masked.
        let sources = preset.players.flatMap { [$0.source].compactMap { $0 } + ($0.playlist?.items ?? []) }
        LibraryLog.addSecrets(of: outputURLs + sources + [preset.standby.image, preset.standby.audio, preset.events.webhook, preset.live?.source].compactMap { $0 })
        _ = try Self.programmeStart(preset, options, realtime: realtime)
    }

    /// The outputs: `--output` URLs (named by index), else the preset's.
    var outputConfigs: [OutputConfig] {
        options.outputConfigs(of: preset)
    }

    var outputURLs: [String] { outputConfigs.map(\.url.text) }

    /// Given, else realtime when a source is endless or an output wants it (`OutputTarget.wantsRealtime`), or the run plays a
    /// programme, which keeps wall-clock time (docs: README, run options).
    public var realtime: Bool {
        options.realtime ?? (endlessSource != nil || preset.schedule != nil || outputConfigs.contains { $0.url.target.wantsRealtime })
    }

    /// The publishing flag; set before the timeline starts, it is the flag it starts with.
    public var publishing: Bool {
        get {
            state.withLock { s in
                switch s.phase {
                case .preparing(let pending), .publisherReady(_, let pending): pending.publishing
                case .running(_, let capture): capture.publishing
                }
            }
        }
        set {
            state.withLock { s in
                s.phase.withPending { $0.publishing = newValue }
                s.phase.capture?.publishing = newValue
            }
            reporter.report(.publishing(newValue))
        }
    }

    /// What the events' destinations and the log lost by falling behind (`/metrics`).
    var consumerDrops: [ConsumerDrops] { events.drops + [log.drops].compactMap { $0 } }

    public func player(_ id: String) -> MediaPlayer? { players.first { $0.id == id } }

    /// The `status` of docs/status.md.
    public func status() -> RunStatus {
        let (runState, publisher, capture) = state.withLock { ($0.runState, $0.phase.publisher, $0.phase.capture) }
        return RunStatus(name: preset.name, state: runState, uptimeMs: Int(MonotonicInstant.now.timeIntervalSince(started) * 1000),
                         publishing: publishing, outputTimeMs: Int((capture?.outputSeconds ?? 0) * 1000),
                         players: players.map(PlayerStatus.init), outputs: (publisher?.outputs ?? []).map(\.status),
                         schedule: scheduleStatus(), live: liveFeedStatus(), alerts: capture?.contentWatch?.status,
                         overlays: overlayStatus(), loudness: capture?.master.reading.map { LoudnessStatus($0, target: preset.audio.loudness?.target) },
                         timeline: capture?.lag.map { TimelineStatus(lagMs: $0.lagMs) })
    }

    /// `/health` (docs/metrics.md): on air while the timeline advances and an output publishes.
    public func health() -> Health {
        let capture = state.withLock { $0.phase.capture }
        return Health.of(status(), secondsSinceLastTick: capture?.secondsSinceLastTick)
    }

    /// Retries an output now: by id (its `id:`, else its index), by index, by masked
    /// URL, or all network outputs when nil.
    public func reconnect(output: String?) throws {
        guard let outputs = state.withLock({ $0.phase.publisher?.outputs }) else { throw MediaPubError.usage("reconnect: not running yet") }
        let chosen: [Output]
        if let output {
            if let named = outputs.first(where: { $0.id == output }) { chosen = [named] }
            else if let index = Int(output), outputs.indices.contains(index) { chosen = [outputs[index]] }
            else { chosen = outputs.filter { $0.maskedURL == output } }
            guard !chosen.isEmpty else {
                throw MediaPubError.usage("reconnect: no output \(output.clipped()) (\(outputs.map(\.id).joined(separator: ", ")), an index or a masked URL)")
            }
        } else {
            chosen = outputs.filter { $0.target.isNetwork }
        }
        if let file = chosen.first(where: { !$0.target.isNetwork }) {
            throw MediaPubError.usage("reconnect: \(file.maskedURL) is a recording; only network outputs reconnect")
        }
        for o in chosen { o.reconnectNow() }
    }

    private func setRunState(_ runState: RunState) {
        state.withLock { $0.runState = runState }
        reporter.report(.runState(runState, name: preset.name))
    }

    /// Runs `action` on the timeline when the output reaches `seconds`: exact in
    /// output time, whether the run is realtime or as fast as possible. With a `key`, in
    /// place of the action waiting under it (`TimelineActions`).
    public func atOutputTime(_ seconds: Double, key: String? = nil, _ action: @escaping @Sendable (Broadcast) -> Void) {
        state.withLock { s in
            if let capture = s.phase.capture {
                capture.atOutputTime(seconds, key: key) { [weak self] in if let self { action(self) } }
            } else {
                s.phase.withPending { p in
                    if let key { p.timelineActions.removeAll { $0.key == key } }
                    p.timelineActions.append((seconds, key, action))
                }
            }
        }
    }

    /// Graceful stop: the timeline ends, outputs get EOS, files are finalised.
    public func requestStop() {
        state.withLock { s in
            s.phase.withPending { $0.stopRequested = true }
            return s.phase.capture
        }?.requestStop()
    }

    /// The run fails with `why`: the timeline stops, and the run exits 1.
    private func fail(_ why: String) {
        exitPolicy.fail(why)
        state.withLock { $0.phase.capture }?.requestStop()
    }

    /// An output's state change, told holding none of the output's locks (Output.offer
    /// tells it once `audioPush` is released; docs/design.md, Lock order).
    private func outputState(_ output: Output, _ outputState: OutputState, _ error: String?) {
        let publisher = state.withLock { $0.phase.publisher }
        reporter.output(output, outputState, error)
        exitPolicy.output(output.id, outputState, error)
        if ExitPolicy.endsRun(outputState, allOutputsFailed: publisher?.allOutputsFailed == true) {
            fail("every output failed")
        }
    }

    /// Runs to the end; returns the exit code and why it stopped.
    public func run() -> RunResult {
        // Its players, publisher and timeline are made for one run: a second is refused, touching nothing.
        guard !ran.exchange(true, ordering: .relaxed) else {
            return RunResult(.usage, "\(preset.name): a broadcast runs once; make another to run again")
        }
        var services = RunServices(webhook: preset.events.webhook, eventStream: options.http != nil, reporter: reporter)
        defer { services.stop() }
        setRunState(.starting)
        do {
            try services.start(options, for: self)
        } catch {
            reporter.report(.error("\(error)"))
            return stopped(ExitPolicy.pathInUse(error))
        }
        // One run per HLS playlist: a second one is refused before it writes anything.
        let playlists: [HLSPlaylistLock]
        do { playlists = try HLSPlaylistLock.acquire(outputConfigs.map(\.url.target), instance: preset.name) } catch {
            reporter.report(.error("\(error)"))
            return stopped(RunResult(.usage, "\(error)"))
        }
        defer { playlists.forEach { $0.release() } }
        do {
            return try runTimeline()
        } catch {
            let message = masked("\(error)")
            // The players (started before the publisher) are stopped first: their
            // last events go out before the error, which the run ends on.
            state.withLock { $0.phase.publisher }?.finish(timeout: 5)
            for player in players { player.stop(); player.drainEvents() }
            liveFeed?.stop()
            reporter.report(.error(message))
            return stopped(ExitPolicy.failedToStart(message))
        }
    }

    /// Says that the run ended (`run.stopped`, with `line` in the log) and returns how.
    private func stopped(_ result: RunResult, _ line: LogLine? = nil) -> RunResult {
        reporter.report(.runStopped(reason: result.reason, exitCode: result.exitCode), line)
        return result
    }

    /// Sets up the publisher and the timeline, runs it to its end, and finishes the outputs.
    private func runTimeline() throws -> RunResult {
        let stopAfter = options.duration ?? preset.stop.after
        var slate: Slate.Picture? = nil
        if format.video != nil {
            slate = try preset.standby.image.map { .image(try Slate.image($0, format: format)) } ?? .color(preset.standby.color)
        }
        let ringtone = preset.standby.audio.map {
            MediaPlayer(config: PlayerConfig(id: "standby", source: $0, repeat: true), format: format, feedsVideo: false)
        }
        // The players load first: their files are opened, typefound and demuxed on
        // their own threads while the encoder is built (libav, x264), and the first
        // frame reaches the outputs that much sooner. A publisher that fails stops them (`run`).
        let programme = Self.scheduleRunner(for: preset, players: players, format: format, realtime: realtime) { [weak self] in self }
        let primed = programme?.prime(start: (try? Self.programmeStart(preset, options, realtime: realtime)) ?? Date())
        state.withLock { $0.programme = programme }
        // The programme's player with nothing on air yet waits, stopped, for its first block.
        for player in players where primed != false || player !== programme?.player { player.start() }
        liveFeed?.start()
        let publisher = try Publisher(format: format, video: preset.video, audio: preset.audio, outputs: outputConfigs,
                                      reconnect: preset.reconnect, paced: realtime, streamTitle: streamTitle, log: log,
                                      onEncoderFailure: { [weak self] why in self?.fail(why) },
                                      onOutputState: { [weak self] output, state, error in self?.outputState(output, state, error) },
                                      onRecording: { [weak self] output, notice in self?.reporter.recording(output, notice) },
                                      overlays: overlays?.chain)
        state.withLock { s in
            if case .preparing(let pending) = s.phase { s.phase = .publisherReady(publisher, pending) }
        }
        exitPolicy.expect(publisher.outputs)
        try publisher.start()
        // Local files are ready in milliseconds; a slow source starts on the slate instead.
        if realtime { waitForPlayers(timeout: 1) }
        var monitor: Monitor? = nil
        if preset.monitor {
            if realtime { monitor = try? Monitor(format: format, log: log) }
            else { log.warn("monitor: off when running as fast as possible (use --realtime)") }
        }
        defer { monitor?.stop() }
        // Made under the lock: a `publish on|off` arriving meanwhile is the flag it starts with.
        let (capture, stopEarly) = state.withLock { s -> (Capture, Bool) in
            // `.publisherReady` since the publisher was made (`run` runs once).
            var pending = BroadcastPhase.Pending(publishing: preset.publishing)
            if case .publisherReady(_, let asked) = s.phase { pending = asked }
            let capture = Capture(format: format, players: players, ringtone: ringtone, slate: slate,
                                  publishing: pending.publishing, realtime: realtime, stopAfter: stopAfter,
                                  stopAtEnd: preset.stop.atEnd && preset.schedule == nil, monitor: monitor, liveFeed: liveFeed,
                                  contentWatch: contentWatch(), loudness: preset.audio.loudness, codecs: publisher.audioCodecs, sink: publisher,
                                  beforePicture: overlayHook(),
                                  lag: TimelineLagWatch(tickRate: format.tickRate) { [reporter] in reporter.report($0) })
            s.phase = .running(publisher, capture)
            for (at, key, action) in pending.timelineActions { capture.atOutputTime(at, key: key) { [weak self] in if let self { action(self) } } }
            return (capture, pending.stopRequested || exitPolicy.hasFailed)
        }
        if stopEarly { capture.requestStop() }
        beginProgramme()
        for output in publisher.outputs {
            log.info("output \(output.displayName)")
            if let renamed = output.renamedRecording {
                reporter.report(.warning("\(renamed.requested) exists already and is left as it is: recording to \(renamed.written) instead"))
            }
        }
        log.info("running \(preset.name): \(realtime ? "realtime" : "as fast as possible")"
            + (stopAfter.map { " for \(MediaTime.formatDuration($0))" } ?? ""))
        setRunState(.running)
        let progress = ProgressLine(log: log, capture: capture, publisher: publisher, length: stopAfter)
        let reason = capture.run()
        progress.stop()
        state.withLock { $0.programmeWatch }?.stop()
        setRunState(.stopping)
        publisher.finish()
        for player in players { player.stop() }
        liveFeed?.stop()
        ringtone?.stop()
        for player in players { player.drainEvents() }
        let result = exitPolicy.result(stop: reason, encoderError: publisher.error)
        let finished = LogLine.info("finished: \(result.reason) after \(String(format: "%.2f", capture.outputSeconds))s of output")
        // The log says it once, as `finished:`; the event stream as `error` (when it failed), then `run.stopped`.
        guard result.exitCode != 0 else { return stopped(result, finished) }
        reporter.report(.error(masked(result.reason)), finished)
        return stopped(result)
    }

    /// A run-level failure as events and logs show it: the outputs' secrets masked
    /// (errors from GStreamer sinks can quote a URL).
    private func masked(_ text: String) -> String {
        outputURLs.reduce(text) { SecretMask.scrub($0, secretsOf: $1) }
    }
}

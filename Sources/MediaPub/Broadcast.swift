import CGStreamer
import Foundation

/// How a run is set up beyond the preset (SPEC §2 run options).
public struct RunOptions: Sendable {
    /// Replaces the preset's outputs when not empty.
    public var outputs: [OutputURL] = []
    public var duration: TimeInterval?
    /// nil: realtime when any network output exists.
    public var realtime: Bool?
    /// The control socket's path; nil: no control socket.
    public var controlPath: String?
    /// `--metrics ADDR:PORT`; nil: no metrics endpoint.
    public var metrics: String?
    public init() {}
}

/// The outcome of a run and its exit code (SPEC §2).
public struct RunResult: Sendable {
    public var exitCode: Int32
    public var reason: String
}

/// One broadcast: players → capture → publisher → outputs, run to the end.
public final class Broadcast: @unchecked Sendable {
    public let preset: Preset
    let options: RunOptions
    let log: Logger
    public let events: Events
    let format: MediaFormat
    public let players: [MediaPlayer]
    private var capture: Capture?
    private var publisher: Publisher?
    private let lock = NSLock()
    private var stopRequested = false
    private var failure: String?
    private let started = Date()

    public init(preset: Preset, options: RunOptions = RunOptions(), log: Logger = Logger(), events: Events = Events()) throws {
        // A reader that goes away (events on a closed pipe, stderr to `| head`)
        // must cost its own output, not the process: writes then fail with EPIPE.
        signal(SIGPIPE, SIG_IGN)
        GStreamer.initialize()
        guard preset.players.count <= Preset.maxPlayers else { throw MediaPubError.tooManyPlayers(Preset.maxPlayers) }
        // PresetLoader checks all of these; a Preset or RunOptions made in code is checked here,
        // so that no number reaches a conversion that would trap.
        if let why = Broadcast.outOfRange(preset, options) { throw MediaPubError.usage(why) }
        events.onDestinationFailure = { [log] why in log.warn(why) }
        self.preset = preset
        self.options = options
        self.log = log
        self.events = events
        format = MediaFormat(preset: preset)
        let videoIndex = preset.videoPlayerIndex
        players = preset.players.enumerated().map { index, config in
            MediaPlayer(config: config, format: MediaFormat(preset: preset), feedsVideo: index == videoIndex)
        }
        for player in players {
            player.setEventHandler { [weak self] event in self?.playerEvent(event, player: player) }
        }
        guard !outputURLs.isEmpty else {
            throw MediaPubError.usage("\(preset.file): no outputs: add outputs to the preset or give --output URL")
        }
        // Whatever GStreamer logs of these (GST_DEBUG), it logs masked.
        let sources = preset.players.flatMap { [$0.source].compactMap { $0 } + ($0.playlist?.items ?? []) }
        LibraryLog.addSecrets(of: outputURLs + sources + [preset.standby.image, preset.standby.audio, preset.events.webhook].compactMap { $0 })
    }

    /// The first number of `preset` or `options` outside what a run can do, named, or nil.
    static func outOfRange(_ preset: Preset, _ options: RunOptions) -> String? {
        let most = MediaTime.maxDuration
        func duration(_ key: String, _ t: TimeInterval?, min: TimeInterval = 0, open: Bool = false) -> String? {
            guard let t else { return nil }
            if t.isFinite, t <= most, open ? t > min : t >= min { return nil }
            return "\(key) \(t)s is out of range (more than \(MediaTime.formatDuration(min)), at most \(MediaTime.maxDurationText))"
        }
        func number<T: Comparable>(_ key: String, _ v: T, _ range: ClosedRange<T>) -> String? {
            range.contains(v) ? nil : "\(key) \(v) is out of range \(range.lowerBound)..\(range.upperBound)"
        }
        var problems: [String?] = [
            duration("--duration", options.duration, open: true),
            duration("stop.after", preset.stop.after, open: true),
            duration("reconnect.initial", preset.reconnect.initial, min: 0.1),
            duration("reconnect.max", preset.reconnect.max, min: 0.1),
            preset.reconnect.giveUpAfter == .infinity ? nil : duration("reconnect.give_up_after", preset.reconnect.giveUpAfter),
            number("audio.channels", preset.audio.channels, AudioConfig.channelsRange),
            number("audio.bitrate", preset.audio.bitrate, AudioConfig.bitrateRange),
            AudioConfig.sampleRates.contains(preset.audio.sampleRate) ? nil : "audio.sample_rate \(preset.audio.sampleRate) is not supported",
        ]
        if let v = preset.video {
            problems += [
                number("video.width", v.width, VideoConfig.widthRange),
                number("video.height", v.height, VideoConfig.heightRange),
                number("video.fps", v.fps, VideoConfig.fpsRange),
                number("video.bitrate", v.bitrate, VideoConfig.bitrateRange),
                number("video.keyframe_interval", v.keyframeInterval, VideoConfig.keyframeIntervalRange),
            ]
        }
        for (i, p) in preset.players.enumerated() {
            let key = "players[\(i)]"
            problems += [
                duration("\(key).start_at", p.startAt),
                number("\(key).progress_interval", p.progressInterval, PlayerConfig.progressIntervalRange),
                number("\(key).speed", p.speed, PlayerConfig.speedRange),
                number("\(key).pitch", p.pitch, PlayerConfig.pitchRange),
                number("\(key).publish_volume", p.publishVolume, PlayerConfig.volumeRange),
                number("\(key).play_volume", p.playVolume, PlayerConfig.volumeRange),
            ]
        }
        return problems.lazy.compactMap { $0 }.first
    }

    /// The outputs: `--output` URLs (named by index), else the preset's.
    var outputConfigs: [OutputConfig] {
        options.outputs.isEmpty ? preset.outputs : options.outputs.map { OutputConfig(url: $0) }
    }

    var outputURLs: [String] { outputConfigs.map(\.url.text) }

    public var realtime: Bool {
        options.realtime ?? outputConfigs.contains { $0.url.target.isLive }
    }

    private lazy var wantedPublishing = preset.publishing

    /// The publishing flag; set before the timeline starts, it is the flag it starts with.
    public var publishing: Bool {
        get { lock.lock(); defer { lock.unlock() }; return capture?.publishing ?? wantedPublishing }
        set {
            lock.lock()
            wantedPublishing = newValue
            capture?.publishing = newValue
            lock.unlock()
            events.emit("publishing", ["publishing": newValue])
        }
    }

    public func player(_ id: String) -> MediaPlayer? { players.first { $0.id == id } }

    private var runState = "starting"
    /// Each player's last item (index, source), to log a repeat once, not every loop.
    private var lastTrack: [String: (index: Int, source: String)] = [:]

    /// The `status` of SPEC §6.
    public func status() -> [String: Any] {
        lock.lock(); let state = runState; let publisher = self.publisher; let capture = self.capture; lock.unlock()
        func orNull(_ v: Any?) -> Any { v ?? NSNull() }
        let playerList: [[String: Any]] = players.map { p in
            let s = p.settings, tags = p.nowPlaying
            return ["id": p.id, "state": p.currentState.rawValue, "source": SecretMask.mask(url: p.currentSource),
                    "index": p.currentIndex, "position_ms": p.positionMs, "duration_ms": orNull(p.durationMs),
                    "speed": s.speed, "pitch": s.pitch, "publish_volume": s.publishVolume, "play_volume": s.playVolume,
                    "aux": s.aux, "repeat": s.repeat, "mute_local": s.muteLocal,
                    "now_playing": ["title": orNull(tags.title), "artist": orNull(tags.artist), "album": orNull(tags.album)]]
        }
        let outputList: [[String: Any]] = (publisher?.outputs ?? []).map { o in
            let st = o.status
            var entry: [String: Any] = ["id": st.id, "url": st.url, "state": st.state.rawValue, "bytes_sent": st.bytesSent,
                                        "bitrate_kbps": st.bitrateKbps, "reconnects": st.reconnects]
            if let error = st.error { entry["error"] = error }
            if let acked = st.bytesAcked { entry["bytes_acked"] = acked }
            if let srt = st.srt {
                entry["srt"] = ["rtt_ms": srt.rttMs, "packets_sent": srt.packetsSent, "acks_received": srt.acksReceived,
                                "packets_lost": srt.packetsLost, "retransmitted": srt.retransmitted, "dropped": srt.dropped]
            }
            return entry
        }
        return ["name": preset.name, "state": state, "uptime_ms": Int(Date().timeIntervalSince(started) * 1000),
                "publishing": publishing, "output_time_ms": Int((capture?.outputSeconds ?? 0) * 1000),
                "players": playerList, "outputs": outputList]
    }

    /// Retries an output now: by id (its `id:`, else its index), by index, by masked
    /// URL, or all network outputs when nil.
    public func reconnect(output: String?) throws {
        lock.lock(); let outputs = publisher?.outputs; lock.unlock()
        guard let outputs else { throw MediaPubError.usage("reconnect: not running yet") }
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

    private func setRunState(_ state: String) {
        lock.lock(); runState = state; lock.unlock()
        events.emit("run.state", ["state": state, "name": preset.name])
    }

    private var scheduled: [(at: Double, action: @Sendable (Broadcast) -> Void)] = []

    /// Runs `action` on the timeline when the output reaches `seconds`: exact in
    /// output time, whether the run is realtime or as fast as possible.
    public func schedule(at seconds: Double, _ action: @escaping @Sendable (Broadcast) -> Void) {
        lock.lock(); defer { lock.unlock() }
        if let capture {
            capture.schedule(at: seconds) { [weak self] in if let self { action(self) } }
        } else {
            scheduled.append((seconds, action))
        }
    }

    /// Graceful stop: the timeline ends, outputs get EOS, files are finalised.
    public func requestStop() {
        lock.lock(); stopRequested = true; let capture = self.capture; lock.unlock()
        capture?.requestStop()
    }

    private func playerEvent(_ event: PlayerEvent, player: MediaPlayer) {
        switch event {
        case .state(let state, let error):
            var fields: [String: Any] = ["player": player.id, "state": state.rawValue]
            if let error { fields["error"] = error; log.error("player \(player.id): \(error)") }
            else { log.debug("player \(player.id): \(state.rawValue)") }
            events.emit("player.state", fields)
        case .track(let index, let source, let durationMs, let tags):
            var fields: [String: Any] = ["player": player.id, "index": index, "source": SecretMask.mask(url: source)]
            fields["duration_ms"] = durationMs ?? NSNull()
            fields["tags"] = ["title": tags.title as Any? ?? NSNull(), "artist": tags.artist as Any? ?? NSNull(), "album": tags.album as Any? ?? NSNull()]
            // Said once per item change; a repeating item going round again is a debug line
            // (a 10 s loop would otherwise log 8,640 lines a day).
            lock.lock()
            let again = lastTrack[player.id].map { $0.index == index && $0.source == source } ?? false
            lastTrack[player.id] = (index, source)
            lock.unlock()
            let text = "player \(player.id): playing \(SecretMask.mask(url: source))"
            if again { log.debug(text + " again") } else { log.info(text) }
            events.emit("player.track", fields)
        case .progress(let position, let duration):
            events.emit("player.progress", ["player": player.id, "position_ms": position, "duration_ms": duration as Any? ?? NSNull()])
        case .warning(let text):
            warning(text)
        }
    }

    /// A warning for the log and the event stream alike.
    private func warning(_ text: String) {
        log.warn(text)
        events.emit("warning", ["message": text])
    }

    private func outputState(_ output: Output, _ state: OutputState, _ error: String?) {
        let shown = output.shownURL
        var fields: [String: Any] = ["output": output.id, "url": shown, "state": state.rawValue]
        // In logs an output is its URL; its id too where the URL alone would not tell it apart.
        let label = output.hasExplicitID || (publisherOutputs.filter { $0.maskedURL == output.maskedURL }.count > 1)
            ? "\(output.id) (\(shown))" : shown
        if let error {
            fields["error"] = error
            log.warn("output \(label): \(state.rawValue): \(error)")
        } else {
            log.info("output \(label): \(state.rawValue)")
        }
        events.emit("output.state", fields)
        lock.lock(); let publisher = self.publisher; lock.unlock()
        if state == .failed, publisher?.allOutputsFailed == true {
            lock.lock(); failure = "every output failed"; let capture = self.capture; lock.unlock()
            capture?.requestStop()
        }
    }

    private var publisherOutputs: [Output] { lock.lock(); defer { lock.unlock() }; return publisher?.outputs ?? [] }

    /// Runs to the end; returns the exit code and why it stopped.
    public func run() -> RunResult {
        var webhook: Webhook? = nil
        if let url = preset.events.webhook {
            let hook = Webhook(url: url, log: log) { [weak self] text in self?.warning(text) }
            events.addListener { hook.send($0) }
            webhook = hook
        }
        defer { webhook?.drain(timeout: 2) }
        setRunState("starting")
        var control: ControlServer? = nil
        if let path = options.controlPath {
            do {
                control = try ControlServer(path: path) { [weak self] request in
                    guard let self else { return ["ok": false, "error": "stopping"] }
                    return ControlCommands.handle(request, broadcast: self)
                }
                log.info("control socket \(path)")
            } catch let inUse as ControlPathInUse {
                // Nothing has started: another instance owns this name.
                log.error("\(inUse)")
                events.emit("error", ["message": "\(inUse)"])
                events.emit("run.stopped", ["reason": "\(inUse)", "exit_code": 2])
                return RunResult(exitCode: 2, reason: "\(inUse)")
            } catch {
                log.warn("\(error); running without a control socket")
            }
        }
        defer { control?.stop() }
        var metrics: MetricsServer? = nil
        if let spec = options.metrics {
            do {
                let server = try MetricsServer(spec: spec) { [weak self] in
                    self.map { MetricsServer.exposition($0.status()) } ?? ""
                }
                log.info("metrics at http://\(server.address)/metrics")
                metrics = server
            } catch {
                log.warn("\(error); running without metrics")
            }
        }
        defer { metrics?.stop() }
        let stopAfter = options.duration ?? preset.stop.after
        do {
            var slate: Buffer? = nil
            if format.video != nil {
                slate = try preset.standby.image.map { try Slate.image($0, format: format) }
                    ?? Slate.color(preset.standby.color, format: format)
            }
            let ringtone = preset.standby.audio.map {
                MediaPlayer(config: PlayerConfig(id: "standby", source: $0, repeat: true), format: format, feedsVideo: false)
            }
            let publisher = try Publisher(format: format, video: preset.video, audio: preset.audio, outputs: outputConfigs,
                                          reconnect: preset.reconnect, log: log,
                                          onEncoderFailure: { [weak self] why in
                guard let self else { return }
                self.lock.lock(); self.failure = why; let capture = self.capture; self.lock.unlock()
                capture?.requestStop()
            }) { [weak self] output, state, error in
                self?.outputState(output, state, error)
            }
            lock.lock(); self.publisher = publisher; lock.unlock()
            try publisher.start()
            for player in players { player.start() }
            // Local files are ready in milliseconds; a slow source starts on the slate instead.
            if realtime { waitForPlayers(timeout: 1) }
            var monitor: Monitor? = nil
            if preset.monitor {
                if realtime { monitor = try? Monitor(format: format, log: log) }
                else { log.warn("monitor: off when running as fast as possible (use --realtime)") }
            }
            defer { monitor?.stop() }
            // Made under the lock: a `publish on|off` arriving meanwhile is the flag it starts with.
            lock.lock()
            let capture = Capture(format: format, players: players, ringtone: ringtone, slate: slate,
                                  publishing: wantedPublishing, realtime: realtime, stopAfter: stopAfter,
                                  stopAtEnd: preset.stop.atEnd, monitor: monitor, sink: publisher)
            self.capture = capture
            let stopEarly = stopRequested || failure != nil
            for (at, action) in scheduled { capture.schedule(at: at) { [weak self] in if let self { action(self) } } }
            scheduled = []
            lock.unlock()
            if stopEarly { capture.requestStop() }
            for output in publisher.outputs {
                log.info("output \(output.displayName)")
                if let renamed = output.renamedRecording {
                    warning("\(renamed.requested) exists already and is left as it is: recording to \(renamed.written) instead")
                }
            }
            log.info("running \(preset.name): \(realtime ? "realtime" : "as fast as possible")"
                + (stopAfter.map { " for \(MediaTime.formatDuration($0))" } ?? ""))
            setRunState("running")
            let progress = ProgressLine(log: log, capture: capture, publisher: publisher, length: stopAfter)
            let reason = capture.run()
            progress.stop()
            setRunState("stopping")
            publisher.finish()
            for player in players { player.stop() }
            ringtone?.stop()
            for player in players { player.drainEvents() }
            lock.lock(); let failure = self.failure; lock.unlock()
            let result: RunResult
            if let failure {
                result = RunResult(exitCode: 1, reason: failure)
            } else if reason == .nothingPlayable {
                result = RunResult(exitCode: 1, reason: "nothing playable")
            } else if let error = publisher.error {
                result = RunResult(exitCode: 1, reason: "encoder failed: \(error)")
            } else {
                let text: [CaptureStop: String] = [.duration: "duration reached", .contentEnded: "content ended",
                                                   .requested: "stopped", .encoderFailed: "encoder failed"]
                result = RunResult(exitCode: 0, reason: text[reason] ?? "stopped")
            }
            log.info("finished: \(result.reason) after \(String(format: "%.2f", capture.outputSeconds))s of output")
            if result.exitCode != 0 { events.emit("error", ["message": masked(result.reason)]) }
            events.emit("run.stopped", ["reason": result.reason, "exit_code": Int(result.exitCode)])
            return result
        } catch {
            let message = masked("\(error)")
            log.error(message)
            events.emit("error", ["message": message])
            publisher?.finish(timeout: 5)
            for player in players { player.stop(); player.drainEvents() }
            events.emit("run.stopped", ["reason": message, "exit_code": 1])
            return RunResult(exitCode: 1, reason: message)
        }
    }

    /// A run-level failure as events and logs show it: the outputs' secrets masked
    /// (errors from GStreamer sinks can quote a URL).
    private func masked(_ text: String) -> String {
        outputURLs.reduce(text) { SecretMask.scrub($0, secretsOf: $1) }
    }

    private func waitForPlayers(timeout: TimeInterval) {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline, players.contains(where: { $0.currentState == .loading }) { usleep(20_000) }
    }

}

import Foundation
import Synchronization

/// Where the capture sends the output timeline (the publisher).
protocol TimelineSink: AnyObject, Sendable {
    /// false: the encoder is gone; the timeline stops.
    func pushVideo(_ buffer: Buffer) -> Bool
    func pushAudio(_ buffer: Buffer) -> Bool
    func endOfStream()
}

/// Why the timeline stopped.
public enum CaptureStop: Sendable, Equatable {
    case duration      // stop.after / --duration reached
    case contentEnded  // every player ended
    case nothingPlayable
    case requested     // quit, SIGINT, SIGTERM
    case encoderFailed
}

/// The custom capture (docs/design.md, the frame's path): owns the one output timeline. Every tick it
/// takes the video player's latest frame and the aux players' audio mixed at
/// their publish volumes, or the standby slate and ringtone, and stamps them
/// with the timeline's own, strictly increasing timestamps.
///
/// `run` owns the timeline on its calling thread (what only it uses are its own
/// locals); what other threads set or read (the publishing flag, a stop, scheduled
/// actions, the ticks so far) is in `state`.
public final class Capture: Sendable {
    let format: MediaFormat
    let players: [MediaPlayer]
    let videoPlayer: MediaPlayer?
    let ringtone: MediaPlayer?
    let slate: Slate.Picture?
    let realtime: Bool
    let stopAfter: TimeInterval?
    let stopAtEnd: Bool
    let monitor: Monitor?
    /// A live feed that takes the output over while it delivers (docs/presets.md, live).
    let liveFeed: LiveFeedTakeover?
    /// The checks of `monitor:` (docs/presets.md, monitor), told each tick's content.
    let contentWatch: ContentWatch?
    /// Told on the timeline thread before each picture is pushed: its tick, and whether it is
    /// the standby slate (the overlays, docs/presets.md: set before the picture they go on).
    let beforePicture: (@Sendable (_ tick: UInt64, _ standby: Bool) -> Void)?
    /// The mix's true-peak limiter and loudness meter (docs/presets.md, audio.loudness).
    let master: OutputLoudness
    /// How far a realtime timeline is behind (docs/status.md, timeline); nil as fast as possible.
    let lag: TimelineLagWatch?
    /// Where the standby's ringtone is started and rewound (it opens or seeks a session), never on
    /// the timeline thread (docs/design.md, What may run on the timeline thread).
    private let ringtoneQueue = DispatchQueue(label: "standby-ringtone")

    private struct State {
        var publishing: Bool
        var stopRequested = false
        var ticks: UInt64 = 0
        var actions = TimelineActions()
        weak var sink: TimelineSink?
    }
    private let state: Mutex<State>
    /// When the timeline last moved (`DispatchTime` uptime, ns; 0 before its first
    /// tick): read by `/health` without waiting on anything.
    private let lastTick = Atomic<UInt64>(0)
    /// When the timeline started (`DispatchTime` uptime, ns; 0 before `run`).
    private let started = Atomic<UInt64>(0)

    /// Ticks per second: the video frame rate, or 50 for an audio-only run.
    let tickRate: Int

    init(format: MediaFormat, players: [MediaPlayer], ringtone: MediaPlayer?, slate: Slate.Picture?, publishing: Bool,
         realtime: Bool, stopAfter: TimeInterval?, stopAtEnd: Bool, monitor: Monitor? = nil, liveFeed: LiveFeedTakeover? = nil,
         contentWatch: ContentWatch? = nil, loudness: LoudnessConfig? = nil, codecs: Set<AudioCodec> = [.aac], sink: TimelineSink,
         beforePicture: (@Sendable (UInt64, Bool) -> Void)? = nil, lag: TimelineLagWatch? = nil) {
        self.lag = realtime ? lag : nil
        self.contentWatch = contentWatch
        self.beforePicture = beforePicture
        master = OutputLoudness(format: format, loudness: loudness, codecs: codecs)
        self.monitor = monitor
        self.liveFeed = liveFeed
        self.format = format
        self.players = players
        self.videoPlayer = players.first { $0.feedsVideo }
        self.ringtone = ringtone
        self.slate = slate
        self.realtime = realtime
        self.stopAfter = stopAfter
        self.stopAtEnd = stopAtEnd
        state = Mutex(State(publishing: publishing, sink: sink))
        tickRate = format.tickRate
    }

    public var publishing: Bool {
        get { state.withLock { $0.publishing } }
        set { state.withLock { $0.publishing = newValue } }
    }

    /// Runs `action` on the timeline thread before the tick at `seconds` of output; with a
    /// `key`, in place of the action waiting under it (`TimelineActions`). An action without a
    /// key (`Broadcast.atOutputTime`'s callers: a player's control at an exact output second) is
    /// held to what the timeline thread may do as any other (docs/design.md, What may run on
    /// the timeline thread).
    func atOutputTime(_ seconds: Double, key: String? = nil, _ action: @escaping @Sendable () -> Void) {
        let tick = tick(at: seconds)
        state.withLock { $0.actions.add(tick: tick, key: key, action) }
    }

    /// How many actions wait on the timeline.
    var actionsWaiting: Int { state.withLock { $0.actions.count } }

    /// The tick at `seconds` of output (`TickClock.tick(at:)`): the tick an action scheduled
    /// at `seconds` runs before, and the one to cue a player's switch for (`MediaPlayer.cue`).
    func tick(at seconds: Double) -> UInt64 { format.tickClock.tick(at: seconds) }

    private func runActions(dueAt n: UInt64) {
        let due = state.withLock { $0.actions.takeDue(atOrBefore: n) }
        for action in due { action() }
    }

    public func requestStop() { state.withLock { $0.stopRequested = true } }

    private var shouldStop: Bool { state.withLock { $0.stopRequested } }

    /// Where the timeline goes (weak: the publisher's life is the broadcast's).
    private var sink: TimelineSink? { state.withLock { $0.sink } }

    /// Output time so far, in seconds.
    public var outputSeconds: Double { Double(state.withLock { $0.ticks }) / Double(tickRate) }
    public var framesOut: UInt64 { format.video == nil ? 0 : state.withLock { $0.ticks } }

    /// Seconds since the timeline last moved; nil before its first tick.
    public var secondsSinceLastTick: Double? {
        let at = lastTick.load(ordering: .relaxed)
        guard at > 0 else { return nil }
        let now = DispatchTime.now().uptimeNanoseconds
        return now > at ? Double(now - at) / 1e9 : 0
    }


    /// Runs the timeline on the calling thread until a stop condition; sends EOS. The thread is
    /// marked as the timeline's meanwhile (`TimelineThread`).
    func run() -> CaptureStop { TimelineThread.run(realtime: realtime) { runTicks() } }

    private func runTicks() -> CaptureStop {
        let channels = format.channels
        var mix = [Float](), scratch = [Float](), local = [Float](), feed = [Float]()
        var slateFrame = slate.map { Slate.Frame($0, format: format) }
        let maxTicks: UInt64? = stopAfter.map { tick(at: $0) }
        let clock = format.tickClock
        let start = DispatchTime.now().uptimeNanoseconds
        started.store(start, ordering: .relaxed)
        var reason = CaptureStop.requested
        var n: UInt64 = 0
        var ringtoneStarted = false
        /// Ticks since the ringtone last sounded: a standby spell after at least a second
        /// without it starts it from the top (a one-tick gap between items does not).
        var ticksWithoutRingtone = 0
        /// Some player has played: a later failure is not "nothing playable".
        var somethingPlayed = false
        var lastPicture: Buffer?  // the content's, held by the tick its sound ends in (stop.at_end)
        while true {
            if shouldStop { reason = .requested; break }
            if let maxTicks, n >= maxTicks { reason = .duration; break }
            runActions(dueAt: n)
            // The programme's end ends the run (stop.at_end), but not while a live feed is on air.
            if let end = contentEndReason(somethingPlayed: &somethingPlayed),
               (stopAtEnd && liveFeed?.onAir != true) || end == .nothingPlayable { reason = end; break }

            let pts = clock.time(ofTick: n)
            let waitBudget = tickWait()
            if realtime {
                let due = start + pts.nanoseconds
                let now = DispatchTime.now().uptimeNanoseconds
                lag?.tick(n, due: due, now: now)
                // Behind (docs/status.md, timeline): no sleep until it has caught up; no tick is dropped.
                if due > now { usleep(useconds_t((due - now) / 1000)) }
            }
            let frames = Int(clamping: clock.audioFrames(atTick: n + 1) - clock.audioFrames(atTick: n))
            let tick = clock.time(ofTick: n + 1) - pts
            let audioDuration = clock.audioDuration(frames: frames)
            // Silence to mix into, reused from tick to tick (a tick's length varies by a sample at most).
            Mixer.silence(&mix, count: frames * channels)
            if monitor != nil { Mixer.silence(&local, count: frames * channels) }
            if scratch.count < frames * channels { scratch = [Float](repeating: 0, count: frames * channels) }

            /// A player's audio for this tick into `scratch` (silence where it has none).
            func render(_ player: MediaPlayer, wait: Double) -> MediaPlayer.Rendered {
                scratch.withUnsafeMutableBufferPointer { out in
                    out.baseAddress!.update(repeating: 0, count: frames * channels)
                    return player.render(frames: frames, tick: tick, at: n, into: out.baseAddress!, wait: wait)
                }
            }
            let publishing = self.publishing
            var playerFrame: Buffer? = nil
            var auxSounding = false
            var anyAudio = false
            for player in players {
                let rendered = render(player, wait: waitBudget)
                if player === videoPlayer { playerFrame = rendered.video }
                if rendered.audioFrames > 0 { anyAudio = true }
                if monitor != nil, rendered.audioFrames > 0, let gain = rendered.localGain {
                    Mixer.add(scratch, into: &local, count: frames * channels, gain: gain)
                }
                if publishing, rendered.aux, rendered.audioFrames > 0 {
                    auxSounding = true
                    Mixer.add(scratch, into: &mix, count: frames * channels, gain: rendered.publishGain)
                }
            }
            // On air, the live feed's picture and sound replace the programme's.
            let feedOnAir = liveFeed?.apply(tick: n, length: tick, frames: frames, first: clock.audioFrames(atTick: n),
                                            publishing: publishing, mix: &mix, feed: &feed, picture: &playerFrame) ?? false
            if stopAtEnd, !anyAudio, !feedOnAir, let end = contentEndReason(somethingPlayed: &somethingPlayed) {
                // The content ran out during this tick: end the timeline on the last real tick.
                reason = end
                break
            }
            if playerFrame == nil, stopAtEnd, !feedOnAir, contentEndReason(somethingPlayed: &somethingPlayed) != nil { playerFrame = lastPicture }
            lastPicture = playerFrame
            // The content as it is, before the standby and any overlay; an alert's `standby` holds the output.
            let held = contentWatch?.observe(mix: mix, count: frames * channels, picture: playerFrame, tick: n,
                                             publishing: publishing, liveFeedOnAir: feedOnAir) ?? false
            if held { Mixer.silence(&mix, count: frames * channels) }
            if !publishing || held || (playerFrame == nil && !auxSounding && !feedOnAir) {
                if let ringtone {
                    // Like a phone's ringtone: every standby spell plays it from its beginning, started
                    // or rewound on its queue: in realtime its sound comes in once it is there (the tick
                    // never waits); as fast as possible the tick waits for it, as for any content.
                    if !ringtoneStarted || ticksWithoutRingtone >= tickRate {
                        let first = !ringtoneStarted
                        let restart: @Sendable () -> Void = { if first { ringtone.start() } else { _ = ringtone.rewind() } }
                        // (Not `sync`: that would run it on this thread.)
                        let done = DispatchSemaphore(value: 0)
                        ringtoneQueue.async { restart(); done.signal() }
                        if !realtime { _ = done.wait(timeout: .now() + min(2, waitBudget)) }
                    }
                    ringtoneStarted = true
                    ticksWithoutRingtone = 0
                    let rendered = render(ringtone, wait: realtime ? 0 : min(2, waitBudget))
                    if rendered.audioFrames > 0 {
                        Mixer.add(scratch, into: &mix, count: frames * channels, gain: 1)
                        if monitor != nil { Mixer.add(scratch, into: &local, count: frames * channels, gain: 1) }
                    }
                }
            } else {
                ticksWithoutRingtone += 1
            }
            master.process(&mix)
            if let monitor {
                Mixer.limit(&local)
                monitor.push(local.withUnsafeBytes {
                    Buffer(copying: $0, pts: pts, duration: audioDuration)
                })
            }

            let shown = publishing && !held ? playerFrame : nil
            if format.video != nil { beforePicture?(n, shown == nil) }
            if format.video != nil, let picture = shown ?? slateFrame?.buffer(),
               sink?.pushVideo(picture.retimed(pts: pts, duration: tick)) == false {
                reason = .encoderFailed
                break
            }
            // The limited mix is `master.latency` frames late: its first that many frames (the
            // limiter's silence) are not sent and the rest are stamped that much earlier.
            let first = clock.audioFrames(atTick: n), late = UInt64(master.latency)
            let skip = first < late ? Int(min(UInt64(frames), late - first)) : 0
            let audioPTS = ClockTime.ofSamples(first + UInt64(skip) - min(late, first + UInt64(skip)), rate: clock.sampleRate)
            let audio = mix.withUnsafeBytes {
                Buffer(copying: UnsafeRawBufferPointer(rebasing: $0[(skip * channels * MemoryLayout<Float>.size)...]),
                       pts: audioPTS, duration: clock.audioDuration(frames: frames - skip))
            }
            if sink?.pushAudio(audio) == false {
                reason = .encoderFailed
                break
            }
            n += 1
            state.withLock { $0.ticks = n }
            lastTick.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
        }
        lag?.finish()
        sink?.endOfStream()
        return reason
    }

    /// A run as fast as possible waits for its sources until this long past the wall time of its duration.
    static let durationGrace: TimeInterval = 5

    /// How long a tick may wait for a player's decoding: not at all in realtime (what
    /// is not there is a gap the standby fills); as fast as possible, up to 10 s, but
    /// not past `durationGrace` after the wall time of `stopAfter`: a run with a
    /// duration ends within seconds of it even when a source stalls (README, run options).
    /// What a scheduled action on the timeline may wait too (`MediaPlayer.commitCue`).
    func tickWait() -> Double {
        guard !realtime else { return 0 }
        guard let stopAfter else { return 10 }
        let start = started.load(ordering: .relaxed)
        let now = DispatchTime.now().uptimeNanoseconds
        let elapsed = start > 0 && now > start ? Double(now - start) / 1e9 : 0
        return max(0, min(10, stopAfter + Capture.durationGrace - elapsed))
    }

    /// Every player ended (or failed): the content is over.
    /// `somethingPlayed`: some player has played (kept by `run`).
    private func contentEndReason(somethingPlayed: inout Bool) -> CaptureStop? {
        let states = players.map(\.currentState)
        if states.contains(where: { $0 == .playing || $0 == .paused || $0 == .ended }) { somethingPlayed = true }
        guard states.allSatisfy({ $0 == .ended || $0 == .error }) else { return nil }
        if !states.contains(.ended) {
            // Failures alone: fatal only when nothing ever played; otherwise the
            // standby stays on air (a failed source never ends the stream).
            return somethingPlayed ? nil : .nothingPlayable
        }
        return .contentEnded
    }
}

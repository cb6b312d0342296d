import Foundation
import Synchronization

/// A live feed on the output timeline (docs/presets.md, live): a player of its own
/// (in neither the preset's players nor status' `players`) whose source is
/// `live.source`, rendered on the timeline thread every tick, on air or not, so that
/// what it decodes is taken as it comes (its reads never wait: a tick waits for
/// nothing). `LiveFeedSwitch` decides when it is on air; on air, the tick's picture is the
/// feed's (its last one held through a short drop-out) and its sound the feed's alone,
/// crossfaded over `fade` at each switch. A feed that fails, ends or is refused is
/// opened again a second later, for ever, until `stop`. Changes are told on the `live`
/// queue, never under a lock.
public final class LiveFeedTakeover: Sendable {
    let config: LiveFeedConfig
    let player: MediaPlayer
    /// The programme's players: paused while the feed is on air with `programme: pause`.
    private let programme: [MediaPlayer]
    private let format: MediaFormat
    private let queue = DispatchQueue(label: "live")
    /// Called on the `live` queue: the new state and why, masked (nil: no reason).
    private let onChange: @Sendable (LiveFeedState, String?) -> Void

    static let reopenDelay: TimeInterval = 1

    private struct State {
        var mode = LiveFeedSwitch.Mode.auto
        var phase = LiveFeedState.waiting
        var switcher: LiveFeedSwitch
        var onAirTicks: UInt64 = 0
        var stopped = false
        /// The feed's last picture (held on air through a drop-out), and the one last seen.
        var picture: Buffer?
        var lastSeen: Buffer?
        /// The feed has sound (since it was last opened): its sound, not its pictures, says it delivers
        /// (a picture left over once its sound has ended is no delivery).
        var heard = false
        /// Why the feed last failed, as said (a feed refused again and again is said once).
        var lastReason: String?
        /// The output's audio frame the last switch began at (nil: none yet).
        var fadeFrom: UInt64?
        var paused: [MediaPlayer] = []
        /// The feed's sound and pictures between its decoder and the output.
        var buffer: LiveFeedBuffer
        /// The feed's bitrate (bits a second, of what its source gave over the last second of output).
        var bitrate = 0.0
        var bytesSeen: UInt64 = 0
        /// The feed's count of pictures passed over, as last seen (it starts over with each opening).
        var passedOverSeen = 0
        var ticksSinceRate = 0
    }
    private let state: Mutex<State>

    init(config: LiveFeedConfig, format: MediaFormat, programme: [MediaPlayer],
         onChange: @escaping @Sendable (LiveFeedState, String?) -> Void) {
        self.config = config
        self.format = format
        self.programme = programme
        self.onChange = onChange
        player = MediaPlayer(config: PlayerConfig(id: "live", source: config.source), format: format, feedsVideo: format.video != nil)
        state = Mutex(State(switcher: LiveFeedSwitch(takeoverAfter: config.takeoverAfter, releaseAfter: config.releaseAfter,
                                                 tickRate: format.tickRate),
                            buffer: LiveFeedBuffer(channels: format.channels, sampleRate: format.sampleRate, tickRate: format.tickRate)))
        player.setEventHandler { [weak self] event in self?.playerEvent(event) }
    }

    /// Opens the feed (and says `waiting`).
    func start() {
        queue.async { [onChange] in onChange(.waiting, nil) }
        player.start()
    }

    /// The run is over: the feed is closed and not opened again.
    func stop() {
        state.withLock { $0.stopped = true }
        player.stop()
    }

    /// On the player's queue: a feed that failed or ended is opened again, for ever.
    private func playerEvent(_ event: PlayerEvent) {
        guard case .state(let phase, let error) = event, phase == .error || phase == .ended else { return }
        let reason = error.map { SecretMask.scrub($0, secretsOf: config.source) } ?? "the feed ended"
        let tell = state.withLock { s -> Bool in
            s.heard = false
            s.switcher.forget()
            guard !s.stopped, s.phase != .onAir else { return false }
            defer { s.phase = .waiting; s.lastReason = reason }
            return s.phase != .waiting || s.lastReason != reason
        }
        if tell { queue.async { [onChange] in onChange(.waiting, reason) } }
        queue.asyncAfter(deadline: .now() + LiveFeedTakeover.reopenDelay) { [weak self] in
            guard let self, !self.state.withLock({ $0.stopped }) else { return }
            self.player.start()
        }
    }

    /// A sender was refused (its passphrase): said, the state as it is.
    func refused(_ why: String) {
        let phase = state.withLock { $0.phase }
        queue.async { [onChange] in onChange(phase, why) }
    }

    /// The feed is on air now.
    var onAir: Bool { state.withLock { $0.switcher.onAir } }

    /// `ctl live on|off|auto`.
    func setMode(_ mode: LiveFeedSwitch.Mode) { state.withLock { $0.mode = mode } }

    /// What status shows of the feed (docs/status.md, `live`).
    struct Snapshot {
        var state: LiveFeedState
        var mode: LiveFeedSwitch.Mode
        /// In the current (or last) spell on air.
        var onAirSeconds: Double
        /// Through its jitter buffer.
        var delay: Double
        var framesDropped: UInt64
        var framesRepeated: UInt64
        /// Bits a second.
        var bitrate: Double
    }

    var snapshot: Snapshot {
        let tickRate = Double(format.tickRate)
        return state.withLock { s in
            Snapshot(state: s.phase, mode: s.mode, onAirSeconds: Double(s.onAirTicks) / tickRate, delay: s.buffer.delay,
                     framesDropped: s.buffer.framesDropped, framesRepeated: s.buffer.framesRepeated, bitrate: s.bitrate)
        }
    }

    /// Once a second of output: the bits the feed's source gave in it (its source's count
    /// starts over when the feed is opened again).
    private func measureBitrate() {
        let due = state.withLock { s -> Bool in
            s.ticksSinceRate += 1
            return s.ticksSinceRate >= format.tickRate
        }
        guard due else { return }
        let bytes = player.sourceBytes ?? 0
        state.withLock { s in
            let seconds = Double(s.ticksSinceRate) / Double(max(1, format.tickRate))
            let delta = bytes >= s.bytesSeen ? bytes - s.bytesSeen : bytes
            s.bitrate = Double(delta) * 8 / max(seconds, 0.001)
            s.bytesSeen = bytes
            s.ticksSinceRate = 0
        }
    }

    /// Calls to the feed's player a tick at most (each takes a tick's worth of what it decoded).
    static let drainCalls = 12

    /// On the timeline thread, for tick `n` whose audio begins at output frame `first`:
    /// takes what the feed decoded into its jitter buffer (`LiveFeedBuffer`), moves the
    /// switch and, on air, plays the buffer into `feed` (`frames` frames); unless
    /// `publishing` is off, puts the feed's sound into `mix` and, on air, its picture in
    /// `picture`. Returns whether the feed is on air.
    func apply(tick n: UInt64, length: ClockTime, frames: Int, first: UInt64, publishing: Bool,
               mix: inout [Float], feed: inout [Float], picture: inout Buffer?) -> Bool {
        let count = frames * format.channels
        if feed.count < count { feed = [Float](repeating: 0, count: count) }
        // Everything decoded so far, a tick's worth a call, never waited for.
        var heardNow = 0, fresh = false, lastVideo: Buffer?
        for _ in 0..<LiveFeedTakeover.drainCalls {
            let rendered = feed.withUnsafeMutableBufferPointer { out in
                out.baseAddress!.update(repeating: 0, count: count)
                return player.render(frames: frames, tick: length, at: n, into: out.baseAddress!, wait: 0)
            }
            let lead = rendered.video == nil ? nil : player.pictureLead
            let passedOver = player.picturesPassedOver ?? 0
            heardNow += rendered.audioFrames
            state.withLock { s in
                s.buffer.passedOver(passedOver >= s.passedOverSeen ? passedOver - s.passedOverSeen : passedOver, onAir: s.switcher.onAir)
                s.passedOverSeen = passedOver
                if let video = rendered.video, video !== s.lastSeen { fresh = true; s.lastSeen = video }
                feed.withUnsafeBufferPointer { s.buffer.put($0.baseAddress!, frames: rendered.audioFrames, picture: rendered.video,
                                                             before: lead, onAir: s.switcher.onAir) }
            }
            lastVideo = rendered.video ?? lastVideo
            if rendered.audioFrames < frames { break }
        }
        measureBitrate()
        let (change, onAir, fadeFrom, held, toPause, toResume) = state.withLock { s in
            if heardNow > 0 { s.heard = true }
            s.buffer.took(heardNow)
            // A feed without sound (pictures only) goes on air picture by picture, as they come.
            if !s.heard, let lastVideo { s.picture = lastVideo }
            let change = s.switcher.tick(n, delivered: heardNow > 0 || (fresh && !s.heard), ready: !s.heard || s.buffer.ready, mode: s.mode)
            var toPause: [MediaPlayer] = [], toResume: [MediaPlayer] = []
            switch change {
            case .connected?: s.phase = .connected; s.lastReason = nil
            case .lost?: s.phase = .waiting
            case .onAir?:
                s.phase = .onAir
                s.onAirTicks = 0
                s.fadeFrom = first
                if config.programme == .pause { toPause = programme; s.paused = programme }
            case .released?:
                s.phase = .released
                s.fadeFrom = first
                toResume = s.paused
                s.paused = []
            case nil: break
            }
            if s.switcher.onAir {
                s.onAirTicks += 1
                if s.heard {
                    s.picture = feed.withUnsafeMutableBufferPointer { s.buffer.play(frames: frames, into: $0.baseAddress!) } ?? s.picture
                }
            } else {
                s.buffer.idle()
                feed.withUnsafeMutableBufferPointer { $0.baseAddress!.update(repeating: 0, count: count) }
            }
            return (change, s.switcher.onAir, s.fadeFrom, s.picture, toPause, toResume)
        }
        for p in toPause { p.hold() }
        for p in toResume { p.releaseHold() }
        if let change { tell(change) }
        guard publishing else { return onAir }
        if onAir, let held { picture = held }
        crossfade(&mix, feed, frames: frames, first: first, onAir: onAir, fadeFrom: fadeFrom)
        return onAir
    }

    /// The feed's share of each frame: 1 on air and 0 off it, ramped over `fade` after a switch.
    private func crossfade(_ mix: inout [Float], _ feed: [Float], frames: Int, first: UInt64, onAir: Bool, fadeFrom: UInt64?) {
        let channels = format.channels
        let fadeFrames = Double(format.sampleRate) * config.fade
        for i in 0..<frames {
            var share: Float = onAir ? 1 : 0
            if let from = fadeFrom, fadeFrames >= 1 {
                let into = Double(first + UInt64(i)) - Double(from)
                let t = Float(min(1, max(0, into / fadeFrames)))
                share = onAir ? t : 1 - t
            }
            if share == 0 { continue }
            for c in 0..<channels {
                let k = i * channels + c
                mix[k] = mix[k] * (1 - share) + feed[k] * share
            }
        }
    }

    private func tell(_ change: LiveFeedSwitch.Change) {
        let (state, reason): (LiveFeedState, String?)
        switch change {
        case .connected: (state, reason) = (.connected, nil)
        case .onAir: (state, reason) = (.onAir, nil)
        case .released(let why): (state, reason) = (.released, why)
        case .lost: (state, reason) = (.waiting, "the feed stopped before it went on air")
        }
        queue.async { [onChange] in onChange(state, reason) }
    }
}

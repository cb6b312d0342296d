import Foundation
import Synchronization

/// A media-player instance (docs/design.md): one decoding pipeline at a time, fed from
/// a single source or a playlist, with the controls of a mobile SDK's player.
/// Its state machine and controls are here; what happens to its items (opening,
/// advancing, gapless handover) in `MediaPlayer+Items`, failures and retries in
/// `MediaPlayer+Failures`, and the capture-side feed (`render`) in `MediaPlayer+Feed`.
/// All mutable state is in `state`; events go out in order on `queue`.
public final class MediaPlayer: Sendable {
    public let id: String
    let format: MediaFormat
    /// Whether this player's pictures feed the video capture.
    public let feedsVideo: Bool
    /// The backoff of an endless stream whose origin stopped (`MediaPlayer+EndlessHLS`).
    let reconnect: ReconnectConfig
    /// Serialises session events and the events the player reports; never waits for the capture.
    let queue: DispatchQueue
    /// Builds the sessions' pipelines, off the lock and off the timeline thread (`MediaPlayer+Open`).
    let opener: DispatchQueue
    let state: Mutex<State>

    struct State: HasWaiters {
        var config: PlayerConfig
        var playlist: Playlist
        var phase: PlayerState = .stopped
        /// The tags the current item's `player.track` carried (nil: none sent yet for it).
        var sentTags: NowPlaying?
        var current: DecodeSession?
        /// Opens asked for so far, and the one `current` waits for (`MediaPlayer+Open`).
        var opens: UInt64 = 0
        var currentOpening: UInt64?
        var currentReady = false
        var policy = RetryPolicy()
        var frozenFrame: Buffer?
        /// Bytes given with `load(data:name:)`, decoded from memory.
        var memoryData: Data?
        var taps = FrameTaps()
        /// The current item's last progress event and whether it gives what the ticks ask for (`ItemWatch`).
        var watch = ItemWatch()
        /// Some item played since the last start or load (a later failure ends the list, not the player).
        var playedSinceStart = false
        /// Endless sources: the media sequence number of the last segment played, by source.
        var endlessPlayed: [String: Int] = [:]
        /// The retry an endless stream waits for (nil: none); `endlessWaits` numbers them.
        var endlessWait: Int?
        var endlessWaits = 0
        /// The output tick the capture asks this player for next (a cue lands on it).
        var nextTick: UInt64 = 0
        /// The sound across changes of item: a cut's fade, the item fading out under the current one (`MediaPlayer+Crossfade`).
        var fades: Fades
        /// What is on its way for the current item's end (the next item prepared ahead), the load and cue beside it, and how
        /// the item goes on (a segment left out, what follows the playlist, the hold; `Deck`).
        var deck: Deck
        /// Each item's gain to the loudness target (docs/presets.md, audio.loudness); nil: none.
        var gain: ItemGain?
        /// Items said to give samples that are no sound (`BrokenSamples`): once each, however
        /// often they play (a repeated one), up to `BrokenSamples.remembered` of them.
        var brokenSaid: Set<String> = []
        var eventHandler: @Sendable (PlayerEvent) -> Void
        /// The capture waiting for an item to be ready, `waitForLoad` for a load to be known.
        var waiters = Waiters()

        /// The current item is not ready to give anything yet (loading, or a prerolled
        /// next item that became current before its preroll finished).
        var awaitingItem: Bool { phase == .loading || (phase == .playing && !currentReady) }
    }

    static let stallLimit = ClockTime(milliseconds: 500)

    public init(config: PlayerConfig, format: MediaFormat, feedsVideo: Bool, reconnect: ReconnectConfig = ReconnectConfig(),
                onEvent: @escaping @Sendable (PlayerEvent) -> Void = { _ in }) {
        GStreamer.initialize()
        self.id = config.id
        self.format = format
        self.feedsVideo = feedsVideo
        self.reconnect = reconnect
        queue = DispatchQueue(label: "player-\(config.id)")
        opener = DispatchQueue(label: "player-\(config.id)-open")
        var playlist = config.playlist.map { Playlist(items: $0.items, mode: $0.mode) }
            ?? Playlist(source: config.source ?? "", repeat: config.repeat)
        playlist.crossfade = config.playlist?.crossfade ?? CrossfadeConfig()
        state = Mutex(State(config: config, playlist: playlist, fades: Fades(cut: CutFade(sampleRate: format.sampleRate)),
                            deck: Deck(sampleRate: format.sampleRate), eventHandler: onEvent))
    }

    deinit {
        let (current, upcoming, loading, cued) = state.withLock { ($0.current, $0.deck.upcoming?.session, $0.deck.load.pending?.session, $0.deck.cue.pending?.session) }
        current?.close()
        upcoming?.close()
        loading?.close()
        cued?.close()
    }

    public func setEventHandler(_ handler: @escaping @Sendable (PlayerEvent) -> Void) {
        state.withLock { $0.eventHandler = handler }
    }

    // MARK: state

    public var currentState: PlayerState { state.withLock { $0.phase } }

    /// Waits while the player is loading, up to `deadline` (woken by its state changes).
    func waitWhileLoading(until deadline: MonotonicInstant) {
        state.wait(until: deadline) { $0.phase == .loading }
    }

    public var publishVolume: Int { state.withLock { $0.config.publishVolume } }
    public var aux: Bool { state.withLock { $0.config.aux } }
    public var settings: PlayerConfig { state.withLock { $0.config } }
    public var nowPlaying: NowPlaying { state.withLock { $0.current }?.currentTags ?? NowPlaying() }
    public var currentSource: String { state.withLock { $0.playlist.current } }
    public var currentIndex: Int { state.withLock { $0.playlist.index } }

    /// Position in the current item, in ms of media time.
    public var positionMs: Int { state.withLock { $0.current?.positionMs ?? 0 } }

    public var durationMs: Int? { state.withLock { $0.current }?.durationMs }

    /// The current item's length as its pipeline last said it (`DecodeSession.lengthMs`): never
    /// asks the pipeline, so it may be read on the timeline thread.
    var lengthMs: Int? { state.withLock { $0.current }?.lengthMs }

    /// Under the lock: the state machine's one transition.
    func setState(_ new: PlayerState, error: String? = nil, _ s: inout State) {
        let new = held(new, &s)
        guard new != s.phase || error != nil else { return }
        s.phase = new
        if new == .playing { s.playedSinceStart = true }
        let handler = s.eventHandler
        queue.async { handler(.state(new, error: error)) }
        s.waiters.wakeAll()
    }

    /// Under the lock: reports `event` after those reported before it.
    func emit(_ event: PlayerEvent, _ s: borrowing State) {
        let handler = s.eventHandler
        queue.async { handler(event) }
    }

    /// Under the lock: reports the event `make` builds with `session`'s duration, after
    /// those reported before it. The duration is a query of the session's pipeline: asked
    /// on the queue, never under the lock.
    func emit(_ make: @escaping @Sendable (_ durationMs: Int?) -> PlayerEvent, durationOf session: DecodeSession,
              _ s: borrowing State) {
        let handler = s.eventHandler
        queue.async { handler(make(session.durationMs)) }
    }

    // MARK: controls

    /// Loads the current item and plays it.
    public func start() {
        state.withLock { s in
            guard s.phase == .stopped || s.phase == .ended || s.phase == .error else { return }
            s.policy.itemChosen()
            s.playedSinceStart = false
            openCurrent(&s)
        }
    }

    public func pause() {
        state.withLock { s in
            guard s.phase == .playing else { return }
            s.frozenFrame = s.current?.lastVideo
            setState(.paused, &s)
        }
    }

    public func resume() {
        state.withLock { s in
            guard s.phase == .paused else { return }
            setState(s.currentReady ? .playing : .loading, &s)
        }
    }

    public func stop() {
        state.withLock { s in
            dropPendingLoad(&s)
            dropCue(.cancelled("the player was stopped"), &s)
            closeSessions(&s)
            s.frozenFrame = nil
            setState(.stopped, &s)
        }
    }

    /// Waits until every event raised so far has reached the event handler.
    /// Events go out on the player's own queue; a caller that announces an end
    /// (`run.stopped`) drains them first so nothing follows it.
    /// Never from the player's own event handler (that runs on this queue).
    func drainEvents() {
        queue.sync {}
    }

    public func setPublishVolume(_ volume: Int) { state.withLock { $0.config.publishVolume = max(0, min(200, volume)) } }
    public func setAux(_ on: Bool) { state.withLock { $0.config.aux = on } }
    public func setPlayVolume(_ volume: Int) { state.withLock { $0.config.playVolume = max(0, min(200, volume)) } }
    public func setMuteLocal(_ on: Bool) { state.withLock { $0.config.muteLocal = on } }

    public var progressInterval: TimeInterval {
        get { state.withLock { $0.config.progressInterval } }
        set {
            // Kept in progressIntervalRange (nan: the default 1 s), so the ms step cannot trap.
            let r = PlayerConfig.progressIntervalRange
            let value = newValue.isNaN ? 1 : min(r.upperBound, max(r.lowerBound, newValue))
            state.withLock { $0.config.progressInterval = value }
        }
    }

    // MARK: frame taps

    /// Receives each audio frame the player hands the capture (PCM at the output's rate and channels).
    public func addAudioTap(_ handler: @escaping @Sendable (AudioFrame) -> Void) {
        state.withLock { $0.taps.audio.append(handler) }
    }

    /// Receives each new decoded video frame, converted to `format`.
    public func addVideoTap(format: VideoFrameFormat, _ handler: @escaping @Sendable (VideoFrame) -> Void) {
        state.withLock { $0.taps.video.append((format, handler)) }
    }
}

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
        /// The next item prepared ahead (gapless handover, crossfade), being opened or opened.
        var upcoming: NextItem?
        /// Opens asked for so far, and the one `current` waits for (`MediaPlayer+Open`).
        var opens: UInt64 = 0
        var currentOpening: UInt64?
        var currentReady = false
        var policy = RetryPolicy()
        var frozenFrame: Buffer?
        /// Bytes given with `load(data:name:)`, decoded from memory.
        var memoryData: Data?
        var taps = FrameTaps()
        var lastProgressMs: Int?
        /// Output time the playing source has given nothing: past `stallLimit` it counts as buffering.
        var stalled = ClockTime.zero
        /// When the playing source last stopped giving (wall clock; nil while it gives):
        /// after `DecodeSession.stallSeconds` it counts as broken (retried, then skipped).
        var starvedSince: MonotonicInstant?
        /// Some item played since the last start or load (a later failure ends the list, not the player).
        var playedSinceStart = false
        /// An HLS segment of the current item could not be fetched: once what decoded
        /// has played, the item goes on from here (ms), in a new session.
        var resumeAtMs: Int?
        /// The current session continues the item (a skipped segment, a restarted endless
        /// origin): its start is no new track.
        var continuing = false
        /// A `load` being prepared beside the current item (`MediaPlayer+Load`).
        var pendingLoad: PendingLoad?
        /// Loads asked for so far (each one's ticket), and the last one refused, with why.
        var loadsAsked = 0
        var failedLoad: (ticket: Int, why: String)?
        /// Endless sources: the media sequence number of the last segment played, by source.
        var endlessPlayed: [String: Int] = [:]
        /// The retry an endless stream waits for (nil: none); `endlessWaits` numbers them.
        var endlessWait: Int?
        var endlessWaits = 0
        /// Content cued to take over on a given tick (`MediaPlayer+Cue`), and the tickets so far.
        var cue: PendingCue?
        var cuesAsked = 0
        /// What the player goes on with once its playlist is over, as a cut (a programme's
        /// filler after a block that has played all it had; `MediaPlayer+Items`). nil: it ends.
        var followOn: Playlist?
        /// Output seconds the last reopening of the current item took to take over
        /// (`MediaPlayer+Switch`): the next one opens that far ahead of where the item is.
        var reopenLead: TimeInterval = 0
        /// Content that took over within the tick being rendered comes in faded (`CutFade`)
        /// from where it starts in the tick (`MediaPlayer+Feed`).
        var fadeInPending = false
        /// Held paused by a live feed on air (`MediaPlayer+Hold`); nil: not held.
        var hold: Hold?
        /// How the last few cues ended, by ticket.
        var settledCues: [(ticket: Int, outcome: CueOutcome)] = []
        /// The output tick the capture asks this player for next (a cue lands on it).
        var nextTick: UInt64 = 0
        /// The gain across a cut to cued content.
        var fade: CutFade
        /// The item fading out under the current one, and what the next fade has done (`MediaPlayer+Crossfade`).
        var crossfade = CrossfadeState()
        /// What is on its way for the current item's end (`Deck`).
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
        state = Mutex(State(config: config, playlist: playlist, fade: CutFade(sampleRate: format.sampleRate),
                            deck: Deck(sampleRate: format.sampleRate), eventHandler: onEvent))
    }

    deinit {
        let (current, upcoming, loading, cued) = state.withLock { ($0.current, $0.upcoming?.session, $0.pendingLoad?.session, $0.cue?.session) }
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

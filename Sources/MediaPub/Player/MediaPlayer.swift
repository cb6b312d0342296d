import Foundation

/// Something a player reports: state changes, a new track, a skipped item.
public enum PlayerEvent: Sendable {
    case state(PlayerState, error: String?)
    case track(index: Int, source: String, durationMs: Int?, tags: NowPlaying)
    case progress(positionMs: Int, durationMs: Int?)
    case warning(String)
}

/// A media-player instance (SPEC §1): one decoding pipeline at a time, fed from
/// a single source or a playlist, with the controls of a mobile SDK's player.
/// The capture pulls audio and frames from it with `render`.
public final class MediaPlayer: @unchecked Sendable {
    public let id: String
    let format: MediaFormat
    /// Whether this player's pictures feed the video capture.
    public let feedsVideo: Bool

    private let lock = NSCondition()
    /// Serialises session events and the events the player reports; never holds `lock` while waiting.
    private let queue: DispatchQueue
    private var config: PlayerConfig
    private var playlist: Playlist
    private var state: PlayerState = .stopped
    /// The reason given with the last state change (an error), for `waitForLoad`.
    private var lastError: String?
    /// The tags the current item's `player.track` carried (nil: none sent yet for it).
    private var sentTags: NowPlaying?
    private var current: DecodeSession?
    private var upcoming: DecodeSession?
    private var upcomingPosition: Int?
    private var currentReady = false
    private var failuresInARow = 0
    private var frozenFrame: Buffer?
    /// Bytes given with `load(data:name:)`, decoded from memory.
    private var memoryData: Data?
    private var taps = FrameTaps()
    private var lastProgressMs: Int?
    /// Output time (ns) the playing source has given nothing: past `stallLimit` it counts as buffering.
    private var stalled = ClockTime.zero
    private let stallLimit = ClockTime(milliseconds: 500)
    /// When the playing source last stopped giving (wall clock; nil while it gives):
    /// after `DecodeSession.stallSeconds` it counts as broken (retried, then skipped).
    private var starvedSince: Date?
    /// Retries of the current network item before it is skipped.
    private var retries = 0
    /// Some item played since the last start or load (a later failure ends the list, not the player).
    private var playedSinceStart = false
    private let maxRetries = 3
    /// An HLS segment of the current item could not be fetched: once what decoded
    /// has played, the item goes on from here (ms), in a new session.
    private var resumeAtMs: Int?
    /// The current session continues the item (a skipped segment, a restarted live
    /// origin): its start is no new track.
    private var continuing = false
    private var eventHandler: @Sendable (PlayerEvent) -> Void

    public init(config: PlayerConfig, format: MediaFormat, feedsVideo: Bool,
                onEvent: @escaping @Sendable (PlayerEvent) -> Void = { _ in }) {
        GStreamer.initialize()
        self.id = config.id
        self.config = config
        self.format = format
        self.feedsVideo = feedsVideo
        self.eventHandler = onEvent
        queue = DispatchQueue(label: "player-\(config.id)")
        if let list = config.playlist {
            playlist = Playlist(items: list.items, mode: list.mode)
        } else {
            playlist = Playlist(source: config.source ?? "", repeat: config.repeat)
        }
    }

    deinit {
        current?.close()
        upcoming?.close()
    }

    public func setEventHandler(_ handler: @escaping @Sendable (PlayerEvent) -> Void) {
        lock.lock(); eventHandler = handler; lock.unlock()
    }

    // MARK: state

    public var currentState: PlayerState { lock.lock(); defer { lock.unlock() }; return state }

    /// Waits (bounded) until a load is known: playing (or paused, ended), or an error
    /// with its reason; `.loading` when the wait ran out first.
    public func waitForLoad(timeout: TimeInterval) -> (state: PlayerState, error: String?) {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock(); defer { lock.unlock() }
        while state == .loading, lock.wait(until: deadline) {}
        return (state, lastError)
    }
    public var publishVolume: Int { lock.lock(); defer { lock.unlock() }; return config.publishVolume }
    public var aux: Bool { lock.lock(); defer { lock.unlock() }; return config.aux }
    public var settings: PlayerConfig { lock.lock(); defer { lock.unlock() }; return config }
    public var nowPlaying: NowPlaying {
        lock.lock(); let s = current; lock.unlock()
        return s?.currentTags ?? NowPlaying()
    }
    public var currentSource: String { lock.lock(); defer { lock.unlock() }; return playlist.current }
    public var currentIndex: Int { lock.lock(); defer { lock.unlock() }; return playlist.index }

    /// Position in the current item, in ms of media time.
    public var positionMs: Int {
        lock.lock(); defer { lock.unlock() }
        return current?.positionMs ?? 0
    }

    public var durationMs: Int? {
        lock.lock(); let s = current; lock.unlock()
        return s?.durationMs
    }

    /// Called with the lock held.
    private func setState(_ new: PlayerState, error: String? = nil) {
        guard new != state || error != nil else { return }
        state = new
        lastError = error
        if new == .playing { playedSinceStart = true }
        let handler = eventHandler
        queue.async { handler(.state(new, error: error)) }
        lock.broadcast()
    }

    private func emit(_ event: PlayerEvent) {
        let handler = eventHandler
        queue.async { handler(event) }
    }

    // MARK: controls

    /// Loads the current item and plays it.
    public func start() {
        lock.lock(); defer { lock.unlock() }
        guard state == .stopped || state == .ended || state == .error else { return }
        failuresInARow = 0
        playedSinceStart = false
        openCurrent()
    }

    public func pause() {
        lock.lock(); defer { lock.unlock() }
        guard state == .playing else { return }
        frozenFrame = current?.lastVideo
        setState(.paused)
    }

    public func resume() {
        lock.lock(); defer { lock.unlock() }
        guard state == .paused else { return }
        setState(currentReady ? .playing : .loading)
    }

    public func stop() {
        lock.lock(); defer { lock.unlock() }
        closeSessions()
        frozenFrame = nil
        setState(.stopped)
    }

    /// Waits until every event raised so far has reached the event handler.
    /// Events go out on the player's own queue; a caller that announces an end
    /// (`run.stopped`) drains them first so nothing follows it.
    /// Never from the player's own event handler (that runs on this queue).
    func drainEvents() {
        queue.sync {}
    }

    public func setPublishVolume(_ volume: Int) {
        lock.lock(); config.publishVolume = max(0, min(200, volume)); lock.unlock()
    }

    public func setAux(_ on: Bool) { lock.lock(); config.aux = on; lock.unlock() }

    public func setPlayVolume(_ volume: Int) {
        lock.lock(); config.playVolume = max(0, min(200, volume)); lock.unlock()
    }

    public func setMuteLocal(_ on: Bool) { lock.lock(); config.muteLocal = on; lock.unlock() }

    public var progressInterval: TimeInterval {
        get { lock.lock(); defer { lock.unlock() }; return config.progressInterval }
        set {
            // Kept in progressIntervalRange (nan: the default 1 s), so the ms step below cannot trap.
            let r = PlayerConfig.progressIntervalRange
            let value = newValue.isNaN ? 1 : min(r.upperBound, max(r.lowerBound, newValue))
            lock.lock(); config.progressInterval = value; lock.unlock()
        }
    }

    /// Repeat the current item (a single source loops; a playlist repeats its current item).
    public func setRepeat(_ on: Bool) {
        lock.lock(); defer { lock.unlock() }
        config.repeat = on
        playlist.mode = on ? .repeatOne : (config.playlist?.mode ?? .once)
        dropUpcoming()
    }

    /// Seeks the current item to `ms` of media time; returns once the seek is done.
    @discardableResult
    public func seek(toMs ms: Int) -> Bool {
        lock.lock(); defer { lock.unlock() }
        // Beyond MediaTime.maxDuration the position in nanoseconds would overflow.
        guard ms >= 0, Double(ms) <= MediaTime.maxDuration * 1000 else { return false }
        guard let session = current, currentReady else {
            guard state == .loading || state == .paused || state == .playing else { return false }
            reopenCurrent(atMs: ms)
            return true
        }
        dropUpcoming()
        let ok = session.seek(toMs: ms, rate: config.speed)
        lastProgressMs = nil
        return ok
    }

    /// `value` when it lies in `range`, else a usage error that names `name` and the range.
    private static func checked(_ value: Double, in range: ClosedRange<Double>, _ name: String) throws -> Double {
        guard range.contains(value) else {
            let g = { (x: Double) in String(format: "%g", x) }
            throw MediaPubError.usage("\(name) \(g(value)) is out of range \(g(range.lowerBound))..\(g(range.upperBound))")
        }
        return value
    }

    /// Play speed 0.5...4.0 with the pitch kept (a rate seek through scaletempo).
    public func setSpeed(_ speed: Double) throws {
        let speed = try MediaPlayer.checked(speed, in: PlayerConfig.speedRange, "speed")
        lock.lock(); defer { lock.unlock() }
        config.speed = speed
        dropUpcoming()
        if let session = current, currentReady { _ = session.seek(toMs: session.positionMs, rate: speed) }
    }

    /// Voice changer: -12...12 semitones, 0 is off.
    public func setPitch(_ semitones: Double) throws {
        let semitones = try MediaPlayer.checked(semitones, in: PlayerConfig.pitchRange, "pitch")
        lock.lock(); defer { lock.unlock() }
        config.pitch = semitones
        dropUpcoming()
        if let session = current, currentReady, !session.setPitch(semitones) {
            reopenCurrent(atMs: session.positionMs)
        }
    }

    /// Replaces the resource: stop, load, start (SPEC §6 `load`).
    public func load(source: String) {
        LibraryLog.addSecrets(of: [source])
        lock.lock(); defer { lock.unlock() }
        memoryData = nil
        replacePlaylist(Playlist(source: source, repeat: config.repeat))
    }

    /// Decodes `data` from memory (`name` gives its kind by extension and names it in errors).
    public func load(data: Data, name: String) {
        lock.lock(); defer { lock.unlock() }
        memoryData = data
        replacePlaylist(Playlist(source: "memory:\(name)", repeat: config.repeat))
    }

    public func next() {
        lock.lock(); defer { lock.unlock() }
        guard playlist.items.count > 1 || config.repeat else { return }
        if playlist.mode == .repeatOne || !playlist.advance() { playlist.jump(toItem: (playlist.index + 1) % playlist.items.count) }
        failuresInARow = 0
        openCurrent()
    }

    public func previous() {
        lock.lock(); defer { lock.unlock() }
        playlist.back()
        failuresInARow = 0
        openCurrent()
    }

    /// Called with the lock held.
    private func replacePlaylist(_ list: Playlist) {
        // Changing the resource is stop, load, start: each one a state change.
        closeSessions()
        frozenFrame = nil
        setState(.stopped)
        playedSinceStart = false
        playlist = list
        failuresInARow = 0
        openCurrent()
    }

    /// Called with the lock held: the current item again, from `ms`.
    private func reopenCurrent(atMs ms: Int) {
        let resume = state
        closeSessions()
        currentReady = false
        current = makeSession(playlist.current, startAt: Double(ms) / 1000)
        current?.start()
        setState(resume == .paused ? .paused : .loading)
    }

    private func dropUpcoming() {
        retire(upcoming); upcoming = nil; upcomingPosition = nil
    }

    // MARK: frame taps

    /// Receives each audio frame the player hands the capture (PCM at the output's rate and channels).
    public func addAudioTap(_ handler: @escaping (AudioFrame) -> Void) {
        lock.lock(); taps.audio.append(handler); lock.unlock()
    }

    /// Receives each new decoded video frame, converted to `format`.
    public func addVideoTap(format: VideoFrameFormat, _ handler: @escaping (VideoFrame) -> Void) {
        lock.lock(); taps.video.append((format, handler)); lock.unlock()
    }

    // MARK: items

    /// Called with the lock held: opens `playlist.current` as the current session.
    private func openCurrent() {
        closeSessions()
        currentReady = false
        setState(.loading)
        current = makeSession(playlist.current, startAt: config.startAt)
        current?.start()
    }

    private func makeSession(_ source: String, startAt: TimeInterval) -> DecodeSession? {
        do {
            let memory: DecodeSession.Memory = memoryData.map { .data($0) } ?? (config.memory ? .load : .none)
            let session = try DecodeSession(source: source, format: format, wantsVideo: feedsVideo || taps.wantsVideo,
                                            speed: config.speed, pitch: config.pitch, startAt: startAt,
                                            memory: memory) { [weak self] session, event in
                // Bus, loader and streaming threads only hand the event over: they never wait for the player.
                self?.queue.async { [weak self, weak session] in
                    guard let self, let session else { return }
                    self.sessionEvent(event, from: session)
                }
            }
            return session
        } catch {
            let message = MediaPubError.reason(of: error)
            queue.async { [weak self] in self?.itemFailed(source: source, message: message) }
            return nil
        }
    }

    private func closeSessions() {
        retire(current); current = nil
        retire(upcoming); upcoming = nil; upcomingPosition = nil
        resumeAtMs = nil
        continuing = false
    }

    /// Called with the lock held: the current item again from `ms`, in a new
    /// session that goes on with the item (no new track).
    private func continueCurrent(atMs ms: Int) {
        retire(current); current = nil
        resumeAtMs = nil
        currentReady = false
        lastProgressMs = nil
        continuing = true
        setState(state == .paused ? .paused : .loading)
        current = makeSession(playlist.current, startAt: Double(ms) / 1000)
        current?.start()
    }

    /// Closes a session on a background queue: tearing a pipeline down takes
    /// milliseconds the capture thread must not lose.
    private func retire(_ session: DecodeSession?) {
        guard let session else { return }
        DispatchQueue.global().async { session.close() }
    }

    private func sessionEvent(_ event: DecodeSession.Event, from session: DecodeSession) {
        lock.lock()
        // Decided and acted on under one hold: the capture thread may promote `upcoming` any time.
        let isCurrent = session === current
        let isUpcoming = session === upcoming
        guard isCurrent || isUpcoming else { lock.unlock(); return }
        var track: PlayerEvent? = nil
        switch event {
        case .ready:
            if isCurrent, !currentReady {
                currentReady = true
                failuresInARow = 0
                retries = 0
                if state == .loading { setState(.playing) }
                sentTags = session.currentTags
                lock.broadcast()  // a capture may wait for a prerolled item to be ready
                if !continuing {
                    track = .track(index: playlist.index, source: playlist.current,
                                   durationMs: session.durationMs, tags: session.currentTags)
                }
                continuing = false
            }
        case .decodedAll:
            if isCurrent { preloadNextLocked() }
        case .failed(let message):
            if isCurrent { itemFailedLocked(source: session.source, message: message) }
            else { retire(upcoming); upcoming = nil; upcomingPosition = nil }
        case .tags:
            // Kept by the session (now-playing). Tags that come after the item's
            // player.track was sent go out as an updated player.track.
            if isCurrent, currentReady, let sent = sentTags, session.currentTags != sent {
                sentTags = session.currentTags
                track = .track(index: playlist.index, source: playlist.current,
                               durationMs: session.durationMs, tags: session.currentTags)
            }
        case .warning(let text):
            emit(.warning("player \(id): \(text)"))
        case .restarted(let how):
            if isCurrent {
                // The old session only holds the stale window: dropped, the new stream joined.
                emit(.warning("player \(id): \(SecretMask.mask(url: session.source)) started over (\(how)): joining it again"))
                continueCurrent(atMs: 0)
            }
        }
        lock.unlock()
        if let track { emit(track) }
    }

    /// A session could not even be made for `source` (current or upcoming).
    private func itemFailed(source: String, message: String) {
        lock.lock(); defer { lock.unlock() }
        // Only while the player still waits for that item: not once it was stopped or
        // given another source, and not for a next item that failed while preloading
        // (that one fails again, as the current item, when its turn comes).
        guard state == .loading || state == .paused, current == nil, playlist.current == source else { return }
        itemFailedLocked(source: source, message: message)
    }

    /// Called with the lock held: the current item failed. A network source is
    /// retried; media that broke after it played ends there (what decoded still
    /// plays out); anything else is skipped (a playlist) or fails the player.
    private func itemFailedLocked(source: String, message: String) {
        let isNetwork = ["http", "https"].contains(PathResolution.sourceScheme(of: source) ?? "")
        // GStreamer's generic streaming error says nothing a user can act on.
        let reason = message.hasPrefix("Internal data stream error")
            ? (isNetwork ? "cannot read from the server (connection refused, failed or dropped)" : "cannot be read")
            : message.hasPrefix("Could not determine type of stream")
                ? "not media (no decoder recognises what it holds)"
                : message
        // GStreamer's text may quote the location: its secrets go too.
        let text = "\(SecretMask.mask(url: source)): \(SecretMask.scrub(reason, secretsOf: source))"
        if let session = current, session.source == source, let raw = session.failure, skipSegment(of: session, failedWith: raw) { return }
        if isNetwork, MediaPlayer.isTransient(message), retries < maxRetries, state != .stopped {
            // A network source that fails is retried (1 s, 2 s, 4 s) before it is skipped.
            retries += 1
            let delay = Double(1 << (retries - 1))
            emit(.warning("player \(id): \(text); retrying in \(Int(delay))s"))
            let position = current?.positionMs ?? 0
            closeSessions()
            currentReady = false
            setState(.loading)
            queue.asyncAfter(deadline: .now() + delay) { [weak self] in
                guard let self else { return }
                self.lock.lock(); defer { self.lock.unlock() }
                guard self.state == .loading, self.current == nil, self.playlist.current == source else { return }
                self.current = self.makeSession(source, startAt: Double(position) / 1000)
                self.current?.start()
            }
            return
        }
        retries = 0
        if let session = current, currentReady, session.playhead > .zero {
            // Corrupt, truncated or dropped after it played: what decoded plays out,
            // then the item ends as at its end (the next one is prepared now).
            emit(.warning("player \(id): \(text); moving on after what decoded"))
            preloadNextLocked()
            return
        }
        failuresInARow += 1
        if playlist.items.count > 1, failuresInARow < playlist.items.count, playlist.advance() {
            emit(.warning("player \(id): skipping \(text)"))
            openCurrent()
        } else if playedSinceStart {
            // Something of this run played: the list is over, not failed.
            emit(.warning("player \(id): skipping \(text); nothing left to play"))
            closeSessions()
            setState(.ended)
        } else {
            closeSessions()
            setState(.error, error: text)
        }
    }

    /// Called with the lock held: when `message` says an HLS segment of `session` (the
    /// current one) could not be fetched (hlsdemux gave up on it, and with it the whole
    /// stream), a VOD item goes on after that segment (once what decoded has played)
    /// and a live one is joined again. Returns whether it was such a failure.
    private func skipSegment(of session: DecodeSession, failedWith message: String) -> Bool {
        // Already going on after a segment: later errors are that failure's consequences.
        if resumeAtMs != nil { return true }
        guard let segment = session.segmentFailure(in: message),
              segment.isLive || segment.resumeMs > session.mediaStartMs else { return false }
        let why = segment.status.map { " (\($0))" } ?? ""
        let what = "segment \(segment.number) of \(SecretMask.mask(url: session.source)) could not be fetched\(why)"
        if segment.isLive {
            // Retried like any network failure (bounded until it plays again), from the live edge.
            guard retries < maxRetries else { return false }
            retries += 1
            emit(.warning("player \(id): \(what): joining the live stream again"))
            continueCurrent(atMs: 0)
        } else if currentReady, session.playhead > .zero {
            emit(.warning("player \(id): \(what): skipped"))
            resumeAtMs = segment.resumeMs
        } else {
            emit(.warning("player \(id): \(what): skipped"))
            continueCurrent(atMs: segment.resumeMs)
        }
        return true
    }

    /// Network trouble a retry may mend (refused, unreachable, dropped, stalled,
    /// a server error); anything else (4xx, not media, no decoder) fails at once.
    static func isTransient(_ message: String) -> Bool {
        let text = message.lowercased()
        let phrases = ["internal data stream error", "could not connect", "could not resolve", "connection", "timed out",
                       "timeout", "nothing to decode within", "could not read", "secure", "internal server error",
                       "bad gateway", "service unavailable", "gateway timeout", "error: 5", "http 5",
                       "host not found", "stalled"]
        return phrases.contains { text.contains($0) }
    }

    /// Called with the lock held: opens the next item ahead, so it starts gaplessly.
    private func preloadNextLocked() {
        guard upcoming == nil, let (position, reshuffle) = playlist.following(), !reshuffle else { return }
        var copy = playlist
        _ = copy.advance()
        upcomingPosition = position
        upcoming = makeSession(copy.current, startAt: 0)
        upcoming?.start()
    }

    /// Called with the lock held when the current session has nothing more to give.
    private func advanceAfterEnd() -> Bool {
        // Drained before its failure reached the player (the event waits for the lock the capture holds).
        if resumeAtMs == nil, let session = current, let message = session.failure,
           skipSegment(of: session, failedWith: message), current !== session {
            return true  // already going on in a new session
        }
        if let ms = resumeAtMs {
            // The same item goes on after a segment it had to leave out.
            continueCurrent(atMs: ms)
            return true
        }
        retire(current)
        current = nil
        guard playlist.advance() else {
            retire(upcoming); upcoming = nil
            setState(.ended)
            return false
        }
        lastProgressMs = nil
        if let next = upcoming, upcomingPosition == playlist.position {
            current = next
            upcoming = nil
            upcomingPosition = nil
            currentReady = next.isReady
            // A short item decodes to its end while it waits as the next one: its
            // `decodedAll` came while it was not current, so the item after it is prepared now.
            if next.hasDecodedAll { preloadNextLocked() }
            // A prerolled item is never reported as loading: one still finishing its preroll
            // goes on as playing (the capture waits for it, `awaitingItem`), and gets its
            // player.track once ready.
            if currentReady {
                sentTags = next.currentTags
                emit(.track(index: playlist.index, source: playlist.current,
                            durationMs: next.durationMs, tags: next.currentTags))
            }
            return true
        }
        retire(upcoming); upcoming = nil
        current = makeSession(playlist.current, startAt: 0)
        currentReady = false
        setState(.loading)
        current?.start()
        return true
    }

    /// Called with the lock held: a progress event each `progress_interval` of media time.
    private func reportProgress() {
        guard state == .playing, let session = current else { return }
        let position = session.positionMs
        let step = max(100, Int(config.progressInterval * 1000))
        if let last = lastProgressMs, position >= last, position - last < step { return }
        lastProgressMs = position - position % step
        emit(.progress(positionMs: position, durationMs: session.durationMs))
    }

    // MARK: capture side

    struct Rendered {
        var audioFrames: Int
        var video: Buffer?
        /// The mix settings as they were for this tick (read under the same lock).
        var aux = false
        var publishGain: Float = 0
        /// nil when the player is muted locally.
        var localGain: Float?
    }

    /// Hands the capture `frames` of audio (interleaved floats written to `out`)
    /// and the frame due now. `wait` bounds how long to wait for decoding
    /// (0 in realtime, longer when running as fast as possible).
    func render(frames: Int, tick: ClockTime, into out: UnsafeMutablePointer<Float>, wait: Double) -> Rendered {
        lock.lock()
        var deliveries: [() -> Void] = []
        var rendered = renderLocked(frames: frames, tick: tick, into: out, wait: wait, deliveries: &deliveries)
        rendered.aux = config.aux
        rendered.publishGain = Float(config.publishVolume) / 100
        rendered.localGain = config.muteLocal ? nil : Float(config.playVolume) / 100
        lock.unlock()
        // Tap handlers run outside the lock: they may ask the player anything.
        for deliver in deliveries { deliver() }
        return rendered
    }

    /// Called with the lock held: the current item is not ready to give anything yet
    /// (loading, or a prerolled next item that became current before its preroll finished).
    private var awaitingItem: Bool { state == .loading || (state == .playing && !currentReady) }

    private func renderLocked(frames: Int, tick: ClockTime, into out: UnsafeMutablePointer<Float>, wait: Double,
                              deliveries: inout [() -> Void]) -> Rendered {
        let renderBegan = Date()  // a tick that waits for data counts its wait as starved
        if awaitingItem && wait > 0 {
            let deadline = Date().addingTimeInterval(max(wait, 0))
            while awaitingItem && lock.wait(until: deadline) {}
        }
        if state != .playing { starvedSince = nil }
        switch state {
        case .paused: return Rendered(audioFrames: 0, video: frozenFrame)
        case .playing where currentReady: break
        default: return Rendered(audioFrames: 0, video: nil)
        }
        var filled = 0
        var hops = 0
        // Where in this tick the item last changed, and the picture of the item that
        // was playing at the tick's middle when that was an item that ended since.
        var changedAt: Int? = nil
        var pictureAtMiddle: Buffer? = nil
        while let session = current, hops < 3 {
            if session.hasAudio && !session.audioExhausted {
                filled += session.readAudio(frames: frames - filled, into: out + filled * format.channels, wait: wait)
            } else {
                // No audio (left): the picture's clock is the timeline's, for the part of
                // the tick this item has (all of it, unless it began within the tick).
                session.advance(by: filled == 0 ? tick : ClockTime(nanoseconds: UInt64(Double(tick.nanoseconds) * Double(frames - filled) / Double(max(1, frames)))))
            }
            // Audio is the item's clock: when it runs out the item is over (a picture
            // that goes on longer plays out first), and the next one fills the same tick.
            let over = session.hasAudio
                ? session.audioExhausted && session.videoEndsWithAudio(slack: ClockTime(milliseconds: 100), wait: wait)
                : session.isDrained
            if filled < frames || !session.hasAudio, over {
                // The item ending now spans the tick's middle: its picture is this tick's.
                if (changedAt ?? 0) * 2 <= frames && filled * 2 > frames { pictureAtMiddle = session.lastVideo }
                changedAt = filled
                hops += 1
                guard advanceAfterEnd() else { break }
                if awaitingItem && wait > 0 {
                    // Not preloaded in time: when not paced by the clock, wait rather than leave a gap.
                    let deadline = Date().addingTimeInterval(wait)
                    while awaitingItem && lock.wait(until: deadline) {}
                }
                guard state == .playing, currentReady else { break }
                continue
            }
            break
        }
        // The tick's picture is the one due at its middle, so a picture is never more than
        // half a frame from its sound: an item that began in the second half of the tick
        // shows its first frame from the next tick on.
        var decoded = (feedsVideo || taps.wantsVideo) ? current?.videoFrame(lag: tick.scaled(by: 1, 2), wait: wait) : nil
        if let changedAt, changedAt * 2 > frames, let pictureAtMiddle { decoded = pictureAtMiddle }
        // A source that gives nothing (network stall, buffering) has no picture to show: the slate stands in.
        let progressed = filled > 0 || (current.map { !$0.hasAudio || $0.audioExhausted } ?? false)
        stalled = progressed ? .zero : stalled + tick
        let buffering = stalled > stallLimit
        if state != .playing || filled >= frames || (progressed && filled == 0) {
            starvedSince = nil  // all it was asked for, or it was not asked (no audio)
        } else if let session = current {
            // Short this tick (it waited since it began for what did not come), or nothing again.
            let since = filled > 0 ? renderBegan : (starvedSince ?? renderBegan)
            starvedSince = since
            if Date().timeIntervalSince(since) >= DecodeSession.stallSeconds {
                // Nothing for seconds, in the middle: what was queued has played out.
                starvedSince = nil
                session.abandon()
                itemFailedLocked(source: session.source, message: DecodeSession.stalledMessage)
            }
        }
        if !taps.isEmpty {
            let position = current?.positionMs ?? 0
            deliveries += taps.deliveries(audio: out, frames: filled, video: decoded, format: format, positionMs: position)
        }
        reportProgress()
        return Rendered(audioFrames: filled, video: feedsVideo && !buffering ? decoded : nil)
    }
}

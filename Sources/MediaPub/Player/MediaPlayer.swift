import Foundation

/// Something a player reports: state changes, a new track, a skipped item.
public enum PlayerEvent: Sendable {
    case state(PlayerState, error: String?)
    case track(index: Int, source: String, durationMs: Int?, tags: NowPlaying)
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
    private var current: DecodeSession?
    private var upcoming: DecodeSession?
    private var upcomingPosition: Int?
    private var currentReady = false
    private var failuresInARow = 0
    private var tags = NowPlaying()
    private var lastError: String?
    private var frozenFrame: Buffer?
    private var eventHandler: (PlayerEvent) -> Void

    public init(config: PlayerConfig, format: MediaFormat, feedsVideo: Bool,
                onEvent: @escaping (PlayerEvent) -> Void = { _ in }) {
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

    public func setEventHandler(_ handler: @escaping (PlayerEvent) -> Void) {
        lock.lock(); eventHandler = handler; lock.unlock()
    }

    // MARK: state

    public var currentState: PlayerState { lock.lock(); defer { lock.unlock() }; return state }
    public var publishVolume: Int { lock.lock(); defer { lock.unlock() }; return config.publishVolume }
    public var aux: Bool { lock.lock(); defer { lock.unlock() }; return config.aux }
    public var settings: PlayerConfig { lock.lock(); defer { lock.unlock() }; return config }
    public var nowPlaying: NowPlaying { lock.lock(); defer { lock.unlock() }; return tags }
    public var currentSource: String { lock.lock(); defer { lock.unlock() }; return playlist.current }
    public var currentIndex: Int { lock.lock(); defer { lock.unlock() }; return playlist.index }

    /// Position in the current item, in ms of media time.
    public var positionMs: Int {
        lock.lock(); defer { lock.unlock() }
        guard let s = current else { return 0 }
        return Int(Double(s.playhead) / 1e6 * config.speed + config.startAt * 1000)
    }

    public var durationMs: Int? {
        lock.lock(); let s = current; lock.unlock()
        return s?.duration.map { Int($0 / 1_000_000) }
    }

    /// Called with the lock held.
    private func setState(_ new: PlayerState, error: String? = nil) {
        guard new != state || error != nil else { return }
        state = new
        if let error { lastError = error }
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

    public func setPublishVolume(_ volume: Int) {
        lock.lock(); config.publishVolume = max(0, min(200, volume)); lock.unlock()
    }

    public func setAux(_ on: Bool) { lock.lock(); config.aux = on; lock.unlock() }

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
            var session: DecodeSession?
            session = try DecodeSession(source: source, format: format, wantsVideo: feedsVideo,
                                        speed: config.speed, pitch: config.pitch, startAt: startAt) { [weak self] event in
                // Bus and loader threads only hand the event over: they never wait for the player.
                guard let self else { return }
                self.queue.async { [weak self] in
                    guard let self, let session else { return }
                    self.sessionEvent(event, from: session)
                }
            }
            return session
        } catch {
            let message = "\(error)"
            queue.async { [weak self] in self?.itemFailed(source: source, message: message) }
            return nil
        }
    }

    private func closeSessions() {
        current?.close(); current = nil
        upcoming?.close(); upcoming = nil; upcomingPosition = nil
    }

    private func sessionEvent(_ event: DecodeSession.Event, from session: DecodeSession) {
        lock.lock()
        let isCurrent = session === current
        let isUpcoming = session === upcoming
        lock.unlock()
        guard isCurrent || isUpcoming else { return }
        switch event {
        case .ready:
            lock.lock()
            if isCurrent {
                currentReady = true
                failuresInARow = 0
                if state == .loading { setState(.playing) }
                let index = playlist.index, source = playlist.current, tags = self.tags
                lock.unlock()
                emit(.track(index: index, source: source, durationMs: session.duration.map { Int($0 / 1_000_000) }, tags: tags))
            } else { lock.unlock() }
        case .decodedAll:
            if isCurrent { preloadNext() }
        case .failed(let message):
            if isCurrent { itemFailed(source: session.source, message: message) }
            else {
                lock.lock(); upcoming?.close(); upcoming = nil; upcomingPosition = nil; lock.unlock()
            }
        case .tags(let nowPlaying):
            lock.lock()
            if isCurrent {
                tags = NowPlaying(title: nowPlaying.title ?? tags.title, artist: nowPlaying.artist ?? tags.artist,
                                  album: nowPlaying.album ?? tags.album)
            }
            lock.unlock()
        }
    }

    /// The current item cannot be played: skip it (a playlist) or fail (a single source).
    private func itemFailed(source: String, message: String) {
        lock.lock(); defer { lock.unlock() }
        let text = "\(SecretMask.mask(url: source)): \(message)"
        failuresInARow += 1
        if playlist.items.count > 1, failuresInARow < playlist.items.count, playlist.advance() {
            emit(.warning("player \(id): skipping \(text)"))
            openCurrent()
        } else {
            closeSessions()
            setState(.error, error: text)
        }
    }

    private func preloadNext() {
        lock.lock(); defer { lock.unlock() }
        guard upcoming == nil, let (position, reshuffle) = playlist.following(), !reshuffle else { return }
        var copy = playlist
        _ = copy.advance()
        upcomingPosition = position
        upcoming = makeSession(copy.current, startAt: 0)
        upcoming?.start()
    }

    /// Called with the lock held when the current session has nothing more to give.
    private func advanceAfterEnd() -> Bool {
        current?.close()
        current = nil
        guard playlist.advance() else {
            upcoming?.close(); upcoming = nil
            setState(.ended)
            return false
        }
        tags = NowPlaying()
        if let next = upcoming, upcomingPosition == playlist.position {
            current = next
            upcoming = nil
            upcomingPosition = nil
            currentReady = next.hasAudio || next.hasVideo
            if !currentReady { setState(.loading) }
            if currentReady {
                let index = playlist.index, source = playlist.current
                let tags = self.tags
                emit(.track(index: index, source: source, durationMs: next.duration.map { Int($0 / 1_000_000) }, tags: tags))
            }
            return true
        }
        upcoming?.close(); upcoming = nil
        current = makeSession(playlist.current, startAt: 0)
        currentReady = false
        setState(.loading)
        current?.start()
        return true
    }

    // MARK: capture side

    struct Rendered {
        var audioFrames: Int
        var video: Buffer?
    }

    /// Hands the capture `frames` of audio (interleaved floats written to `out`)
    /// and the frame due now. `wait` bounds how long to wait for decoding
    /// (0 in realtime, longer when running as fast as possible).
    func render(frames: Int, tick: UInt, into out: UnsafeMutablePointer<Float>, wait: Double) -> Rendered {
        lock.lock(); defer { lock.unlock() }
        if state == .loading && wait > 0 {
            let deadline = Date().addingTimeInterval(max(wait, 0))
            while state == .loading && lock.wait(until: deadline) {}
        }
        switch state {
        case .paused: return Rendered(audioFrames: 0, video: frozenFrame)
        case .playing: break
        default: return Rendered(audioFrames: 0, video: nil)
        }
        var filled = 0
        var hops = 0
        while let session = current, hops < 3 {
            if session.hasAudio {
                filled += session.readAudio(frames: frames - filled, into: out + filled * format.channels, wait: wait)
            } else {
                session.advance(by: tick)
            }
            if filled < frames || !session.hasAudio, session.isDrained {
                hops += 1
                guard advanceAfterEnd(), state == .playing else { break }
                if !session.hasAudio { break }
                continue
            }
            break
        }
        let video = feedsVideo ? current?.videoFrame(wait: wait) : nil
        return Rendered(audioFrames: filled, video: video)
    }
}

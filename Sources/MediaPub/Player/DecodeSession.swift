import Foundation
import Synchronization

/// One decoding pipeline for one resource (see `DecodeGraph`). The capture thread
/// pulls from it in timeline order (`DecodeSession+Reading`); loading and preroll
/// run on a thread of their own (`DecodeSession+Loading`); nothing here blocks a
/// streaming thread on Swift state. All mutable state is in `state`.
final class DecodeSession: Sendable {
    enum Event: Sendable {
        case ready
        case decodedAll        // the pipeline reached EOS: everything is decoded (maybe not yet consumed)
        case failed(SourceFailure)
        case tags(NowPlaying)
        /// Something the player reports and goes on (an HLS segment left out of a `memory: true` fetch).
        case warning(String)
        /// The endless HLS origin started over (its media sequence went back): the session is stale.
        case restarted(String)
    }

    /// Bytes to decode from memory: given (`load(data:)`), or fetched/read at load (`memory: true`).
    enum Memory: Sendable {
        case none
        case load
        case data(Data)
    }

    struct State: HasWaiters {
        var audioSink: AppSink?
        var videoSink: AppSink?
        /// A decoded stream took the audio (the video) branch: the next one goes to a fakesink.
        var audioBranch = false
        var videoBranch = false
        var closed = false
        var ready = false
        var decodedAllSent = false
        /// The source broke mid-way: what is queued plays out, then nothing more is waited for.
        var broken = false
        /// A failure was passed on: later bus errors (its consequences) are not.
        var errorReported = false
        /// Watching the source element's output (uridecodebin's source): when it last gave
        /// data, and whether it ended (HLS: the playlist was read, fragments come otherwise).
        var watchesSource = false
        var lastSourceData = MonotonicInstant.now
        /// Bytes the source element gave (a live feed's bitrate, docs/status.md, `live`).
        var sourceBytes: UInt64 = 0
        var sourceEnded = false
        /// A local FIFO held open for reading while the pipeline opens it (see `waitForWriter`).
        var fifo: Int32 = -1
        /// The text of the first error the pipeline posted.
        var firstError: String?
        /// The HLS media playlist as read at load (an `.m3u8` source), nil for anything else.
        var hlsPlaylist: HLSPlaylist?
        /// An endless playlist: the media sequence number of the last segment it listed so far
        /// (what this session has played, or has queued to play), and when it last grew.
        var endlessLastSequence: Int?
        var endlessMovedAt = MonotonicInstant.now
        /// A VOD playlist started past its beginning: the segments from there on, in a file of ours.
        var trimmedPlaylist: URL?
        /// Media time (ms) where the pipeline's own time 0 lies (a trimmed playlist's first segment).
        var seekOffsetMs = 0
        /// What the consumer has taken so far.
        var reading: Reading
        /// The item's duration (ms of media time) as the pipeline said once prerolled; nil: unknown or endless.
        var lengthMs: Int?
        /// The consumer waiting for a seek asked for on another thread to be made (`holdForSeek`).
        var waiters = Waiters()
    }

    let source: String
    let spec: SourceSpec
    let format: MediaFormat
    let wantsVideo: Bool
    let speed: Double
    let pitch: Double
    let startAt: TimeInterval
    let memory: Memory
    let pipeline: Pipeline
    /// Gets the session itself, so that no closure has to hold it (no retain cycle).
    let onEvent: @Sendable (DecodeSession, Event) -> Void
    let state: Mutex<State>
    /// Title, artist and album seen so far, noted on the thread that posts them.
    let tags = StreamTags()
    /// Ends the watch of an endless playlist (signalled by `close`).
    let watchStop = DispatchSemaphore(value: 0)
    /// Signalled when a decoded stream gets its appsink, and by `close` (`waitForStreams`).
    let sinkArrived = DispatchSemaphore(value: 0)

    /// A source that gives nothing this long (no byte while it loads, no sound
    /// while it plays) is stalled: it fails like any broken source.
    static let stallSeconds: TimeInterval = 10
    static let stalledMessage = "sends nothing (stalled)"
    static let stalled = SourceFailure(stalledMessage, .stalled)

    init(source: String, format: MediaFormat, wantsVideo: Bool, speed: Double = 1, pitch: Double = 0,
         startAt: TimeInterval = 0, memory: Memory = .none, onEvent: @escaping @Sendable (DecodeSession, Event) -> Void) throws {
        assert(!TimelineThread.isCurrent, "a pipeline is built off the timeline thread (docs/design.md, The timeline)")
        self.source = source
        self.spec = try SourceSpec(source, streams: true)  // which sources a player may have is checked before
        self.memory = memory
        if case .testPattern = spec, case .none = memory {} else if case .testPattern = spec {
            throw MediaPubError.badSource(source, "a test pattern cannot be loaded into memory")
        }
        self.format = format
        self.wantsVideo = wantsVideo && format.video != nil
        self.speed = speed
        self.pitch = pitch
        self.startAt = startAt
        self.onEvent = onEvent
        state = Mutex(State(reading: Reading(mediaStartMs: Int(startAt * 1000), rate: speed)))
        var inMemory = true
        if case .none = memory { inMemory = false }
        pipeline = try Pipeline(description: inMemory
            ? DecodeGraph.fromMemory
            : DecodeGraph.describe(spec, format: format, wantsVideo: self.wantsVideo, pitch: pitch))
        switch spec {
        case .testPattern:
            let audio = pipeline.appSink(named: "asink"), video = pipeline.appSink(named: "vsink")
            state.withLock { $0.audioSink = audio; $0.videoSink = video }
            if let pad = audio?.staticPad("sink") { watchEOS(pad) }
        case .uri(_, let isImage):
            guard let decoder = pipeline.element(named: "dec") else { throw MediaPubError.pipeline("no decoder") }
            Signals.onPadAdded(decoder) { [weak self] pad in self?.padAdded(pad, isImage: isImage) }
            Signals.onDeepElementAdded(decoder, DecodeGraph.limitDecoderThreads)
            Signals.onDeepElementAdded(decoder, DecodeGraph.trimMP3Padding)
            if !inMemory {
                Signals.onSourceSetup(decoder) { [weak self] element in self?.sourceSetup(element) }
            }
        }
    }

    deinit {
        close()
        GStreamer.returnFreedMemory()
    }

    /// Streaming thread: link each decoded stream to its branch; streams the
    /// run has no use for go to a fakesink so they never block the demuxer. The branch
    /// is chosen under the lock (two pads added at once never both take one), and built
    /// and brought to the pipeline's state without it.
    private func padAdded(_ pad: Pad, isImage: Bool) {
        let type = pad.mediaType ?? ""
        let description: String? = state.withLock { s in
            guard !s.closed else { return nil }
            if type.hasPrefix("audio/") && !s.audioBranch {
                s.audioBranch = true
                return DecodeGraph.audioBranch(format: format, pitch: pitch, dropping: spec.isStream)
            } else if type.hasPrefix("video/") && wantsVideo && !s.videoBranch {
                s.videoBranch = true
                return DecodeGraph.videoBranch(format: format, still: isImage, dropping: spec.isStream)
            }
            return "fakesink sync=false async=false"
        }
        guard let description else { return }
        let failure: String?
        do {
            let bin = try pipeline.addBin(description: description)
            // The sink is known before any data can reach it (before the link).
            let audio = description.contains("name=asink") ? pipeline.appSink(named: "asink") : nil
            let video = description.contains("name=vsink") ? pipeline.appSink(named: "vsink") : nil
            if audio != nil || video != nil {
                state.withLock { s in
                    if let audio { s.audioSink = audio }
                    if let video { s.videoSink = video }
                }
                sinkArrived.signal()
            }
            if let sinkPad = bin.staticPad("sink") {
                // At the branch's entry, before its 3 s queue: seconds of lead for the next item.
                if audio != nil { watchEOS(sinkPad) }
                failure = pad.link(to: sinkPad) ? nil : "cannot link \(type) stream"
            } else {
                failure = "cannot link \(type) stream"
            }
        } catch {
            failure = "\(error)"
        }
        if let failure { onEvent(self, .failed(SourceFailure(failure, .unplayable))) }
    }

    /// The thread that starts the source: trust the CAs of SSL_CERT_FILE (HTTPS),
    /// and note each byte the source gives, to tell a stalled source while loading.
    private func sourceSetup(_ element: Element) {
        // Every HTTP source gets the CAs (an http URL may redirect to https); a bad CA file fails an https one.
        if let problem = TLSTrust.apply(to: element), case .uri(let uri, _) = spec, uri.lowercased().hasPrefix("https:") {
            state.withLock { $0.broken = true; $0.errorReported = true }
            onEvent(self, .failed(SourceFailure(problem, .unplayable)))
            return
        }
        // An SRT listener keeps listening for the next sender once one has gone (docs/presets.md, live).
        if element.factoryName == "srtsrc" { element.set("keep-listening", bool: true) }
        guard let pad = element.staticPad("src") else { return }
        state.withLock { $0.watchesSource = true; $0.lastSourceData = MonotonicInstant.now }
        Probes.onBytes(pad) { [weak self] bytes in self?.state.withLock { $0.lastSourceData = MonotonicInstant.now; $0.sourceBytes &+= UInt64(bytes) } }
        Probes.onEndOfStream(pad) { [weak self] in self?.state.withLock { $0.sourceEnded = true } }
    }

    /// The appsink reports EOS only once everything was pulled; the next item must
    /// be prepared earlier: when the end of the audio enters its branch.
    func watchEOS(_ pad: Pad) {
        Probes.onEndOfStream(pad) { [weak self] in self?.decodedAll() }
    }

    /// Called once, when decoding reached the end (from the audio EOS probe or the bus).
    func decodedAll() {
        let first = state.withLock { s in
            defer { s.decodedAllSent = true }
            return !s.decodedAllSent
        }
        if first { onEvent(self, .decodedAll) }
    }

    /// Bus messages, on the bus's own queue.
    func handle(_ message: BusMessage) {
        switch message {
        case .endOfStream: decodedAll()
        case .error(let error):
            // Broken from now on: what is queued plays out, nobody waits for more.
            let first = state.withLock { s in
                s.broken = true
                if s.firstError == nil { s.firstError = error.message }
                defer { s.errorReported = true }
                return !s.errorReported
            }
            // The first error says what broke; the others are its consequences.
            if first { reportFirstError(error) }
        case .tags(let title, let artist, let album):
            // Already noted (`tags`, on the posting thread); the player hears of them in bus order.
            guard title != nil || artist != nil || album != nil else { break }
            onEvent(self, .tags(currentTags))
        case .warning, .buffering, .fragmentClosed:
            break
        }
    }

    private func reportFirstError(_ error: ErrorMessage) {
        let failure = SourceFailure(error.message, .library(error.code, httpStatus: error.httpStatus))
        if let segment = segmentFailure(in: error.message) {
            // hlsdemux quotes souphttpsrc's debug text (source file, element path, URL): said in our words.
            onEvent(self, .failed(SourceFailure(segment.description, .segment(httpStatus: segment.httpStatus))))
        } else if case .uri(let uri, _) = spec, SourceFailure.isVague(error.code, httpStatus: error.httpStatus),
                  ["http", "https"].contains(PathResolution.sourceScheme(of: uri) ?? "") {
            // GStreamer's words say little ("Internal data stream error", "Found"):
            // ask the server once more with libcurl, off the bus queue, and say what it is.
            DispatchQueue.global().async { [self] in
                onEvent(self, .failed(SourceDiagnosis.diagnose(uri) ?? failure))
            }
        } else {
            onEvent(self, .failed(failure))
        }
    }

    func close() {
        let (wasClosed, file) = state.withLock { s in
            defer { s.closed = true; s.trimmedPlaylist = nil }
            return (s.closed, s.trimmedPlaylist)
        }
        guard !wasClosed else { return }
        watchStop.signal()
        sinkArrived.signal()
        if let file { try? FileManager.default.removeItem(at: file) }
        pipeline.stop()
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    var offsetMs: Int { state.withLock { $0.seekOffsetMs } }

    /// An endless source has none (hlsdemux answers with its window's length).
    var duration: ClockTime? { isEndless ? nil : pipeline.duration }
    /// Asks the pipeline (never under the player's lock); the answer is kept as `lengthMs`
    /// (an MP3 without a length in its header has one only once some of it is read).
    var durationMs: Int? {
        let ms = duration.map { $0.milliseconds + offsetMs }
        if let ms { state.withLock { $0.lengthMs = ms } }
        return ms
    }

    /// The first error the pipeline posted, if any.
    var failure: String? { state.withLock { $0.firstError } }

    /// An endless HLS playlist (no `#EXT-X-ENDLIST`), as read at load.
    var isEndless: Bool { state.withLock { $0.hlsPlaylist?.isEndless == true } }

    /// Prerolled and playing: its streams are known.
    var isReady: Bool { state.withLock { $0.ready } }

    /// The item's duration in ms of media time as last asked (`durationMs`: once ready, and
    /// with each `player.progress`); nil: unknown or endless. Never waits.
    var lengthMs: Int? { state.withLock { $0.lengthMs } }

    /// Decoding reached the end (the next item may be prepared).
    var hasDecodedAll: Bool { state.withLock { $0.decodedAllSent } }

    /// Title, artist and album seen in the stream so far.
    var currentTags: NowPlaying { tags.current }

    /// The consumer gives up on a source that stalled: what is queued is all there is.
    func abandon() { state.withLock { $0.broken = true } }

    /// A flushing seek (and new rate); the consumer's state starts over at the target. It
    /// waits for the decoder's threads: never on the timeline thread (the player makes the
    /// seeks asked for there on its opener queue, `MediaPlayer.seekOffTimeline`).
    func seek(toMs ms: Int, rate: Double) -> Bool {
        TimelineThread.assertOff("a session's flushing seek")
        // A trimmed playlist begins at `seekOffsetMs`: nothing before it can be reached.
        let offset = offsetMs
        let ms = max(ms, offset)
        guard pipeline.seek(to: ClockTime(milliseconds: ms - offset), rate: rate) else {
            state.withLock { s in
                s.reading.seekPending = false  // reads go on from where they were
                s.waiters.wakeAll()
            }
            return false
        }
        state.withLock { s in
            defer { s.waiters.wakeAll() }
            s.decodedAllSent = false
            var reading = Reading(mediaStartMs: max(0, ms), rate: rate, lastVideo: s.reading.lastVideo)
            reading.seeks = s.reading.seeks &+ 1
            // One warning an item, whatever its seeks (the playhead starts over with each).
            reading.brokenSamples = s.reading.brokenSamples
            reading.brokenReported = s.reading.brokenReported
            reading.brokenSince = s.reading.brokenSince.map { _ in .zero }
            s.reading = reading
        }
        return true
    }

    /// Changes the voice-changer pitch in place; false when this session has no pitch stage.
    func setPitch(_ semitones: Double) -> Bool {
        guard let element = pipeline.element(named: "pitch") else { return false }
        element.set("pitch", double: DecodeGraph.pitchRatio(semitones))
        return true
    }
}

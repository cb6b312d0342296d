import CGStreamer
import CShim
import Foundation

/// One decoding pipeline for one resource: source → decoders → converters →
/// appsinks in the output's raw formats. The capture thread pulls from it in
/// timeline order; nothing here blocks a streaming thread on Swift state.
final class DecodeSession: @unchecked Sendable {
    enum Event {
        case ready
        case decodedAll        // the pipeline reached EOS: everything is decoded (maybe not yet consumed)
        case failed(String)
        case tags(NowPlaying)
        /// Something the player reports and goes on (an HLS segment left out of a `memory: true` fetch).
        case warning(String)
        /// The live HLS origin started over (its media sequence went back): the session is stale.
        case restarted(String)
    }

    let source: String
    let spec: SourceSpec
    private let format: MediaFormat
    private let wantsVideo: Bool
    private let speed: Double
    private let pitch: Double
    private let startAt: TimeInterval
    private let pipeline: Pipeline
    private let bus: Bus
    /// Gets the session itself, so that no closure has to hold it (no retain cycle).
    private let onEvent: (DecodeSession, Event) -> Void

    private let lock = NSLock()
    private var audioSink: AppSink?
    private var videoSink: AppSink?
    private var closed = false
    private var ready = false
    private var decodedAllSent = false
    /// The source broke mid-way: what is queued plays out, then nothing more is waited for.
    private var broken = false
    private var tagsSeen = NowPlaying()
    /// A bus error was passed on: later ones (their consequences) are not.
    private var errorReported = false
    /// Watching the source element's output (uridecodebin's source): when it last gave
    /// data, and whether it ended (HLS: the playlist was read, fragments come otherwise).
    private var watchesSource = false
    private var lastSourceData = Date()
    private var sourceEnded = false
    /// A local FIFO held open for reading while the pipeline opens it (see `waitForWriter`).
    private var fifo: Int32 = -1
    /// The text of the first error the pipeline posted.
    private var firstError: String?
    /// The HLS media playlist as read at load (an `.m3u8` source), nil for anything else.
    private var hlsPlaylist: HLSPlaylist?
    /// A VOD playlist started past its beginning: the segments from there on, in a file of ours.
    private var trimmedPlaylist: URL?
    /// Ends the live playlist watch (signalled by `close`).
    private let watchStop = DispatchSemaphore(value: 0)

    // Consumption state: touched only by the consumer (under the player's lock).
    /// The decoded buffer being consumed, read in place (no copy of its own).
    private var pending: Buffer?
    private var pendingSamples = 0
    private var pendingOffset = 0
    private var pendingTime = ClockTime.zero
    private var nextVideo: Sample?
    private(set) var lastVideo: Buffer?
    private var audioDone = false
    private var videoDone = false
    /// Running time consumed so far on this session's own timeline (ns).
    private(set) var playhead = ClockTime.zero

    /// Bytes to decode from memory: given (`load(data:)`), or fetched/read at load (`memory: true`).
    enum Memory {
        case none
        case load
        case data(Data)
    }

    private let memory: Memory
    /// Media time (ms) at playhead 0: the start position, or the last seek target.
    private(set) var mediaStartMs: Int
    private(set) var rate: Double

    init(source: String, format: MediaFormat, wantsVideo: Bool, speed: Double = 1, pitch: Double = 0,
         startAt: TimeInterval = 0, memory: Memory = .none, onEvent: @escaping (DecodeSession, Event) -> Void) throws {
        self.source = source
        self.spec = try SourceSpec(source)
        self.memory = memory
        self.mediaStartMs = Int(startAt * 1000)
        self.rate = speed
        if case .testPattern = spec, case .none = memory {} else if case .testPattern = spec {
            throw MediaPubError.badSource(source, "a test pattern cannot be loaded into memory")
        }
        self.format = format
        self.wantsVideo = wantsVideo && format.video != nil
        self.speed = speed
        self.pitch = pitch
        self.startAt = startAt
        self.onEvent = onEvent
        var inMemory = true
        if case .none = memory { inMemory = false }
        pipeline = try Pipeline(description: inMemory
            ? "appsrc name=memsrc ! decodebin name=dec"
            : DecodeSession.describe(spec, format: format, wantsVideo: self.wantsVideo, pitch: pitch))
        bus = pipeline.bus
        switch spec {
        case .testPattern:
            audioSink = pipeline.appSink(named: "asink")
            videoSink = pipeline.appSink(named: "vsink")
            if let pad = audioSink?.staticPad("sink") { watchEOS(pad) }
        case .uri(_, let isImage):
            guard let decoder = pipeline.element(named: "dec") else { throw MediaPubError.pipeline("no decoder") }
            Signals.onPadAdded(decoder) { [weak self] pad in self?.padAdded(pad, isImage: isImage) }
            Signals.onDeepElementAdded(decoder, DecodeSession.limitDecoderThreads)
            Signals.onDeepElementAdded(decoder, DecodeSession.trimMP3Padding)
            if !inMemory {
                Signals.onSourceSetup(decoder) { [weak self] element in self?.sourceSetup(element) }
            }
        }
    }

    deinit {
        close()
        GStreamer.returnFreedMemory()
    }

    // MARK: building

    static func audioBranch(format: MediaFormat, pitch: Double) -> String {
        let pitchStage = pitch == 0 ? "" : "pitch name=pitch pitch=\(pitchRatio(pitch)) ! audioconvert ! "
        return "queue max-size-buffers=0 max-size-bytes=0 max-size-time=3000000000 ! audioconvert ! audioresample ! "
            + "scaletempo ! audioconvert ! \(pitchStage)audioresample ! \(format.audioCaps) ! "
            + "appsink name=asink sync=false max-buffers=16 enable-last-sample=false"
    }

    /// libav's video decoders thread by frames by default: one frame-thread per core,
    /// each holding frames of the source's size (a 4K frame is 12 MB), memory that
    /// grows with the source and the machine (a 4K item and the next one prerolling:
    /// +150 MB with 2 cores). Slice threading decodes one frame at a time (parallel
    /// where the stream has slices) and holds no extra frames.
    private static func limitDecoderThreads(_ element: Element) {
        guard element.factoryName?.hasPrefix("avdec_") == true else { return }
        element.set("thread-type", int: 2)  // GST_AV_DEC_THREAD_TYPE_SLICE
    }

    /// GStreamer 1.22's MP3 parser and decoders leave the encoder delay and padding in
    /// (some 45 ms of silence per item: a gap at every item change and repeat); they
    /// are cut as ffmpeg cuts them, from the LAME tag (an MP3 of N s decodes to N s).
    private static func trimMP3Padding(_ element: Element) {
        guard let name = element.factoryName, ["avdec_mp3", "avdec_mp3float", "mpg123audiodec"].contains(name) else { return }
        element.trimMP3Padding()
    }

    /// Semitones to soundtouch's frequency ratio: n semitones → 2^(n/12).
    static func pitchRatio(_ semitones: Double) -> Double { pow(2.0, semitones / 12.0) }

    /// Scaled to the output size first, then queued: what waits in the queue and the
    /// appsink is output-size frames, whatever the source's size (a 4K source queued
    /// before its scaler held a second of 12 MB frames). The queue is bounded in bytes
    /// too: `videoQueueFrames` output frames.
    static func videoBranch(format: MediaFormat, still: Bool) -> String {
        let maxBytes = min(UInt64(max(0, format.videoFrameBytes)) * UInt64(videoQueueFrames), UInt64(UInt32.max))
        return "\(scaler) ! \(format.videoCaps ?? "video/x-raw") ! "
            + (still ? "imagefreeze ! " : "")
            + "queue max-size-buffers=0 max-size-bytes=\(maxBytes) max-size-time=1000000000 ! "
            + "appsink name=vsink sync=false max-buffers=4 enable-last-sample=false"
    }

    /// Decoded frames a video branch queues ahead of its appsink (which holds 4 more).
    static let videoQueueFrames = 8

    /// One element that converts and scales in one pass (GStreamer 1.22+), else the pair.
    private static let scaler = GStreamer.hasElement("videoconvertscale")
        ? "videoconvertscale add-borders=true" : "videoconvert ! videoscale add-borders=true"

    static func describe(_ spec: SourceSpec, format: MediaFormat, wantsVideo: Bool, pitch: Double) -> String {
        switch spec {
        case .testPattern(let pattern, let frequency):
            var parts: [String] = []
            if wantsVideo, let v = format.video {
                parts.append("videotestsrc pattern=\(pattern) ! video/x-raw,width=\(v.width),height=\(v.height),framerate=\(v.fps)/1 ! "
                    + videoBranch(format: format, still: false))
            }
            parts.append("audiotestsrc wave=sine freq=\(frequency) volume=0.5 samplesperbuffer=\(max(64, format.sampleRate / 50)) ! "
                + audioBranch(format: format, pitch: pitch))
            return parts.joined(separator: " ")
        case .uri(let uri, _):
            return "uridecodebin name=dec uri=\(GStreamer.quote(uri)) buffer-duration=3000000000"
        }
    }

    /// Streaming thread: link each decoded stream to its branch; streams the
    /// run has no use for go to a fakesink so they never block the demuxer.
    private func padAdded(_ pad: Pad, isImage: Bool) {
        let type = pad.mediaType ?? ""
        lock.lock(); defer { lock.unlock() }
        guard !closed else { return }
        let description: String
        if type.hasPrefix("audio/") && audioSink == nil {
            description = DecodeSession.audioBranch(format: format, pitch: pitch)
        } else if type.hasPrefix("video/") && wantsVideo && videoSink == nil {
            description = DecodeSession.videoBranch(format: format, still: isImage)
        } else {
            description = "fakesink sync=false async=false"
        }
        do {
            let bin = try pipeline.addBin(description: description)
            guard let sinkPad = bin.staticPad("sink"), pad.link(to: sinkPad) else {
                onEvent(self, .failed("cannot link \(type) stream"))
                return
            }
            if description.contains("name=asink") {
                audioSink = pipeline.appSink(named: "asink")
                // At the branch's entry, before its 3 s queue: seconds of lead for the next item.
                watchEOS(sinkPad)
            }
            if description.contains("name=vsink") { videoSink = pipeline.appSink(named: "vsink") }
        } catch {
            onEvent(self, .failed("\(error)"))
        }
    }

    /// A source that gives nothing this long (no byte while it loads, no sound
    /// while it plays) is stalled: it fails like any broken source.
    static let stallSeconds: TimeInterval = 10
    static let stalledMessage = "sends nothing (stalled)"

    /// The thread that starts the source: trust the CAs of SSL_CERT_FILE (HTTPS),
    /// and note each byte the source gives, to tell a stalled source while loading.
    private func sourceSetup(_ element: Element) {
        // Every HTTP source gets the CAs (an http URL may redirect to https); a bad CA file fails an https one.
        if let problem = TLSTrust.apply(to: element), case .uri(let uri, _) = spec, uri.lowercased().hasPrefix("https:") {
            lock.lock(); broken = true; errorReported = true; lock.unlock()
            onEvent(self, .failed(problem))
            return
        }
        guard let pad = element.staticPad("src") else { return }
        lock.lock(); watchesSource = true; lastSourceData = Date(); lock.unlock()
        Probes.onData(pad) { [weak self] in
            guard let self else { return }
            self.lock.lock(); self.lastSourceData = Date(); self.lock.unlock()
        }
        Probes.onEndOfStream(pad) { [weak self] in
            guard let self else { return }
            self.lock.lock(); self.sourceEnded = true; self.lock.unlock()
        }
    }

    /// Seconds the source element has given nothing, while it is watched and has not ended.
    private var sourceSilence: TimeInterval? {
        lock.lock(); defer { lock.unlock() }
        guard watchesSource, !sourceEnded else { return nil }
        return Date().timeIntervalSince(lastSourceData)
    }

    /// Opening a FIFO for reading waits for a writer, for ever: the pipeline would
    /// hang in its start. A writer is waited for here, `stallSeconds` at most; the
    /// FIFO stays open on our side until the pipeline has it open too (so what a
    /// quick writer wrote is not lost). Returns a problem, or nil to go on.
    private func waitForWriter(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFIFO else { return nil }
        let fd = open(path, O_RDONLY | O_NONBLOCK)
        guard fd >= 0 else { return "cannot read the FIFO" }
        lock.lock(); fifo = fd; lock.unlock()
        let began = Date()
        while Date().timeIntervalSince(began) < DecodeSession.stallSeconds {
            if isClosed { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let n = poll(&p, 1, 250)
            if n > 0, p.revents & Int16(POLLIN) != 0 { return nil }
            // A writer came and left without a word: wait for the next one.
            if n > 0 { usleep(250_000) }
        }
        return "\(DecodeSession.stalledMessage): nothing writes to the FIFO"
    }

    private func closeFIFO() {
        lock.lock(); let fd = fifo; fifo = -1; lock.unlock()
        if fd >= 0 { Foundation.close(fd) }
    }

    /// The consumer gives up on a source that stalled: what is queued is all there is.
    func abandon() {
        lock.lock(); broken = true; lock.unlock()
    }

    /// The appsink reports EOS only once everything was pulled; the next item must
    /// be prepared earlier: when the end of the audio enters its branch.
    private func watchEOS(_ pad: Pad) {
        Probes.onEndOfStream(pad) { [weak self] in self?.decodedAll() }
    }

    // MARK: running

    /// Starts decoding on a thread of its own: preroll, position and rate, play.
    func start() {
        bus.start(name: "decode") { [weak self] message in self?.handle(message) }
        let thread = Thread { [weak self] in self?.load() }
        thread.name = "load"
        thread.start()
    }

    private func load() {
        do { try spec.checkReadable(source) } catch { onEvent(self, .failed(MediaPubError.reason(of: error))); return }
        defer { closeFIFO() }
        if case .none = memory, let path = spec.localPath, let problem = waitForWriter(path) {
            onEvent(self, .failed(problem))
            return
        }
        if isClosed { return }  // not while the pipeline would open a FIFO nobody writes to
        switch memory {
        case .none:
            if case .uri(let uri, _) = spec, HLSPlaylist.isPlaylist(uri), let playlist = try? HLSPlaylist.fetch(uri, timeout: 5) {
                // Read once more beside hlsdemux: whether it is live, where its segments lie.
                lock.lock(); hlsPlaylist = playlist; lock.unlock()
                if playlist.isLive { watchLive(playlist) }
                if !isClosed, let (text, startMs) = playlist.trimmed(fromMs: mediaStartMs),
                   let dec = pipeline.element(named: "dec") {
                    // Read from the segment that holds the start: the ones before it are never fetched.
                    let file = FileManager.default.temporaryDirectory.appendingPathComponent("mediapub-\(UUID().uuidString).m3u8")
                    if (try? text.write(to: file, atomically: true, encoding: .utf8)) != nil {
                        // Owned by the session from here: `close` removes it (or it goes now, if closed meanwhile).
                        lock.lock()
                        let late = closed
                        if !late { trimmedPlaylist = file; seekOffsetMs = startMs }
                        lock.unlock()
                        if late { try? FileManager.default.removeItem(at: file) } else { dec.set("uri", string: file.absoluteString) }
                    }
                }
            }
        case .data(let data): serveFromMemory(data)
        case .load:
            do {
                let data: Data
                if let path = spec.localPath {
                    guard let bytes = FileManager.default.contents(atPath: path) else {
                        onEvent(self, .failed("cannot read the file"))
                        return
                    }
                    data = bytes
                } else if case .uri(let uri, _) = spec, HLSPlaylist.isPlaylist(uri) {
                    // The whole presentation, fetched segment by segment.
                    data = try HLSPlaylist.fetchWhole(uri) { number, count, reason in
                        onEvent(self, .warning("segment \(number) of \(SecretMask.mask(url: uri)) could not be fetched (\(reason)): skipped"))
                    }
                } else if case .uri(let uri, _) = spec {
                    data = try RemoteFetch().get(uri)
                } else { data = Data() }
                if isClosed { return }
                serveFromMemory(data)
            } catch {
                onEvent(self, .failed(MediaPubError.reason(of: error)))
                return
            }
        }
        guard (try? pipeline.setState(.paused)) != nil else {
            return // the bus reports the error
        }
        lock.lock(); lastSourceData = Date(); lock.unlock()
        // Prerolled within 30 s, unless the source gives nothing for `stallSeconds` before.
        let began = Date()
        var result: StateChange? = .async
        while !isClosed, Date().timeIntervalSince(began) < 30 {
            result = try? pipeline.waitForState(timeout: ClockTime(seconds: 0.5))
            if result != .async { break }
            if let silence = sourceSilence, silence >= DecodeSession.stallSeconds {
                lock.lock(); broken = true; lock.unlock()
                onEvent(self, .failed(DecodeSession.stalledMessage))
                return
            }
        }
        if isClosed { return }
        switch result {
        case nil: return
        case .async?:
            onEvent(self, .failed("nothing to decode within 30 s (server not answering, or the stream is empty)")); return
        default: break
        }
        let seekTo = startAt - Double(offsetMs) / 1000
        if result != .noPreroll, seekTo > 0 || speed != 1 {
            pipeline.seek(to: ClockTime(seconds: seekTo), rate: speed)
        }
        _ = try? pipeline.setState(.playing)
        lock.lock()
        let nothing = audioSink == nil && videoSink == nil
        lock.unlock()
        if nothing { onEvent(self, .failed("no audio or video stream")) } else {
            lock.lock(); ready = true; lock.unlock()
            onEvent(self, .ready)
        }
    }

    private func serveFromMemory(_ data: Data) {
        guard !data.isEmpty else { onEvent(self, .failed("empty resource")); return }
        pipeline.appSrc(named: "memsrc")?.serve(data)
    }

    /// Media time (ms) where the pipeline's own time 0 lies (a trimmed playlist's first segment).
    private var seekOffsetMs = 0
    private var offsetMs: Int { lock.lock(); defer { lock.unlock() }; return seekOffsetMs }

    private var isClosed: Bool { lock.lock(); defer { lock.unlock() }; return closed }

    private func handle(_ message: BusMessage) {
        switch message {
        case .endOfStream: decodedAll()
        case .error(let error):
            let text = error.message
            // Broken from now on: what is queued plays out, nobody waits for more.
            lock.lock()
            broken = true
            if firstError == nil { firstError = text }
            let first = !errorReported
            errorReported = true
            lock.unlock()
            // The first error says what broke; the others are its consequences.
            guard first else { break }
            if let segment = segmentFailure(in: text) {
                // hlsdemux quotes souphttpsrc's debug text (source file, element path, URL): said in our words.
                onEvent(self, .failed(segment.description))
            } else if case .uri(let uri, _) = spec, SourceDiagnosis.isVague(text),
               ["http", "https"].contains(PathResolution.sourceScheme(of: uri) ?? "") {
                // GStreamer's words say little ("Internal data stream error", "Found"):
                // ask the server once more with libcurl, off the bus thread, and say what it is.
                DispatchQueue.global().async { [self] in
                    onEvent(self, .failed(SourceDiagnosis.diagnose(uri) ?? text))
                }
            } else {
                onEvent(self, .failed(text))
            }
        case .tags(let title, let artist, let album):
            guard title != nil || artist != nil || album != nil else { break }
            lock.lock()
            tagsSeen = NowPlaying(title: title ?? tagsSeen.title, artist: artist ?? tagsSeen.artist, album: album ?? tagsSeen.album)
            let tags = tagsSeen
            lock.unlock()
            onEvent(self, .tags(tags))
        default: break
        }
    }

    func close() {
        lock.lock()
        let was = closed
        closed = true
        lock.unlock()
        guard !was else { return }
        watchStop.signal()
        lock.lock(); let file = trimmedPlaylist; trimmedPlaylist = nil; lock.unlock()
        if let file { try? FileManager.default.removeItem(at: file) }
        pipeline.stop()
    }

    /// A live source has none (hlsdemux answers with its window's length).
    var duration: ClockTime? { isLive ? nil : pipeline.duration }
    var durationMs: Int? { duration.map { $0.milliseconds + offsetMs } }

    /// The first error the pipeline posted, if any.
    var failure: String? { lock.lock(); defer { lock.unlock() }; return firstError }

    /// A live HLS playlist (no `#EXT-X-ENDLIST`), as read at load.
    var isLive: Bool { lock.lock(); defer { lock.unlock() }; return hlsPlaylist?.isLive == true }

    /// An HLS segment that could not be fetched, as an error's text names it.
    struct SegmentFailure {
        /// 1-based, of `count`.
        var number: Int
        var count: Int
        /// `404 Not Found`, or nil when the text gives no HTTP status.
        var status: String?
        /// Media time (ms) where the segment ends: where playing goes on without it.
        var resumeMs: Int
        var isLive: Bool

        var description: String {
            "segment \(number) of \(count) could not be fetched" + (status.map { " (\($0))" } ?? "")
        }
    }

    /// The segment an error of this session's HLS playlist names, if it names one.
    func segmentFailure(in message: String) -> SegmentFailure? {
        lock.lock(); let playlist = hlsPlaylist; lock.unlock()
        guard let playlist, let index = playlist.segmentIndex(namedIn: message) else { return nil }
        return SegmentFailure(number: index + 1, count: playlist.segments.count, status: HLSPlaylist.httpStatus(in: message),
                              resumeMs: playlist.segments[index].endMs, isLive: playlist.isLive)
    }

    /// Re-reads a live playlist every target duration: an origin that starts over
    /// (a restarted encoder: its media sequence back at the start) is reported, so
    /// the player joins the new stream at once rather than wait out hlsdemux, which
    /// sits on the old sequence numbers (and replays the old window when it gives up).
    private func watchLive(_ first: HLSPlaylist) {
        let interval = min(10, max(0.5, first.targetDuration > 0 ? first.targetDuration : 2))
        let url = first.url
        let stop = watchStop
        let thread = Thread { [weak self] in
            var highest = first.mediaSequence
            while stop.wait(timeout: .now() + interval) == .timedOut {
                guard let playlist = try? HLSPlaylist.fetch(url, timeout: max(2, interval * 2)) else { continue }
                if playlist.mediaSequence < highest, !playlist.segments.isEmpty {
                    guard let self else { return }
                    self.onEvent(self, .restarted("media sequence \(highest) -> \(playlist.mediaSequence)"))
                    return
                }
                highest = max(highest, playlist.mediaSequence)
            }
        }
        thread.name = "hls-watch"
        thread.start()
    }

    /// Prerolled and playing: its streams are known.
    var isReady: Bool { lock.lock(); defer { lock.unlock() }; return ready }

    /// Decoding reached the end (the next item may be prepared).
    var hasDecodedAll: Bool { lock.lock(); defer { lock.unlock() }; return decodedAllSent }

    /// Title, artist and album seen in the stream so far.
    var currentTags: NowPlaying { lock.lock(); defer { lock.unlock() }; return tagsSeen }

    /// Called once, when decoding reached the end (from the audio EOS probe or the bus).
    private func decodedAll() {
        lock.lock()
        let first = !decodedAllSent
        decodedAllSent = true
        lock.unlock()
        if first { onEvent(self, .decodedAll) }
    }

    /// Media position (ms) of what has been consumed.
    var positionMs: Int { mediaStartMs + Int(Double(playhead.nanoseconds) / 1e6 * rate) }

    private var isBroken: Bool { lock.lock(); defer { lock.unlock() }; return broken }

    /// A flushing seek (and new rate); the consumer's state starts over at the target.
    func seek(toMs ms: Int, rate: Double) -> Bool {
        // A trimmed playlist begins at `seekOffsetMs`: nothing before it can be reached.
        let offset = offsetMs
        let ms = max(ms, offset)
        guard pipeline.seek(to: ClockTime(milliseconds: ms - offset), rate: rate) else { return false }
        lock.lock(); decodedAllSent = false; lock.unlock()
        pending = nil
        pendingSamples = 0
        pendingOffset = 0
        nextVideo = nil
        playhead = .zero
        lock.lock(); audioDone = false; videoDone = false; lock.unlock()
        mediaStartMs = max(0, ms)
        self.rate = rate
        return true
    }

    /// Changes the voice-changer pitch in place; false when this session has no pitch stage.
    func setPitch(_ semitones: Double) -> Bool {
        guard let element = pipeline.element(named: "pitch") else { return false }
        element.set("pitch", double: DecodeSession.pitchRatio(semitones))
        return true
    }

    var hasAudio: Bool { lock.lock(); defer { lock.unlock() }; return audioSink != nil }

    /// The audio stream ended and every sample of it was consumed.
    var audioExhausted: Bool {
        lock.lock(); defer { lock.unlock() }
        return audioDone && pendingOffset >= pendingSamples
    }

    /// Nothing more will come out: every stream reached its end and was consumed.
    var isDrained: Bool {
        lock.lock(); defer { lock.unlock() }
        let audioOver = audioSink == nil || (audioDone && pendingOffset >= pendingSamples)
        let videoOver = videoSink == nil || videoDone
        return ((audioSink != nil || videoSink != nil) && audioOver && videoOver) || (broken && audioSink == nil && videoSink == nil)
    }

    // MARK: consuming (capture thread)

    /// Copies up to `frames` interleaved frames into `out`, waiting up to `wait`
    /// seconds for each decoded buffer. Returns how many frames were written.
    func readAudio(frames: Int, into out: UnsafeMutablePointer<Float>, wait: Double) -> Int {
        lock.lock(); let sink = audioSink; lock.unlock()
        guard let sink else { return 0 }
        let channels = format.channels
        var filled = 0
        while filled < frames {
            if pendingOffset >= pendingSamples {
                if audioDone { break }
                let broken = isBroken
                guard let sample = sink.tryPull(timeout: broken ? 0 : wait) else {
                    if sink.isEOS || broken { lock.lock(); audioDone = true; lock.unlock() }
                    break
                }
                guard let buffer = sample.buffer else { continue }
                pendingTime = sample.runningTime ?? playhead
                pendingOffset = 0
                pending = buffer
                pendingSamples = buffer.size / MemoryLayout<Float>.size
                continue
            }
            let take = min(frames - filled, (pendingSamples - pendingOffset) / channels)
            if take == 0 { pendingOffset = pendingSamples; continue }
            let copied = try? pending?.map { bytes in
                let src = bytes.bindMemory(to: Float.self)
                guard let base = src.baseAddress, src.count >= pendingOffset + take * channels else { return false }
                (out + filled * channels).update(from: base + pendingOffset, count: take * channels)
                return true
            }
            // A buffer that cannot be read is passed over whole.
            guard copied == true else { pendingOffset = pendingSamples; continue }
            pendingOffset += take * channels
            filled += take
            playhead = pendingTime + ClockTime.ofSamples(UInt64(pendingOffset / channels), rate: format.sampleRate)
        }
        return filled
    }

    /// Moves the playhead of a session that has no audio.
    func advance(by time: ClockTime) { playhead += time }

    /// The latest frame due `lag` nanoseconds before the playhead (the first
    /// frame at the latest). Waits up to `wait` seconds for a frame that may be
    /// due but is not decoded yet.
    func videoFrame(lag: ClockTime, wait: Double) -> Buffer? {
        lock.lock(); let sink = videoSink; lock.unlock()
        guard let sink else { return nil }
        while true {
            if nextVideo == nil {
                if videoDone { break }
                let broken = isBroken
                guard let sample = sink.tryPull(timeout: broken ? 0 : wait) else {
                    if sink.isEOS || broken { lock.lock(); videoDone = true; lock.unlock() }
                    break
                }
                nextVideo = sample
            }
            guard let sample = nextVideo else { break }
            if let time = sample.runningTime, time + lag > playhead, lastVideo != nil { break }
            lastVideo = sample.buffer
            nextVideo = nil
        }
        return lastVideo
    }

    /// Once the audio has run out: whether the picture ends with it (nothing
    /// beyond `slack` past the playhead). Frames within the slack are passed
    /// over; a picture that goes on longer plays out on its own.
    func videoEndsWithAudio(slack: ClockTime, wait: Double) -> Bool {
        lock.lock(); let sink = videoSink; lock.unlock()
        guard let sink else { return true }
        while true {
            if nextVideo == nil {
                if videoDone { return true }
                let broken = isBroken
                guard let sample = sink.tryPull(timeout: broken ? 0 : wait) else {
                    guard sink.isEOS || broken else { return false }
                    lock.lock(); videoDone = true; lock.unlock()
                    return true
                }
                nextVideo = sample
            }
            guard let time = nextVideo?.runningTime else { nextVideo = nil; continue }
            if time > playhead + slack { return false }
            lastVideo = nextVideo?.buffer
            nextVideo = nil
        }
    }
}

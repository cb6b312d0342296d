import Foundation

/// What the consumer (the capture thread, through the player) has taken from a
/// session: the decoded buffer being read in place, the next picture, the playhead.
struct Reading {
    /// Media time (ms) at playhead 0: the start position, or the last seek target.
    var mediaStartMs: Int
    var rate: Double
    var lastVideo: Buffer?
    /// The running time of `lastVideo` (a live feed places its pictures by it, `LiveFeedBuffer`).
    var lastVideoTime: ClockTime?
    /// Pictures passed over, never the one shown for a tick (a live feed counts them dropped).
    var passedOver = 0
    var pending: Buffer?
    var pendingSamples = 0
    var pendingOffset = 0
    var pendingTime = ClockTime.zero
    var nextVideo: Sample?
    var audioDone = false
    var videoDone = false
    /// Running time consumed so far on this session's own timeline.
    var playhead = ClockTime.zero
    /// Counts the seeks: a sample pulled across one (from before its flush) is not taken.
    var seeks = 0
    /// Samples read as silence because they were no sound (`BrokenSamples`), the playhead
    /// when the first came, and whether the item's warning was given.
    var brokenSamples = 0
    var brokenSince: ClockTime?
    var brokenReported = false
    /// A seek asked for off the consumer's thread is not made yet (`holdForSeek`): nothing is read meanwhile.
    var seekPending = false

    init(mediaStartMs: Int, rate: Double, lastVideo: Buffer? = nil) {
        self.mediaStartMs = mediaStartMs
        self.rate = rate
        self.lastVideo = lastVideo
    }

    var positionMs: Int { mediaStartMs + Int(Double(playhead.nanoseconds) / 1e6 * rate) }
    var audioExhausted: Bool { !seekPending && audioDone && pendingOffset >= pendingSamples }
}

/// Consuming, on the capture thread: each call locks the session's state only
/// between pulls, never while an appsink is waited for; what a pull gave is taken
/// only if no seek came meanwhile.
extension DecodeSession {
    /// Until the seek asked for next (`seek`, made on another thread) is made, nothing is read
    /// and the item is not over: what was queued before it is never heard.
    func holdForSeek() { state.withLock { $0.reading.seekPending = true } }

    /// Media position (ms) of what has been consumed.
    var positionMs: Int { state.withLock { $0.reading.positionMs } }
    var playhead: ClockTime { state.withLock { $0.reading.playhead } }
    var mediaStartMs: Int { state.withLock { $0.reading.mediaStartMs } }
    /// The rate it plays at (its speed, or the rate of its last seek).
    var rate: Double { state.withLock { $0.reading.rate } }
    var lastVideo: Buffer? { state.withLock { $0.reading.lastVideo } }
    var hasAudio: Bool { state.withLock { $0.audioSink != nil } }

    /// The audio stream ended and every sample of it was consumed.
    var audioExhausted: Bool { state.withLock { $0.reading.audioExhausted } }

    /// Nothing more will come out: every stream reached its end and was consumed.
    var isDrained: Bool {
        state.withLock { s in
            let audioOver = s.audioSink == nil || s.reading.audioExhausted
            let videoOver = s.videoSink == nil || s.reading.videoDone
            return ((s.audioSink != nil || s.videoSink != nil) && audioOver && videoOver)
                || (s.broken && s.audioSink == nil && s.videoSink == nil)
        }
    }

    /// Copies up to `frames` interleaved frames into `out`, waiting up to `wait`
    /// seconds for each decoded buffer. Returns how many frames were written.
    func readAudio(frames: Int, into out: UnsafeMutablePointer<Float>, wait: Double) -> Int {
        // A seek asked for on another thread (`holdForSeek`): waited for as a buffer would be.
        if wait > 0 { state.wait(until: MonotonicInstant.now.addingTimeInterval(wait)) { $0.reading.seekPending } }
        guard let sink = state.withLock({ $0.reading.seekPending ? nil : $0.audioSink }) else { return 0 }
        let channels = format.channels
        var filled = 0
        while filled < frames {
            let (needsBuffer, done, broken) = state.withLock { s in
                (s.reading.pendingOffset >= s.reading.pendingSamples, s.reading.audioDone, s.broken)
            }
            if needsBuffer {
                if done { break }
                guard pullAudio(sink, wait: broken ? 0 : wait) else { break }
                continue
            }
            let (buffer, offset, samples) = state.withLock { ($0.reading.pending, $0.reading.pendingOffset, $0.reading.pendingSamples) }
            let take = min(frames - filled, (samples - offset) / channels)
            let copied = take > 0 && (try? buffer?.map { bytes in
                let src = bytes.bindMemory(to: Float.self)
                guard let base = src.baseAddress, src.count >= offset + take * channels else { return false }
                (out + filled * channels).update(from: base + offset, count: take * channels)
                return true
            }) == true
            let silenced = copied ? BrokenSamples.silence(out + filled * channels, count: take * channels) : 0
            state.withLock { s in
                // A remainder short of a frame, or a buffer that cannot be read, is passed over whole.
                guard copied else { s.reading.pendingOffset = s.reading.pendingSamples; return }
                if silenced > 0 {
                    if s.reading.brokenSince == nil { s.reading.brokenSince = s.reading.playhead }
                    s.reading.brokenSamples += silenced
                }
                s.reading.pendingOffset += take * channels
                s.reading.playhead = s.reading.pendingTime
                    + ClockTime.ofSamples(UInt64(s.reading.pendingOffset / channels), rate: format.sampleRate)
            }
            if copied { filled += take }
        }
        return filled
    }

    /// The next decoded audio buffer as the one being read, waiting up to `wait`
    /// seconds; false when there is none (yet), `audioDone` set when the stream is over.
    private func pullAudio(_ sink: AppSink, wait: Double) -> Bool {
        let seeks = state.withLock { $0.reading.seeks }
        guard let sample = sink.tryPull(timeout: wait) else {
            if sink.isEOS || state.withLock({ $0.broken }) { state.withLock { $0.reading.audioDone = true } }
            return false
        }
        guard let buffer = sample.buffer else { return true }  // nothing to read: the next one
        let time = sample.runningTime
        return state.withLock { s in
            guard s.reading.seeks == seeks else { return false }   // a seek came meanwhile: from before it
            s.reading.pendingTime = time ?? s.reading.playhead
            s.reading.pendingOffset = 0
            s.reading.pending = buffer
            s.reading.pendingSamples = buffer.size / MemoryLayout<Float>.size
            return true
        }
    }

    /// Takes the first picture and the first sound in hand, waiting up to `wait`
    /// seconds for each: done once the session plays, before it is reported ready,
    /// because a realtime tick waits for nothing. A prerolled appsink hands its buffer
    /// over only once its streaming thread has run again after PLAYING, and a tick
    /// before that found nothing: the slate for a frame, silence for a tick.
    func takeFirst(wait: Double) {
        let (audio, video) = state.withLock { ($0.audioSink, $0.videoSink) }
        if let video { _ = nextPicture(video, wait: wait) }
        guard let audio else { return }
        // A sample with no samples in it is passed over (a few at most: this is the start).
        for _ in 0..<3 where state.withLock({ $0.reading.pendingSamples == 0 && !$0.reading.audioDone }) {
            guard pullAudio(audio, wait: wait) else { break }
        }
    }

    /// Once for the item: how many of its samples were read as silence (`BrokenSamples`),
    /// when `BrokenSamples.reportAfter` of sound has played since the first, or at its end;
    /// nil before, after, and for an item without any.
    func brokenSamplesReport() -> (count: Int, atEnd: Bool)? {
        state.withLock { s in
            let r = s.reading
            guard !r.brokenReported, let since = r.brokenSince else { return nil }
            let atEnd = r.audioExhausted
            guard atEnd || r.playhead >= since + BrokenSamples.reportAfter else { return nil }
            s.reading.brokenReported = true
            return (r.brokenSamples, atEnd)
        }
    }

    /// Moves the playhead of a session that has no audio.
    func advance(by time: ClockTime) { state.withLock { $0.reading.playhead += time } }

    /// The next sample of `sink` for the picture, pulled when none waits: nil when
    /// there is none (yet); `videoDone` set when the stream is over.
    private func nextPicture(_ sink: AppSink, wait: Double) -> Sample? {
        let (waiting, done, broken, seeks) = state.withLock { ($0.reading.nextVideo, $0.reading.videoDone, $0.broken, $0.reading.seeks) }
        if let waiting { return waiting }
        if done { return nil }
        guard let sample = sink.tryPull(timeout: broken ? 0 : wait) else {
            if sink.isEOS || broken { state.withLock { $0.reading.videoDone = true } }
            return nil
        }
        return state.withLock { s in
            guard s.reading.seeks == seeks else { return nil }   // a seek came meanwhile: from before it
            s.reading.nextVideo = sample
            return sample
        }
    }

    /// Takes the waiting sample as the picture shown.
    private func show(_ sample: Sample) {
        let buffer = sample.buffer
        state.withLock { $0.reading.lastVideo = buffer; $0.reading.lastVideoTime = sample.runningTime; $0.reading.nextVideo = nil }
    }

    /// The latest frame due `lag` before the playhead (the first frame at the latest).
    /// Waits up to `wait` seconds for a frame that may be due but is not decoded yet.
    /// A stream without sound (an SRT or RTMP feed of pictures only) has no clock of its own to
    /// pace them by: its running time counts from when it began listening, long before the
    /// sender came, so each picture is taken as it comes, the newest decoded.
    func videoFrame(lag: ClockTime, wait: Double) -> Buffer? {
        guard let (sink, asItComes) = state.withLock({ s in s.videoSink.map { ($0, spec.isStream && s.audioSink == nil) } }) else { return nil }
        var taken = 0
        while let sample = nextPicture(sink, wait: taken > 0 && asItComes ? 0 : wait) {
            let (playhead, shown) = state.withLock { ($0.reading.playhead, $0.reading.lastVideo) }
            if !asItComes, let time = sample.runningTime, time + lag > playhead, shown != nil { break }
            show(sample)
            taken += 1
        }
        if taken > 1 { state.withLock { $0.reading.passedOver &+= taken - 1 } }
        return lastVideo
    }

    /// Once the audio has run out: whether the picture ends with it (nothing
    /// beyond `slack` past the playhead). Frames within the slack are passed
    /// over; a picture that goes on longer plays out on its own.
    func videoEndsWithAudio(slack: ClockTime, wait: Double) -> Bool {
        guard let sink = state.withLock({ $0.videoSink }) else { return true }
        while true {
            guard let sample = nextPicture(sink, wait: wait) else { return state.withLock { $0.reading.videoDone } }
            guard let time = sample.runningTime else {
                state.withLock { $0.reading.nextVideo = nil }
                continue
            }
            if time > playhead + slack { return false }
            show(sample)
        }
    }
}

import Foundation
import Synchronization

/// One attempt of an output: its muxing pipeline (appsrc → parse → mux → sink),
/// its bus and the timeline its samples are placed on. `Output` makes one per
/// (re)connection and stops it before the next; one is never restarted.
final class OutputConnection: Sendable {
    /// One sample that goes out, told to the output before it is pushed.
    struct Delivery {
        let bytes: Int
        /// It fixed the connection's base (the first keyframe, or the first sound without pictures).
        let fixedBase: Bool
    }

    private let pipeline: Pipeline
    private let bus: Bus
    private let videoSrc: AppSrc?
    let audioSrc: AppSrc?
    private let timeline: Mutex<OutputTimeline<Sample>>
    /// Orders audio pushes: audio held until the first keyframe goes out before newer
    /// audio. Audio is placed and pushed holding it; pictures only until the base is fixed.
    /// Taken before `timeline` and before the output's state (in `accepted`), never after.
    private let audioPush = Mutex(())
    private let stopped = Mutex(false)
    private let pushed = Atomic<UInt64>(0)
    private let sinkErrored = Atomic<Bool>(false)
    /// The socket an AAC mount's fdsink writes to (IcecastLogin.swift): the connection's
    /// own, shut down as it stops, closed once its pipeline is down.
    private let socket: Int32?
    /// An SRT listener's caller signals (`watchCallers`), disconnected as it stops.
    private let callerSignals = Mutex<SignalHandler?>(nil)
    /// A recording that must not hold the encoder back (a paced run): the bytes it may
    /// have waiting for its disk before it is given up (nil: it holds the encoder back).
    let backlogLimit: UInt64?
    /// How long a stop may take before the pipeline is left to finish on its own (a
    /// filesink stuck in a write to a hung disk, a sink stuck in a peer).
    static let stopDeadline: TimeInterval = 5

    /// Builds the pipeline; a file is written at `location`, HLS segments are named for it;
    /// a file cut into `segment`s goes through splitmuxsink (see `muxer`). `paced`: the
    /// run goes at the clock's pace, so a recording's disk never holds the encoder back
    /// (as fast as possible, the disk's pace is the run's).
    init(target: OutputTarget, hasVideo: Bool, videoDelay: Int, location: String?, segment: TimeInterval? = nil,
         paced: Bool = false, socket: Int32? = nil) throws {
        self.socket = socket
        var parts: [String] = []
        let limits: String
        if target.isNetwork {
            limits = "max-bytes=16000000 block=false leaky-type=downstream"
            backlogLimit = nil
        } else if paced {
            limits = "max-bytes=\(Self.diskBacklog) block=false"
            backlogLimit = Self.diskBacklog
        } else {
            limits = "max-bytes=\(Self.diskBacklog) block=true"
            backlogLimit = nil
        }
        // Each stream's appsrc thread pushes into the muxer: an aggregator (mp4mux,
        // flvmux, mpegtsmux) takes from both on its own thread, splitmuxsink and hlssink2
        // queue inside, and matroskamux's collectpads muxes on whichever appsrc thread
        // completes a set. A queue between them would be one more thread and a second
        // of buffers more, for nothing.
        if hasVideo {
            parts.append("appsrc name=v format=time is-live=false \(limits) ! h264parse config-interval=-1 ! \(target.muxPad(video: true, split: segment != nil))")
        }
        // Sound in the output's codec; an Icecast mount or a bare stream file is linked to its sink itself.
        let audio = "appsrc name=a format=time is-live=false \(limits) ! \(target.audioCodec.parser) ! "
        if let direct = target.directAudioSink(location: location, socket: socket) {
            parts.append(audio + direct)
        } else {
            parts.append(audio + target.muxPad(video: false, split: segment != nil))
            parts.append(target.muxAndSink(location: location, segment: segment))
        }
        pipeline = try Pipeline(description: parts.joined(separator: " "))
        for secret in target.secretProperties {
            guard let element = pipeline.element(named: secret.element) else {
                pipeline.stop()
                throw MediaPubError.pipeline("output: no element \(secret.element) for its \(secret.property)")
            }
            element.set(secret.property, string: secret.value)
        }
        bus = pipeline.bus
        videoSrc = pipeline.appSrc(named: "v")
        audioSrc = pipeline.appSrc(named: "a")
        timeline = Mutex(OutputTimeline(hasVideo: hasVideo, videoDelay: videoDelay,
                                        delaysByCompositionOffset: target.delaysByCompositionOffset))
    }

    /// What a recording may have waiting for its disk (either stream).
    static let diskBacklog: UInt64 = 48_000_000

    /// Starts the pipeline and then watches its bus (what was posted meanwhile waits
    /// there). Returns why it cannot start, stopped again, or nil once it runs.
    func start(onMessage: @escaping @Sendable (BusMessage) -> Void) -> String? {
        if (try? pipeline.setState(.playing)) == nil {
            // The element that refused says why, on the bus (not watched yet, so still there).
            let why = bus.popError() ?? "cannot start"
            stop()
            return why
        }
        bus.start(name: "output", onPostingThread: { [weak self] message in
            if case .error(let error) = message, error.source == "sink" { self?.sinkErrored.store(true, ordering: .relaxed) }
        }, handler: onMessage)
        return nil
    }

    /// The sink has posted an error (told on its own thread, as it posts it): rtmp2sink's
    /// connect failed, or the connection it had was lost. Its connect is over either way.
    var sinkFailed: Bool { sinkErrored.load(ordering: .relaxed) }

    /// Bytes pushed into either stream, and those of them taken downstream (a
    /// recording: by its disk's side); what waits is the difference.
    /// Both streams' threads push at once: each figure is read once and the difference
    /// saturates (a subtraction of two reads trapped when a push came between them).
    var flow: (pushed: UInt64, taken: UInt64) {
        let pushed = self.pushed.load(ordering: .relaxed)
        let waiting = waitingBytes
        return (pushed, pushed > waiting ? pushed - waiting : 0)
    }

    /// What both streams have waiting to be taken downstream.
    var waitingBytes: UInt64 {
        let (sum, overflow) = (videoSrc?.queuedBytes ?? 0).addingReportingOverflow(audioSrc?.queuedBytes ?? 0)
        return overflow ? .max : sum
    }

    private func push(_ sample: Sample, size: Int, to src: AppSrc) {
        pushed.wrappingAdd(UInt64(max(0, size)), ordering: .relaxed)
        src.push(sample: sample)
    }

    /// The muxer (splitmuxsink for a file cut into segments: its files are named by its `format-location`).
    var muxer: Element? { pipeline.element(named: "mux") }

    /// The sink (rtmp2sink, srtsink, filesink…), for its statistics.
    var sink: Element? { pipeline.element(named: "sink") }

    /// An srtsink listening for callers: `body(true)` when one connects, `body(false)`
    /// when one goes, until the connection stops. Before it starts, so that no caller comes unseen.
    func watchCallers(_ body: @escaping @Sendable (Bool) -> Void) {
        guard let sink else { return }
        callerSignals.withLock { $0 = Signals.onSRTCaller(sink, body) }
    }

    /// Encoder streaming thread: places the sample on this connection's timeline and pushes
    /// it, moved back by its shift. `accepted` is called for each sample that goes out,
    /// before it is pushed; false stops it. For audio (and the keyframe that fixes the
    /// base) that call is made holding `audioPush`: it only records, and calls nobody
    /// (what it records is told once `offer` returns). Never blocks on a network peer, nor
    /// (paced) on a disk: a recording whose disk has taken nothing while `backlogLimit`
    /// waits gets `overflowed` instead (its output gives it up).
    func offer(_ sample: Sample, isVideo: Bool, accepted: (Delivery) -> Bool, overflowed: () -> Void = {}) {
        guard let buffer = sample.buffer, let pts = buffer.pts?.ns, let runningTime = sample.runningTime?.ns,
              let stamp = OutputTimeline<Sample>.Stamp(pts: pts, runningTime: runningTime, dts: buffer.dts?.ns),
              let src = isVideo ? videoSrc : audioSrc else { return }
        if let backlogLimit, waitingBytes >= backlogLimit {
            overflowed()
            return
        }
        let place = {
            self.timeline.withLock { $0.place(sample, at: stamp, video: isVideo, keyframe: buffer.isKeyframe) }
        }
        // Once the base is fixed it stays fixed: pictures then go out without `audioPush`.
        if isVideo, timeline.withLock({ $0.isAnchored }) {
            guard case .push(let shift) = place(), accepted(Delivery(bytes: buffer.size, fixedBase: false)) else { return }
            push(Sample(buffer: buffer.shifted(pts: shift.pts, dts: shift.dts), caps: sample.caps), size: buffer.size, to: src)
            return
        }
        audioPush.withLock { _ in
            switch place() {
            case .drop, .hold:
                return
            case .push(let shift):
                guard accepted(Delivery(bytes: buffer.size, fixedBase: false)) else { return }
                push(Sample(buffer: buffer.shifted(pts: shift.pts, dts: shift.dts), caps: sample.caps), size: buffer.size, to: src)
            case .first(let shift, let released):
                guard accepted(Delivery(bytes: buffer.size, fixedBase: true)) else { return }
                push(Sample(buffer: buffer.shifted(pts: shift.pts, dts: shift.dts), caps: sample.caps), size: buffer.size, to: src)
                for held in released {
                    guard let b = held.item.buffer, let audioSrc else { continue }
                    push(Sample(buffer: b.shifted(pts: held.shift.pts, dts: held.shift.dts), caps: held.item.caps), size: b.size, to: audioSrc)
                }
            }
        }
    }

    /// Ends both streams: the muxer finishes the file or stream and posts EOS.
    func endOfStream() {
        videoSrc?.endOfStream()
        audioSrc?.endOfStream()
    }

    /// Stops watching the bus and takes the pipeline down (once; never from its bus
    /// handler). Bounded: a pipeline that is not down within `stopDeadline` (a sink
    /// stuck in a write) is left to finish on its own thread; false then.
    @discardableResult
    func stop() -> Bool {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return true }
        // What srtsink says of its callers while it closes is about a connection that is over.
        callerSignals.withLock { handler in defer { handler = nil }; return handler }?.disconnect()
        let done = DispatchSemaphore(value: 0)
        let pipeline = self.pipeline
        let socket = self.socket
        let sink = self.sink
        if let socket { _ = shutdown(socket, Int32(SHUT_RDWR)) }   // a write stuck in a server that reads nothing returns
        Thread.detachNewThread {
            pipeline.stop()   // the bus watch too
            if let sink { LibraryLog.forget(sink) }   // its task is over: a critical kept for it, or its thread, goes
            if let socket { close(socket) }   // only now: nothing writes to it any more
            done.signal()
        }
        return done.wait(timeout: .now() + Self.stopDeadline) == .success
    }
}

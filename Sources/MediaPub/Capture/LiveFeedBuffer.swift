import Foundation

/// A live feed's sound and pictures between its decoder and the output (docs/design.md,
/// A live feed): a jitter buffer, because the sender's clock is not the output's and a
/// stream comes in bursts (an MPEG-TS sender's sound comes some 300 ms at a time).
/// A pure value the timeline thread keeps.
///
/// `target` is 200 ms, or more for a feed that comes in larger bursts: its largest burst
/// and 150 ms (at most 600 ms). Off air it keeps only the newest `target` of sound, so
/// the feed goes on air with that much ahead of it. On air, the fill falls between bursts
/// to its low-water mark (its least over the last second or two), which is held at the
/// 150 ms margin: while it is off by more than `deadband`, the sound is read a little
/// faster or slower (linear interpolation, in proportion, at most `maxCorrection`, 2 %),
/// so the feed's delay stays bounded however its clock drifts, and a feed on time is
/// played untouched. Each picture is put at the sound frame its own timestamp says, and
/// the picture on air is the one due with the sound played: pictures are dropped or
/// repeated to follow the sound. It holds at most `capacity`: beyond, the oldest is
/// dropped (back to `target`); nothing waits. Run dry, it gives silence and holds its
/// last picture until it is filled to `target` again.
struct LiveFeedBuffer {
    static let targetSeconds = 0.2
    static let marginSeconds = 0.15
    static let maxTargetSeconds = 0.6
    /// A burst is forgotten over minutes (a feed that came in large bursts and no longer does).
    static let burstMemorySeconds = 300.0
    /// The most it holds beyond `target`.
    static let slackSeconds = 1.0
    static let deadband = 0.05
    static let maxCorrection = 0.02
    /// The speed correction per second of error beyond the deadband: 25 ms is read 1 % faster (or slower).
    static let gain = 0.4
    /// Seconds the fill is averaged over.
    static let smoothing = 2.0
    /// Pictures held at most (the oldest dropped beyond).
    static let maxPictures = 64

    let channels: Int
    let sampleRate: Int
    private let minTarget: Int
    private let margin: Int
    private let maxTarget: Int
    private let slack: Int
    private let alpha: Double
    private let burstDecay: Double
    /// The most frames one tick took in (decaying).
    private var burst = 0.0
    /// The least fill of the current second on air, of the second before, and ticks into the current one.
    private var lowNow = 0, lowBefore = 0, ticksNow = 0
    private let ticksPerWindow: Int

    /// Interleaved samples not played yet, the oldest first.
    private var sound: [Float] = []
    /// Frames ever put in (the newest frame's position is `written - 1`).
    private var written: UInt64 = 0
    /// Where the next frame is read, between `sound`'s first frame and its second.
    private var phase = 0.0
    /// Pictures not shown yet, each at the sound frame it is due with, in order.
    private var pictures: [(at: UInt64, buffer: Buffer)] = []
    private var lastPut: Buffer?
    /// The picture due now (held through a drop-out).
    private(set) var picture: Buffer?
    /// Playing: filled to `target` since it last ran dry.
    private(set) var primed = false
    /// The fill in frames, averaged over `smoothing` seconds on air.
    private(set) var averageFill = 0.0
    private(set) var framesDropped: UInt64 = 0
    private(set) var framesRepeated: UInt64 = 0

    init(channels: Int, sampleRate: Int, tickRate: Int) {
        self.channels = max(1, channels)
        self.sampleRate = max(1, sampleRate)
        let rate = Double(self.sampleRate)
        minTarget = Int(rate * LiveFeedBuffer.targetSeconds)
        margin = Int(rate * LiveFeedBuffer.marginSeconds)
        maxTarget = Int(rate * LiveFeedBuffer.maxTargetSeconds)
        slack = Int(rate * LiveFeedBuffer.slackSeconds)
        alpha = 1 / (LiveFeedBuffer.smoothing * Double(max(1, tickRate)))
        ticksPerWindow = max(1, tickRate)
        burstDecay = 1 - 1 / (LiveFeedBuffer.burstMemorySeconds * Double(max(1, tickRate)))
        sound.reserveCapacity((maxTarget + slack + self.sampleRate) * self.channels)
    }

    /// The fill kept on air, in frames.
    var target: Int { min(maxTarget, max(minTarget, Int(burst) + margin)) }
    /// The most it holds.
    var capacity: Int { target + slack }

    /// Once a tick: the frames it took in this tick (how large the feed's bursts are).
    mutating func took(_ frames: Int) {
        burst = max(Double(frames), burst * burstDecay)
    }

    /// Frames of sound held.
    var fill: Int { sound.count / channels }
    /// Enough to go on air with.
    var ready: Bool { fill >= target }
    /// The feed's delay through it, in seconds (averaged on air).
    var delay: Double { (primed ? averageFill : Double(fill)) / Double(sampleRate) }

    /// What the decoder gave: `frames` frames of sound and the picture shown with them,
    /// whose timestamp is `before` seconds before the end of that sound (nil: unknown).
    mutating func put(_ audio: UnsafePointer<Float>, frames: Int, picture new: Buffer?, before: Double?, onAir: Bool) {
        if frames > 0 {
            sound.append(contentsOf: UnsafeBufferPointer(start: audio, count: frames * channels))
            written += UInt64(frames)
        }
        if let new, new !== lastPut {
            lastPut = new
            // A timestamp more than a second from the sound's (a new sender, a jump, a wrap)
            // re-anchors the picture: due with the sound just put.
            let seconds = before.flatMap { $0 >= -0.1 && $0 <= 1 ? max(0, $0) : nil } ?? Double(frames) / 2 / Double(sampleRate)
            let back = UInt64(min(Double(written), seconds * Double(sampleRate)))
            let at = max(written - back, pictures.last?.at ?? 0)
            pictures.append((at, new))
            if pictures.count > LiveFeedBuffer.maxPictures { pictures.removeFirst(); if onAir { framesDropped += 1 } }
        }
        if fill > capacity { discard(fill - target, counted: onAir) }
    }

    /// Pictures the feed's decoding passed over before they reached the buffer: dropped, on air.
    mutating func passedOver(_ count: Int, onAir: Bool) {
        if onAir, count > 0 { framesDropped &+= UInt64(count) }
    }

    /// Off air: the newest `target` of sound is kept, and the picture due with its first frame.
    mutating func idle() {
        if fill > target { discard(fill - target, counted: false) }
        primed = false
        phase = 0
        averageFill = Double(fill)
    }

    /// On air: `frames` frames of the feed's sound into `out` (silence for what it lacks);
    /// returns the picture due with them.
    mutating func play(frames: Int, into out: UnsafeMutablePointer<Float>) -> Buffer? {
        out.update(repeating: 0, count: frames * channels)
        if !primed {
            guard ready else { return picture }
            if fill > target { discard(fill - target, counted: false) }
            primed = true
            averageFill = Double(fill)
            // Until a second or two has shown it, the low-water mark is taken to be where it should be.
            (lowNow, lowBefore, ticksNow) = (margin, margin, 1)
        }
        averageFill += (Double(fill) - averageFill) * alpha
        // The low-water mark of what was left after each tick's sound was played.
        let error = Double(min(lowNow, lowBefore) - margin) / Double(sampleRate)
        let beyond = max(0, abs(error) - LiveFeedBuffer.deadband) * (error < 0 ? -1 : 1)
        let step = beyond == 0 ? 1 : 1 + max(-LiveFeedBuffer.maxCorrection, min(LiveFeedBuffer.maxCorrection, beyond * LiveFeedBuffer.gain))
        if step == 1 { phase = 0 }
        let available = fill, start = written - UInt64(available)
        var produced = 0, position = phase
        sound.withUnsafeBufferPointer { s in
            while produced < frames {
                let i = Int(position), f = Float(position - Double(i))
                guard i < available, f == 0 || i + 1 < available else { break }
                for c in 0..<channels {
                    let a = s[i * channels + c]
                    out[produced * channels + c] = f == 0 ? a : a + (s[(i + 1) * channels + c] - a) * f
                }
                produced += 1
                position += step
            }
        }
        let consumed = min(available, Int(position))
        phase = position - Double(consumed)
        sound.removeFirst(consumed * channels)
        lowNow = ticksNow == 0 ? fill : min(lowNow, fill)
        ticksNow += 1
        if ticksNow >= ticksPerWindow { (lowBefore, ticksNow) = (lowNow, 0) }
        if produced < frames {
            primed = false  // ran dry: silence from here, until filled again
            phase = 0
        }
        // The picture due with the middle of the sound played.
        let shown = picture
        let popped = advancePictures(to: start + UInt64(consumed / 2))
        if popped > 1 { framesDropped += UInt64(popped - 1) }
        if popped == 0, shown != nil, produced == frames { framesRepeated += 1 }
        return picture
    }

    /// Drops the oldest `count` frames of sound, and the pictures due before what is left.
    private mutating func discard(_ count: Int, counted: Bool) {
        sound.removeFirst(min(fill, count) * channels)
        phase = 0
        let popped = advancePictures(to: written - UInt64(fill))
        if counted, popped > 1 { framesDropped += UInt64(popped - 1) }
    }

    /// Takes the pictures due by sound frame `at`; the last of them is `picture`. Returns how many.
    private mutating func advancePictures(to at: UInt64) -> Int {
        let due = pictures.prefix { $0.at <= at }.count
        if due > 0 {
            picture = pictures[due - 1].buffer
            pictures.removeFirst(due)
        }
        return due
    }
}

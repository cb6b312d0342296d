import Foundation

/// The mix's true-peak limiter (docs/presets.md, audio.loudness): what leaves the capture
/// never has a true peak above `ceiling`. Each frame's true peak is estimated 4× oversampled
/// (a windowed-sinc interpolator, as EBU R 128 measures it); the gain that keeps it under the
/// ceiling is reached smoothly over `lookahead` before the frame, which is why the output is
/// late by that much; the gain goes back up over `release`. Used by one thread (the timeline's).
struct TruePeakLimiter {
    let channels: Int
    /// Linear full scale of the ceiling.
    let ceiling: Float
    /// Frames of lookahead.
    let lookahead: Int
    /// Frames the output is late by: the lookahead and the interpolator's own delay.
    var latency: Int { lookahead + TruePeakLimiter.interpolatorDelay }
    /// How much of the way back to unity the gain goes per frame.
    private let releaseStep: Float

    /// The input of the last `latency` frames (ring, interleaved), and the interpolator's history.
    private var delay: [Float]
    private var history: [Float]
    private var delayAt = 0
    private var historyAt = 0
    /// The gain each recent frame needs (ring of lookahead+1), the running minimum of it
    /// (indices of a monotonic deque), and the boxcar average of that minimum.
    private var needed: [Float]
    private var minQueue: [Int]
    private var minHead = 0
    private var minCount = 0
    private var boxcar: [Float]
    private var boxcarSum: Double = 0
    private var frameIndex = 0
    private var released: Float = 1
    /// The smallest gain since `takeReduction()` was last called.
    private var lowest: Float = 1

    /// Taps per phase of the 4× interpolator, and its phases (the three between samples).
    static let taps = 12
    /// The frame whose true peak the interpolator finds is this many frames before the one pushed.
    static let interpolatorDelay = 6
    private static let phases: [[Float]] = makePhases()
    /// Bound on how far the interpolated value can exceed the largest sample nearby.
    private static let overshoot: Float = phases.map { $0.reduce(0) { $0 + abs($1) } }.max() ?? 2

    init(sampleRate: Int, channels: Int, ceilingDB: Double, lookahead: TimeInterval = 0.005, release: TimeInterval = 0.15) {
        self.channels = max(1, channels)
        ceiling = Float(pow(10, ceilingDB / 20))
        self.lookahead = max(1, Int(Double(sampleRate) * lookahead))
        releaseStep = Float(1 - exp(-1 / (Double(sampleRate) * max(0.001, release))))
        delay = [Float](repeating: 0, count: (self.lookahead + TruePeakLimiter.interpolatorDelay) * self.channels)
        history = [Float](repeating: 0, count: TruePeakLimiter.taps * self.channels)
        needed = [Float](repeating: 1, count: self.lookahead + 1)
        minQueue = [Int](repeating: 0, count: self.lookahead + 2)
        boxcar = [Float](repeating: 1, count: self.lookahead + 1)
        boxcarSum = Double(self.lookahead + 1)
    }

    /// Limits `samples` (interleaved) in place: they come out `latency` frames late.
    mutating func process(_ samples: inout [Float]) {
        let frames = samples.count / channels
        guard frames > 0 else { return }
        // Quiet enough that no interpolated value can reach the ceiling: no estimate needed.
        var loudest: Float = 0
        for v in history { loudest = max(loudest, abs(v)) }
        // A sample that is not a number (or infinite) is silence, and one beyond
        // `BrokenSamples.bound` is held there: nothing enters the limiter's state that would
        // stay and spread, or need a gain too small for its running average to carry
        // (`BrokenSamples` clears them at the decoder already).
        let bound = BrokenSamples.bound
        for i in samples.indices {
            let v = samples[i]
            if !v.isFinite { samples[i] = 0 } else if abs(v) > bound { samples[i] = v > 0 ? bound : -bound }
            loudest = max(loudest, abs(samples[i]))
        }
        let quiet = loudest * TruePeakLimiter.overshoot < ceiling
        samples.withUnsafeMutableBufferPointer { buf in
            for f in 0..<frames {
                let base = f * channels
                var need: Float = 1
                if !quiet {
                    var peak: Float = 0
                    for c in 0..<channels { peak = max(peak, truePeak(pushing: buf[base + c], channel: c)) }
                    if peak > ceiling { need = ceiling / peak }
                } else {
                    for c in 0..<channels { history[historyAt * channels + c] = buf[base + c] }
                }
                historyAt = (historyAt + 1) % TruePeakLimiter.taps
                let gain = smoothed(need)
                lowest = min(lowest, gain)
                for c in 0..<channels {
                    let d = delayAt * channels + c
                    let late = delay[d]
                    delay[d] = buf[base + c]
                    // The gain is that of the frame `latency` back; a sample over the ceiling never gets through.
                    buf[base + c] = max(-ceiling, min(ceiling, late * gain))
                }
                delayAt = (delayAt + 1) % latency
            }
        }
    }

    /// The gain reduction (dB, 0 or more) at its deepest since the last call.
    mutating func takeReduction() -> Double {
        defer { lowest = 1 }
        return lowest >= 1 ? 0 : -20 * log10(Double(max(lowest, 1e-6)))
    }

    /// Pushes `x`; the largest magnitude of the frame `interpolatorDelay` back and of the three
    /// values between it and the frame after it.
    private mutating func truePeak(pushing x: Float, channel c: Int) -> Float {
        history[historyAt * channels + c] = x
        let n = TruePeakLimiter.taps
        var peak = abs(history[((historyAt + n - TruePeakLimiter.interpolatorDelay) % n) * channels + c])
        for phase in TruePeakLimiter.phases {
            var acc: Float = 0
            var at = historyAt
            for k in 0..<n {
                acc += phase[k] * history[at * channels + c]
                at = at == 0 ? n - 1 : at - 1
            }
            peak = max(peak, abs(acc))
        }
        return peak
    }

    /// The gain for the frame `lookahead` frames back: the minimum of what the frames since
    /// needed (with a slow release), averaged over `lookahead`+1 frames, which is never more
    /// than any of them needed and moves without a step.
    private mutating func smoothed(_ need: Float) -> Float {
        let span = lookahead + 1
        let i = frameIndex
        frameIndex &+= 1
        released = min(need, released + (1 - released) * releaseStep)
        needed[i % span] = released
        // Monotonic deque of indices whose `needed` increase: its head is the window's minimum.
        let cap = minQueue.count
        while minCount > 0, needed[minQueue[(minHead + minCount - 1) % cap] % span] >= released { minCount -= 1 }
        minQueue[(minHead + minCount) % cap] = i
        minCount += 1
        while minCount > 0, minQueue[minHead] <= i - span { minHead = (minHead + 1) % cap; minCount -= 1 }
        let windowMin = needed[minQueue[minHead] % span]
        boxcarSum += Double(windowMin) - Double(boxcar[i % span])
        boxcar[i % span] = windowMin
        return Float(boxcarSum / Double(span))
    }

    /// The 4× interpolator's three in-between phases: a Kaiser-windowed sinc, each phase
    /// normalised to unity gain.
    private static func makePhases() -> [[Float]] {
        let factor = 4, n = taps * factor
        let center = Double(n) / 2
        func bessel0(_ x: Double) -> Double {
            var sum = 1.0, term = 1.0
            for k in 1..<20 { term *= (x / (2 * Double(k))) * (x / (2 * Double(k))); sum += term }
            return sum
        }
        let beta = 6.0
        return (1..<factor).map { p in
            var phase = (0..<taps).map { k -> Double in
                let t = Double(k * factor + (factor - p)) - center
                let x = t / Double(factor)
                let sinc = x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
                let r = t / center
                let window = abs(r) >= 1 ? 0 : bessel0(beta * (1 - r * r).squareRoot()) / bessel0(beta)
                return sinc * window
            }
            let sum = phase.reduce(0, +)
            phase = phase.map { $0 / sum }
            return phase.map(Float.init)
        }
    }
}

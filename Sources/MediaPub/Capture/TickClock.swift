/// The output timeline's clock (a pure value): when each tick starts and how many
/// audio frames come before it, in `ClockTime`. Exact (floored to the nanosecond,
/// never accumulated) and never trapping over any run length: a tick's times are
/// scaled full-width, so a 24/7 run at 48 kHz goes on past the 4.4 days after which
/// frames × 10⁹ no longer fits 64 bits.
struct TickClock: Sendable, Equatable {
    /// Ticks per second (the video frame rate, or 50 for an audio-only run).
    let tickRate: Int
    let sampleRate: Int

    /// The tick at `seconds` of output (rounded to the nearest); never traps: nan and
    /// negatives are 0, anything past 2^62 ticks (far beyond MediaTime.maxDuration) is 2^62.
    func tick(at seconds: Double) -> UInt64 {
        let t = (seconds * Double(tickRate)).rounded()
        guard t > 0 else { return 0 }
        return t < 0x1p62 ? UInt64(t) : 1 << 62
    }

    /// When tick `n` starts: n / tickRate seconds.
    func time(ofTick n: UInt64) -> ClockTime { ClockTime.ofSamples(n, rate: tickRate) }

    /// The audio frames before tick `n`: n × sampleRate / tickRate, floored.
    func audioFrames(atTick n: UInt64) -> UInt64 {
        let rate = UInt64(max(1, tickRate))
        let (high, low) = n.multipliedFullWidth(by: UInt64(max(0, sampleRate)))
        guard high < rate else { return UInt64.max }
        return rate.dividingFullWidth((high, low)).quotient
    }

    /// When the audio of tick `n` starts: its first frame's time.
    func audioTime(atTick n: UInt64) -> ClockTime { ClockTime.ofSamples(audioFrames(atTick: n), rate: sampleRate) }

    /// The length of `frames` audio frames.
    func audioDuration(frames: Int) -> ClockTime { ClockTime.ofSamples(UInt64(max(0, frames)), rate: sampleRate) }
}

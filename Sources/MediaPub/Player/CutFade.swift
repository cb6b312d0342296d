/// A player's gain across a cut to cued content (docs/design.md, Switching on the
/// frame), a pure value: the outgoing sound fades out over the `length` before the
/// cut, so it is silent from the cut's first sample; the incoming one fades in over
/// its first `length`; a cut called off brings the sound back over the same length.
/// The gain moves at most 1/`length` a sample, so the sound never jumps (no click).
struct CutFade: Sendable, Equatable {
    /// The fade's length.
    static let seconds = 0.05

    /// In audio frames.
    let length: Int
    /// The gain of the last frame it was applied to, in steps of 1/`length` (0...length): exact.
    private var level: Int
    var gain: Float { Float(level) / Float(length) }

    init(sampleRate: Int) {
        length = max(1, Int(Double(max(0, sampleRate)) * CutFade.seconds))
        level = length
    }

    /// The ticks a fade spans at `tickRate` ticks a second (rounded up).
    static func ticks(tickRate: Int) -> UInt64 { UInt64(max(1, (seconds * Double(max(1, tickRate))).rounded(.up))) }

    /// The last frame it was applied to was silent.
    var isSilent: Bool { level == 0 }

    /// The incoming content starts silent (and fades in).
    mutating func cutIn() { level = 0 }

    /// Applies the gain to `frames` interleaved frames of `channels` in `out`, the first of
    /// them the output timeline's frame `first`. `silentFrom`: the timeline frame of a
    /// cut to come (silent from there on, faded out before it); nil: none, full sound.
    mutating func apply(to out: UnsafeMutablePointer<Float>, frames: Int, channels: Int, first: UInt64, silentFrom: UInt64?) {
        guard channels > 0, moves(frames: frames, first: first, silentFrom: silentFrom) else { return }
        var gains = [Float](repeating: 1, count: frames)
        let fading = gains.withUnsafeMutableBufferPointer { self.gains(into: $0.baseAddress!, frames: frames, first: first, silentFrom: silentFrom) }
        guard fading else { return }
        for i in 0..<frames {
            let frame = out + i * channels
            for c in 0..<channels { frame[c] *= gains[i] }
        }
    }

    /// Where the fade-out before a cut at `silentFrom` begins: from there on the target is silence.
    private static func edge(_ length: Int, _ silentFrom: UInt64?) -> UInt64 {
        silentFrom.map { $0 >= UInt64(length) ? $0 - UInt64(length) : 0 } ?? .max
    }

    /// Whether the gain is other than full sound anywhere in `frames` frames from timeline frame `first`.
    func moves(frames: Int, first: UInt64, silentFrom: UInt64?) -> Bool {
        guard frames > 0 else { return false }
        let (end, overflow) = first.addingReportingOverflow(UInt64(frames))
        return level != length || overflow || end > CutFade.edge(length, silentFrom)
    }

    /// The gain of each of `frames` frames, the first the output timeline's frame `first`,
    /// written to `gains` (as `apply` applies them; `GainEnvelope` applies them with the
    /// others). Returns false, writing nothing, when they are all full sound.
    mutating func gains(into gains: UnsafeMutablePointer<Float>, frames: Int, first: UInt64, silentFrom: UInt64?) -> Bool {
        guard moves(frames: frames, first: first, silentFrom: silentFrom) else { return false }
        let edge = CutFade.edge(length, silentFrom)
        let scale = 1 / Float(length)
        for i in 0..<frames {
            let (position, past) = first.addingReportingOverflow(UInt64(i))
            level = past || position >= edge ? max(0, level - 1) : min(length, level + 1)
            gains[i] = Float(level) * scale
        }
        return true
    }
}

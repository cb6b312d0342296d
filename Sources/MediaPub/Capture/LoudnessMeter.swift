import CEbur128
import Foundation

/// An EBU R 128 loudness meter: libebur128's, never one of our own. Its integrated
/// loudness is kept in a histogram, so it never grows however long it measures.
/// Owns its `ebur128_state`. @unchecked Sendable: used by one thread at a time (its owner's
/// lock, or the thread that made it); libebur128 keeps no state but the one it is given.
final class LoudnessMeter: @unchecked Sendable {
    private let meter: UnsafeMutablePointer<ebur128_state>
    let channels: Int

    /// What it can say: momentary and short-term too, or the integrated loudness only;
    /// `truePeak` (tests) the true peak as well; `dualMono`: one channel that plays on two
    /// (counted twice, as the same sound on both would be). nil when libebur128 refuses the format.
    init?(channels: Int, sampleRate: Int, shortTerm: Bool = true, truePeak: Bool = false, dualMono: Bool = false) {
        var mode = Int32(EBUR128_MODE_I.rawValue | EBUR128_MODE_HISTOGRAM.rawValue)
        if shortTerm { mode |= Int32(EBUR128_MODE_S.rawValue) }
        if truePeak { mode |= Int32(EBUR128_MODE_TRUE_PEAK.rawValue) }
        guard channels > 0, sampleRate > 0,
              let made = ebur128_init(UInt32(channels), UInt(sampleRate), mode) else { return nil }
        meter = made
        self.channels = channels
        if dualMono, channels == 1 { _ = ebur128_set_channel(made, 0, Int32(EBUR128_DUAL_MONO.rawValue)) }
    }

    deinit {
        var st: UnsafeMutablePointer<ebur128_state>? = meter
        ebur128_destroy(&st)
    }

    /// Measures `frames` interleaved frames from `samples`.
    func add(_ samples: UnsafePointer<Float>, frames: Int) {
        guard frames > 0 else { return }
        _ = ebur128_add_frames_float(meter, samples, frames)
    }

    func add(_ samples: [Float]) {
        samples.withUnsafeBufferPointer { if let base = $0.baseAddress { add(base, frames: $0.count / channels) } }
    }

    /// LUFS over the last 400 ms, 3 s, and all of it (gated); nil while there is nothing
    /// to measure (silence, or too little yet).
    var momentary: Double? { value(ebur128_loudness_momentary) }
    var shortTerm: Double? { value(ebur128_loudness_shortterm) }
    var integrated: Double? { value(ebur128_loudness_global) }

    /// The highest true peak of `channel` so far (linear; `truePeak` meters only).
    func truePeak(channel: Int) -> Double? {
        var out = 0.0
        return ebur128_true_peak(meter, UInt32(channel), &out) == Int32(EBUR128_SUCCESS.rawValue) ? out : nil
    }

    private func value(_ read: (UnsafeMutablePointer<ebur128_state>, UnsafeMutablePointer<Double>) -> Int32) -> Double? {
        var out = 0.0
        guard read(meter, &out) == Int32(EBUR128_SUCCESS.rawValue), out.isFinite, out > -200 else { return nil }
        return out
    }
}

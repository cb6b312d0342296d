import Foundation

/// Loudness to a target (docs/presets.md, audio.loudness): each item gets one gain from its
/// integrated loudness (EBU R 128), and a true-peak limiter keeps the mix under a ceiling.
public struct LoudnessConfig: Equatable, Sendable {
    /// The integrated loudness each item is brought to, in LUFS.
    public var target: Double
    /// The highest true peak of the output, in dBTP.
    public var truePeak: Double
    /// The most an item is raised, in dB.
    public var maxGain: Double

    public init(target: Double = -23, truePeak: Double = -1, maxGain: Double = 12) {
        self.target = target
        self.truePeak = truePeak
        self.maxGain = maxGain
    }

    public static let targetRange: ClosedRange<Double> = -40 ... -5
    public static let truePeakRange: ClosedRange<Double> = -9...0
    public static let maxGainRange: ClosedRange<Double> = 0...24

    /// The gain, in dB, that brings an item measured at `lufs` to the target: at most
    /// `maxGain` up; nil for an item with no loudness (silence, too short to measure).
    func gain(measured lufs: Double?) -> Double? {
        guard let lufs, lufs.isFinite else { return nil }
        return min(maxGain, target - lufs)
    }

    /// The gain of an item not measured yet when it starts: as if it were mastered loud
    /// (`assumedLoudness`), never raised, so that nothing unmeasured comes out too loud.
    var conservativeGain: Double { min(0, target - LoudnessConfig.assumedLoudness) }

    /// How loud an unmeasured item is taken to be, in LUFS (loud modern masters).
    static let assumedLoudness = -9.0
}

import Foundation

/// The output's loudness in `status` (docs/status.md, `loudness`), with `audio.loudness`.
public struct LoudnessStatus: Codable, Sendable, Equatable {
    /// LUFS over the last 400 ms, 3 s and the whole run (gated); nil while there is nothing to measure.
    public var momentaryLUFS: Double?
    public var shortTermLUFS: Double?
    public var integratedLUFS: Double?
    /// The limiter's deepest gain reduction over the last 100 ms, in dB (0: none).
    public var limiterReductionDB: Double
    /// `audio.loudness.target`: what the items are brought to, for the page to show against (nil: left out).
    public var targetLUFS: Double? = nil

    enum CodingKeys: String, CodingKey, CaseIterable {
        case momentaryLUFS = "momentary_lufs"
        case shortTermLUFS = "short_term_lufs"
        case integratedLUFS = "integrated_lufs"
        case limiterReductionDB = "limiter_reduction_db"
        case targetLUFS = "target_lufs"
    }

    public func encode(to encoder: Swift.Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(momentaryLUFS.map(Self.tenth), forKey: .momentaryLUFS)   // null, never left out
        try c.encode(shortTermLUFS.map(Self.tenth), forKey: .shortTermLUFS)
        try c.encode(integratedLUFS.map(Self.tenth), forKey: .integratedLUFS)
        try c.encode(Self.tenth(limiterReductionDB), forKey: .limiterReductionDB)
        try c.encodeIfPresent(targetLUFS, forKey: .targetLUFS)
    }

    private static func tenth(_ v: Double) -> Double { (v * 10).rounded() / 10 }
}

extension LoudnessStatus {
    init(_ r: OutputLoudness.Reading, target: Double?) {
        self.init(momentaryLUFS: r.momentary, shortTermLUFS: r.shortTerm, integratedLUFS: r.integrated,
                  limiterReductionDB: r.gainReduction, targetLUFS: target)
    }
}

extension LoudnessStatus {
    /// Its metrics in `/metrics` (docs/metrics.md), through `metric(name, help, type, samples)`; none without it.
    static func metrics(_ l: LoudnessStatus?,
                        _ metric: (String, String, String, [(labels: String, value: Double)]) -> Void) {
        func one(_ v: Double?) -> [(labels: String, value: Double)] { v.map { [("", $0)] } ?? [] }
        metric("output_loudness_momentary_lufs", "The output's momentary loudness (400 ms).", "gauge", one(l?.momentaryLUFS))
        metric("output_loudness_short_term_lufs", "The output's short-term loudness (3 s).", "gauge", one(l?.shortTermLUFS))
        metric("output_loudness_integrated_lufs", "The output's integrated loudness since the run began.", "gauge", one(l?.integratedLUFS))
        metric("limiter_gain_reduction_db", "The true-peak limiter's deepest gain reduction over the last 100 ms.", "gauge",
               one(l?.limiterReductionDB))
    }
}

import Foundation
import Synchronization

/// The mix on its way out (docs/presets.md, audio.loudness): the true-peak limiter
/// (`TruePeakLimiter`) under `audio.loudness.true_peak` (less `encoderHeadroom`), under
/// full scale without it (where it stands for a clip); and, with
/// it, the output's loudness, measured after the limiter (libebur128), for status and
/// `/metrics` (docs/status.md, loudness). `process` runs on the timeline thread.
final class OutputLoudness: Sendable {
    /// What status shows.
    struct Reading: Equatable, Sendable {
        var momentary: Double?
        var shortTerm: Double?
        var integrated: Double?
        /// The limiter's deepest gain reduction over the last reading's span, in dB.
        var gainReduction: Double = 0
    }

    private struct Work {
        var limiter: TruePeakLimiter
        var meter: LoudnessMeter?
        var framesSinceReading = 0
    }

    private let work: Mutex<Work>
    private let shown = Mutex(Reading())
    /// Frames between readings (100 ms).
    private let readingFrames: Int
    /// The output is measured (`audio.loudness` is set).
    let measured: Bool
    /// Frames the limited mix is late by (the limiter's lookahead): the capture stamps it
    /// that much earlier, so that the sound stays with its picture.
    let latency: Int
    /// How far under the ceiling the limiter aims (dB): a lossy encoder (AAC, MP3, Opus)
    /// overshoots the peaks it is given by a few tenths of a dB.
    static let encoderHeadroom = 0.5

    init(format: MediaFormat, loudness: LoudnessConfig?) {
        let limiter = TruePeakLimiter(sampleRate: format.sampleRate, channels: format.channels,
                                      ceilingDB: loudness.map { $0.truePeak - OutputLoudness.encoderHeadroom } ?? 0)
        let meter = loudness == nil ? nil : LoudnessMeter(channels: format.channels, sampleRate: format.sampleRate)
        latency = limiter.latency
        work = Mutex(Work(limiter: limiter, meter: meter))
        measured = meter != nil
        readingFrames = max(1, format.sampleRate / 10)
    }

    /// Limits the mix in place (it comes out the limiter's few ms late) and measures it.
    func process(_ mix: inout [Float]) {
        let reading = work.withLock { w -> Reading? in
            w.limiter.process(&mix)
            guard let meter = w.meter else { return nil }
            meter.add(mix)
            w.framesSinceReading += mix.count / max(1, meter.channels)
            guard w.framesSinceReading >= readingFrames else { return nil }
            w.framesSinceReading = 0
            return Reading(momentary: meter.momentary, shortTerm: meter.shortTerm, integrated: meter.integrated,
                           gainReduction: w.limiter.takeReduction())
        }
        if let reading { shown.withLock { $0 = reading } }
    }

    /// The last reading; nil when the output is not measured.
    var reading: Reading? { measured ? shown.withLock { $0 } : nil }
}

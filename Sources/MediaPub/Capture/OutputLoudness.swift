import Foundation
import Synchronization

/// The mix on its way out (docs/presets.md, audio.loudness): the true-peak limiter
/// (`TruePeakLimiter`) under `audio.loudness.true_peak`, under full scale without it (where
/// it stands for a clip), less what the run's encoders add to peaks (`aim`); and, with
/// it, the output's loudness, measured after the limiter (libebur128), for status and
/// `/metrics` (docs/status.md, loudness). `process` runs on the timeline thread. The
/// momentary and short-term loudness are read from the meter when status asks (at most
/// once per 100 ms of output), never on every tick: reading the short-term loudness sums
/// the last 3 s again, which, every 100 ms, cost more than the measuring itself.
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
        /// Frames since the limiter's last span ended, and its deepest reduction over that span.
        var framesInSpan = 0
        var spanReduction = 0.0
        /// The last reading, and the frames measured since it was read (nil: never read).
        var shown = Reading()
        var framesSinceReading: Int?
    }

    private let work: Mutex<Work>
    /// Frames between readings (100 ms).
    private let readingFrames: Int
    /// The output is measured (`audio.loudness` is set).
    let measured: Bool
    /// Frames the limited mix is late by (the limiter's lookahead): the capture stamps it
    /// that much earlier, so that the sound stays with its picture.
    let latency: Int
    /// `codecs`: the sounds the run encodes; the limiter aims under the ceiling by the most
    /// any of them adds to peaks (`AudioCodec.peakHeadroom`).
    init(format: MediaFormat, loudness: LoudnessConfig?, codecs: Set<AudioCodec> = [.aac]) {
        let limiter = TruePeakLimiter(sampleRate: format.sampleRate, channels: format.channels,
                                      ceilingDB: OutputLoudness.aim(loudness: loudness, codecs: codecs))
        let meter = loudness == nil ? nil : LoudnessMeter(channels: format.channels, sampleRate: format.sampleRate)
        latency = limiter.latency
        work = Mutex(Work(limiter: limiter, meter: meter))
        measured = meter != nil
        readingFrames = max(1, format.sampleRate / 10)
    }

    /// Where the limiter aims (dBTP): the ceiling (`true_peak`, 0 dBTP without
    /// `audio.loudness`) less the largest headroom of the codecs encoded.
    static func aim(loudness: LoudnessConfig?, codecs: Set<AudioCodec>) -> Double {
        (loudness?.truePeak ?? 0) - (codecs.map(\.peakHeadroom).max() ?? 0)
    }

    /// Limits the mix in place (it comes out the limiter's few ms late) and measures it.
    func process(_ mix: inout [Float]) {
        work.withLock { w in
            w.limiter.process(&mix)
            guard let meter = w.meter else { return }
            meter.add(mix)
            let frames = mix.count / max(1, meter.channels)
            w.framesSinceReading = w.framesSinceReading.map { $0 + frames }
            w.framesInSpan += frames
            guard w.framesInSpan >= readingFrames else { return }
            w.framesInSpan = 0
            w.spanReduction = w.limiter.takeReduction()
        }
    }

    /// The output's loudness now (read again once 100 ms more have been measured); nil when
    /// the output is not measured.
    var reading: Reading? {
        guard measured else { return nil }
        return work.withLock { w -> Reading in
            guard let meter = w.meter, (w.framesSinceReading ?? readingFrames) >= readingFrames else { return w.shown }
            w.framesSinceReading = 0
            w.shown = Reading(momentary: meter.momentary, shortTerm: meter.shortTerm, integrated: meter.integrated,
                              gainReduction: w.spanReduction)
            return w.shown
        }
    }
}

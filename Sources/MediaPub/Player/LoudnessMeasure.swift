import CGStreamer
import CGStreamerShim
import Foundation

/// One item's integrated loudness (docs/presets.md, audio.loudness): its R128 or ReplayGain
/// track gain when its tags carry one, else its sound decoded as fast as decoding goes
/// (on the calling thread, which sets the pace: `ItemLoudness` calls it on a thread of
/// low priority) and measured with libebur128. Pictures are not decoded; the sound is
/// measured at its own rate, and a mono item in one channel counted twice (as it plays on
/// both of a stereo output), never mixed up to two first.
enum LoudnessMeasure {
    /// What a measure found.
    enum Outcome: Equatable, Sendable {
        /// LUFS; nil when the item has no sound to measure (silence).
        case loudness(Double?)
        /// The item could not be measured (unreadable, no sound, stalled).
        case failed
    }

    /// ReplayGain 2's reference loudness: a track gain of 0 dB is this loud (LUFS); an
    /// Opus R128 track gain's (RFC 7845: `R128_TRACK_GAIN`, in 1/256 dB).
    static let replayGainReference = -18.0
    static let r128Reference = -23.0
    /// Nothing decoded for this long: the measure gives up.
    static let stallSeconds = 10.0
    /// An item over HTTP(S) whose sound comes no faster than `remotePace` times its own
    /// pace after `remoteGrace` seconds is a stream that never ends, or a server too slow to
    /// be measured ahead: the measure gives up.
    static let remoteGrace = 5.0
    static let remotePace = 2.0

    /// Measures the item at `uri` as it plays in `channels` channels (`remote`: over
    /// HTTP(S), read once more for this).
    static func measure(uri: String, channels: Int, remote: Bool) -> Outcome {
        // A mono item on a stereo output stays mono (audioconvert keeps the channels it can).
        let allowed = channels == 2 ? "(int){2,1}" : "\(channels)"
        let description = "uridecodebin name=decode uri=\(GStreamer.quote(uri)) caps=audio/x-raw expose-all-streams=false ! "
            + "audioconvert ! audio/x-raw,format=F32LE,layout=interleaved,channels=\(allowed) ! "
            + "appsink name=sink sync=false max-buffers=16"
        guard let pipeline = try? Pipeline(parsing: description), let sink = pipeline.appSink(named: "sink") else { return .failed }
        defer { pipeline.stop() }
        // HTTPS trusts what the players' sources trust (a CA file that cannot be used fails the measure).
        if remote, let decode = pipeline.element(named: "decode") { Signals.onSourceSetup(decode) { _ = TLSTrust.apply(to: $0) } }
        let started = MonotonicInstant.now
        var seconds = 0.0
        let bus = gst_element_get_bus(pipeline.raw)
        defer { if let bus { gst_object_unref(UnsafeMutableRawPointer(bus)) } }
        guard (try? pipeline.setState(.playing)) != nil else { return .failed }
        var meter: LoudnessMeter?
        var samples: [Float] = []
        var quietSince = MonotonicInstant.now
        while true {
            switch busNews(bus) {
            case .trackGain(let gain, let reference): return .loudness(reference - gain)
            case .failed: return .failed
            case .none: break
            }
            guard let sample = sink.tryPull(timeout: 0.5) else {
                if sink.isEOS { return meter.map { .loudness($0.integrated) } ?? .failed }
                if MonotonicInstant.now.timeIntervalSince(quietSince) > stallSeconds { return .failed }
                continue
            }
            quietSince = MonotonicInstant.now
            guard let caps = sample.caps?.firstStructure, let rate = caps.int("rate"), let buffer = sample.buffer else { continue }
            let got = caps.int("channels") ?? channels
            if meter == nil {
                meter = LoudnessMeter(channels: got, sampleRate: rate, shortTerm: false, dualMono: got == 1 && channels == 2)
            }
            guard let meter, meter.channels == got else { return .failed }
            _ = try? buffer.map { bytes in
                if let base = bytes.baseAddress?.assumingMemoryBound(to: Float.self) {
                    // Measured as it plays: what is no sound is silence there (`BrokenSamples`).
                    let count = bytes.count / 4
                    samples.removeAll(keepingCapacity: true)
                    samples.append(contentsOf: UnsafeBufferPointer(start: base, count: count))
                    _ = samples.withUnsafeMutableBufferPointer { BrokenSamples.silence($0.baseAddress!, count: count) }
                    meter.add(samples)
                    seconds += Double(count / got) / Double(max(1, rate))
                }
            }
            let elapsed = MonotonicInstant.now.timeIntervalSince(started)
            if remote, elapsed > remoteGrace, seconds < elapsed * remotePace { return .failed }
        }
    }

    private enum News { case none, failed, trackGain(Double, reference: Double) }

    /// What waits on the bus: an error, or a track gain in the tags: R128 (an extended
    /// comment to GStreamer) before ReplayGain.
    private static func busNews(_ bus: UnsafeMutablePointer<GstBus>?) -> News {
        guard let bus else { return .none }
        while let message = gst_bus_pop_filtered(bus, GstMessageType(GST_MESSAGE_ERROR.rawValue | GST_MESSAGE_TAG.rawValue)) {
            defer { cshim_message_unref(message) }
            if cshim_message_type(message) == GST_MESSAGE_ERROR { return .failed }
            var tags: UnsafeMutablePointer<GstTagList>? = nil
            gst_message_parse_tag(message, &tags)
            defer { if let tags { gst_tag_list_unref(tags) } }
            guard let tags else { continue }
            for i in 0..<gst_tag_list_get_tag_size(tags, "extended-comment") {
                var comment: UnsafeMutablePointer<gchar>? = nil
                guard gst_tag_list_get_string_index(tags, "extended-comment", i, &comment) != 0, let comment else { continue }
                defer { g_free(comment) }
                let text = String(cString: comment)
                if text.uppercased().hasPrefix("R128_TRACK_GAIN="), let q = Int16(text.dropFirst(16)) {
                    return .trackGain(Double(q) / 256, reference: r128Reference)
                }
            }
            var gain = 0.0
            if gst_tag_list_get_double(tags, "replaygain-track-gain", &gain) != 0, gain.isFinite {
                return .trackGain(gain, reference: replayGainReference)
            }
        }
        return .none
    }
}

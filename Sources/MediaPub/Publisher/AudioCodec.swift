/// An encoded sound a run makes: AAC for the video containers, `.m4a` and `.aac`;
/// MP3 and Opus for the outputs that carry them (docs/presets.md, Outputs). Each
/// one a run needs is encoded once, whatever the number of outputs that take it.
enum AudioCodec: String, CaseIterable, Sendable, Comparable {
    case aac, mp3, opus

    static func < (a: AudioCodec, b: AudioCodec) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// The encoder and its parser in the encoding pipeline, for `audio`'s bitrate; the
    /// branch resamples on its own (Opus takes 48 kHz whatever the run's rate).
    /// Elements are named `audio-…` so that an error names the stream (Encoder.stream).
    func encoderDescription(_ audio: AudioConfig) throws -> String {
        let name = rawValue
        switch self {
        case .aac:
            return try Encoder.audioEncoder(audio) + " ! aacparse name=audio-parse"
        case .mp3:
            guard GStreamer.hasElement("lamemp3enc") else { throw GStreamer.missing("lamemp3enc") }
            // Constant bitrate, rounded by LAME to one of MP3's (kbit/s).
            let kbps = max(8, min(320, audio.bitrate / 1000))
            return "audioconvert name=audio-\(name)-convert ! audioresample name=audio-\(name)-resample ! "
                + "lamemp3enc name=audio-\(name)-encoder target=bitrate cbr=true bitrate=\(kbps) ! mpegaudioparse name=audio-\(name)-parse"
        case .opus:
            guard GStreamer.hasElement("opusenc") else { throw GStreamer.missing("opusenc") }
            let bps = max(6000, min(510_000, audio.bitrate))
            return "audioconvert name=audio-\(name)-convert ! audioresample name=audio-\(name)-resample ! "
                + "opusenc name=audio-\(name)-encoder bitrate=\(bps)"
        }
    }

    /// How far under the true-peak ceiling the mix is limited (dB) for this codec's
    /// decoded sound to stay under it (docs/presets.md, audio.loudness): a lossy encoder adds
    /// to peaks. Measured with ffmpeg's ebur128 on the decoded output of loud, limited
    /// programme material (hot pink and brown noise, tones, 0.5 ms bursts) at 64k to
    /// 256k: AAC (avenc_aac) added up to 1.0 dB, Opus up to 1.4 dB, MP3 (LAME) 0.1 dB.
    var peakHeadroom: Double {
        switch self {
        case .aac, .opus: return 2
        case .mp3: return 0.5
        }
    }

    /// What an output puts between its appsrc and its muxer or sink.
    var parser: String {
        switch self {
        case .aac: return "aacparse"
        case .mp3: return "mpegaudioparse"
        // opusenc's packets as they are, their caps named so that oggmux gives them an audio pad.
        case .opus: return "capsfilter caps=audio/x-opus"
        }
    }
}

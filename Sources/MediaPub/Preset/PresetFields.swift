import Foundation

// The fields of every preset section but the players' (docs/presets.md), in the order
// they are read, written and documented.

extension Preset: PresetSection {
    static let presetDefault = Preset(name: "", video: nil, players: [])

    static let fields: [PresetField<Preset>] = [
        PresetField(key: "name", type: "text", range: "letters, digits, '.', '_', '-'",
                    defaultText: "the preset file's name without extension",
                    doc: "Instance name, shown in logs and used for the control socket.", decode: { d, at, c in
            guard let n = at.node, let s = d.string(n, at.key) else { return }
            if d.isName(s, extra: ".") { c.name = s } else {
                d.report(n, at.key, "\"\(s.clipped())\" is not a valid name (letters, digits, '.', '_', '-')")
            }
        }, write: { c, w in .scalar(w.quote(c.name)) }),
        PresetField(key: "video", type: "section", defaultText: "none: an audio-only stream",
                    doc: "The video stream; leave it out for audio only.", schema: VideoConfig.schema, decode: { d, at, c in
            guard let n = at.node, !n.isNull else { return }
            var video = VideoConfig()
            d.decodeSection(n, at.key, into: &video)
            c.video = video
            d.hasVideo = true
            d.videoBFrames = video.bframes
        }, write: { c, w in c.video.map { .lines(w.lines($0)) } }),
        .section("audio", \.audio, "The audio stream."),
        PresetField(key: "players", type: "list of players", range: "1..\(Preset.maxPlayers)", defaultText: "required",
                    doc: "The players whose pictures and sound are published (see Players).",
                    schema: .list(PlayerConfig.schema, byID: true),
                    decode: { d, at, c in c.players = d.decodePlayers(at.node, root: at.section) },
                    write: { c, w in .lines(c.players.flatMap { w.listItem(w.lines($0)) }) }),
        .section("standby", \.standby, "What is published while the publishing flag is off."),
        .flag("publishing", \.publishing, "The publishing flag at start: off publishes the standby picture and sound."),
        PresetField(key: "outputs", type: "list of outputs", defaultText: "none (`--output` may give them)",
                    doc: "Where the stream goes (see Outputs).", schema: .list(OutputConfig.schema, byID: false),
                    decode: { d, at, c in
            if let n = at.node, !n.isNull { c.outputs = d.decodeOutputs(n); d.checkNamesApart(c.outputs, n.items ?? []) }
        }, write: { c, w in
            c.outputs.isEmpty ? .scalar("[]") : .lines(c.outputs.flatMap { w.listItem(w.lines($0)) })
        }),
        .section("reconnect", \.reconnect, "How network outputs reconnect after a failure."),
        .section("stop", \.stop, "When the run ends by itself."),
        MonitorConfig.presetField,
        .section("events", \.events, "Where events are sent besides `--events`."),
        ScheduleConfig.presetField, LiveFeedConfig.presetField, OverlayConfig.presetField,
        .section("http", \.http, "Who may read the HTTP server (`--http`) off loopback, and the token its commands need (see docs/http.md)."),
    ]
}

extension VideoConfig: PresetSection {
    static let presetDefault = VideoConfig()

    static let fields: [PresetField<VideoConfig>] = [
        PresetField(key: "size", type: "size", range: "WIDTHxHEIGHT, 480p, 720p, 1080p, 1440p, 2160p or 4k",
                    doc: "Picture size; or give width and height.", decode: { d, at, c in
            guard let s = at.node, let text = d.string(s, at.key) else { return }
            if let (w, h) = parseSize(text) {
                (c.width, c.height) = (w, h)
            } else {
                d.report(s, at.key, "\"\(text.clipped())\" is not a size like 1280x720 (or 480p, 720p, 1080p, 1440p, 2160p)")
            }
            for k in ["width", "height"] where at.fields[k] != nil {
                d.report(at.fields[k]!, "video.\(k)", "give either size or width/height, not both")
            }
        }, write: { c, _ in .scalar("\(c.width)x\(c.height)") }),
        PresetField(key: "width", type: "whole number (even)", range: "\(widthRange.lowerBound)..\(widthRange.upperBound)",
                    defaultText: "1280", doc: "Picture width in pixels (with height, instead of size).", decode: { d, at, c in
            if let n = at.node, let w = d.int(n, at.key) { c.width = w }
        }, write: { _, _ in nil }),
        PresetField(key: "height", type: "whole number (even)", range: "\(heightRange.lowerBound)..\(heightRange.upperBound)",
                    defaultText: "720", doc: "Picture height in pixels (with width, instead of size).", decode: { d, at, c in
            if let n = at.node, let h = d.int(n, at.key) { c.height = h }
            d.checkSize(c, at.fields)
        }, write: { _, _ in nil }),
        .whole("fps", \.fps, fpsRange, "Frames per second."),
        .bitrate("bitrate", \.bitrate, bitrateRange, "Video bitrate (like 2500k or 2.5M)."),
        .duration("keyframe_interval", \.keyframeInterval, keyframeIntervalRange, "Longest time between keyframes (x264 also starts one at a scene change)."),
        .choice("encoder", \.encoder, VideoEncoderKind.allCases.map { ($0.rawValue, $0) },
                "H.264 encoder: vaapi (vah264enc or vaapih264enc), nvenc (nvh264enc) and v4l2 (v4l2h264enc) are "
                    + "hardware ones; auto takes the first of nvenc, vaapi, v4l2 whose device opens, else x264, else openh264."),
        .choice("encoder_preset", \.encoderPreset, encoderPresets.map { ($0, $0) }, "x264 speed/quality preset."),
        .choice("tune", \.tune, VideoTune.allCases.map { ($0.rawValue, $0) },
                "zerolatency: no lookahead, no B-frames unless bframes gives them (live); "
                    + "quality: lookahead and B-frames (recordings, platforms that take B-frames)."),
        .choice("profile", \.profile, H264Profile.allCases.map { ($0.rawValue, $0) }, "H.264 profile; baseline has no B-frames."),
        PresetField(key: "bframes", type: "whole number", range: PresetDecoder.span(bframesRange) { "\($0)" },
                    defaultText: "0; \(VideoTune.quality.defaultBFrames) with tune: quality (0 with profile: baseline, openh264 or v4l2)",
                    doc: "B-frames between reference frames: smaller for the quality, later by as many frames; "
                        + "not with profile: baseline, openh264 or v4l2; at most 4 with nvenc, 10 with vaapi.",
                    decode: { d, at, c in
            guard let n = at.node else {
                c.bframes = c.profile.allowsBFrames ? min(c.tune.defaultBFrames, c.encoder.maxBFrames) : 0
                return
            }
            guard let b = d.int(n, at.key, range: bframesRange) else { return }
            if let why = c.refusal(bframes: b) { d.report(n, at.key, why) } else { c.bframes = b }
        }, write: { c, _ in .scalar("\(c.bframes)") }),
    ]

    /// Why `bframes` B-frames cannot be had with this profile and encoder; nil when they can.
    func refusal(bframes b: Int) -> String? {
        guard b > 0 else { return nil }
        if !profile.allowsBFrames {
            return "the baseline profile has no B-frames (use profile: main or high, or bframes: 0)"
        }
        if encoder.maxBFrames == 0 {
            return "\(encoder.rawValue) makes no B-frames (use encoder: x264, or bframes: 0)"
        }
        if b > encoder.maxBFrames {
            return "\(b) is more than \(encoder.rawValue) makes (at most \(encoder.maxBFrames))"
        }
        return nil
    }

    static func parseSize(_ text: String) -> (Int, Int)? {
        let named = ["480p": (854, 480), "720p": (1280, 720), "1080p": (1920, 1080),
                     "1440p": (2560, 1440), "2160p": (3840, 2160), "4k": (3840, 2160)]
        if let n = named[text.lowercased()] { return n }
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2,
              let w = Int(parts[0].trimmingCharacters(in: .whitespaces)),
              let h = Int(parts[1].trimmingCharacters(in: .whitespaces)) else { return nil }
        return (w, h)
    }
}

extension PresetDecoder {
    /// Width and height in range and even, reported at the key that gave them.
    mutating func checkSize(_ v: VideoConfig, _ f: [String: YAMLNode]) {
        guard let sizeNode = f["size"] ?? f["width"] ?? f["height"] else { return }
        let key = f["size"] != nil ? "video.size" : (f["width"] != nil ? "video.width" : "video.height")
        for (name, value, range) in [("width", v.width, VideoConfig.widthRange), ("height", v.height, VideoConfig.heightRange)] {
            let at = f[name] ?? sizeNode, atKey = f[name] != nil ? "video.\(name)" : key
            if !range.contains(value) {
                report(at, atKey, "\(name) \(value) is out of range \(range.lowerBound)..\(range.upperBound)")
            } else if value % 2 != 0 {
                report(at, atKey, "\(name) \(value) must be even")
            }
        }
    }
}

extension AudioConfig: PresetSection {
    static let presetDefault = AudioConfig()

    static let fields: [PresetField<AudioConfig>] = [
        .scalar("sample_rate", \.sampleRate, type: "whole number", range: sampleRates.map(String.init).joined(separator: ", "),
                doc: "Samples per second.", read: { d, n, k, _ in
            guard let r = d.int(n, k) else { return nil }
            if sampleRates.contains(r) { return r }
            d.report(n, k, "\(r) is not a supported sample rate (\(sampleRates.map(String.init).joined(separator: ", ")))")
            return nil
        }, show: { v, _ in "\(v)" }),
        .whole("channels", \.channels, channelsRange, "1 (mono) or 2 (stereo)."),
        .bitrate("bitrate", \.bitrate, bitrateRange, "AAC bitrate (like 128k)."), LoudnessConfig.presetField,
    ]
}

extension StandbyConfig: PresetSection {
    static let presetDefault = StandbyConfig()

    static let fields: [PresetField<StandbyConfig>] = [
        PresetField(key: "image", type: "path or URL", doc: "Slate picture shown on standby (exclusive with color).",
                    decode: { d, at, c in
            if let n = at.node, !n.isNull, let text = d.string(n, at.key) { c.image = d.standbyResource(text, n, at.key) }
        }, write: { c, w in c.image.map { .scalar(w.quote(w.url($0))) } }),
        PresetField(key: "color", type: "color", range: "\"#RRGGBB\", \"#RGB\", black, white, red, green, blue, gray",
                    defaultText: "black", doc: "Plain picture shown on standby (quote it: an unquoted # starts a comment).",
                    decode: { d, at, c in
            guard let n = at.node else { return }
            if n.isNull {
                d.report(n, at.key, "color is empty (quote it: color: \"#101010\"; an unquoted # starts a comment)")
            } else if let text = d.string(n, at.key) {
                if let color = normaliseColor(text) { c.color = color } else {
                    d.report(n, at.key, "\"\(text.clipped())\" is not a color (\"#RRGGBB\", \"#RGB\", black, white, red, green, blue, gray)")
                }
                if at.fields["image"].map({ !$0.isNull }) == true {
                    d.report(n, at.key, "image and color are exclusive: give one of them")
                }
            }
        }, write: { c, w in c.image == nil ? .scalar(w.quote(c.color)) : nil }),
        PresetField(key: "audio", type: "path or URL", defaultText: "silence", doc: "Sound looped while on standby.",
                    decode: { d, at, c in
            if let n = at.node, !n.isNull, let text = d.string(n, at.key) { c.audio = d.standbyResource(text, n, at.key) }
        }, write: { c, w in c.audio.map { .scalar(w.quote(w.url($0))) } }),
    ]

    static func normaliseColor(_ text: String) -> String? {
        let names = ["black": "#000000", "white": "#FFFFFF", "red": "#FF0000", "green": "#00FF00",
                     "blue": "#0000FF", "gray": "#808080", "grey": "#808080"]
        let t = text.trimmingCharacters(in: .whitespaces)
        if let n = names[t.lowercased()] { return n }
        guard t.hasPrefix("#") else { return nil }
        let hex = t.dropFirst().uppercased()
        guard hex.allSatisfy({ $0.isHexDigit }) else { return nil }
        if hex.count == 6 { return "#" + hex }
        if hex.count == 3 { return "#" + hex.map { "\($0)\($0)" }.joined() }
        return nil
    }
}

extension ReconnectConfig: PresetSection {
    static let presetDefault = ReconnectConfig()

    static let fields: [PresetField<ReconnectConfig>] = [
        .duration("initial", \.initial, atLeast: "at least 100ms", "Wait before the first retry; doubled each time.") { d, n, k, v, _ in
            if v < 0.1 { d.report(n, k, "\(d.text(n)) is too short (at least 100ms)") }
        },
        .duration("max", \.max, atLeast: "at least initial", "Longest wait between retries.") { d, n, k, v, c in
            if v < c.initial {
                d.report(n, k, "\(d.text(n)) is shorter than reconnect.initial (\(MediaTime.formatDuration(c.initial)))")
            }
        },
        .scalar("give_up_after", \.giveUpAfter, type: "duration or never",
                doc: "An output failing this long is given up (failed); never retries for ever.", read: { d, n, k, _ in
            n.scalarValue?.lowercased() == "never" ? .infinity : d.duration(n, k, also: "or never")
        }, show: { v, _ in MediaTime.formatDuration(v) }),
        .duration("stall", \.stall, atLeast: "at least 1s", "A network output whose peer acknowledges nothing this long (an RTMP server: whose application reads nothing, though its TCP stack may still take data in) is reconnected, and a stage of an RTMP connect (TCP, the server's RTMP answer, its first acknowledgement) that gets no further this long fails; in a realtime run, a recording whose disk takes nothing this long fails.") { d, n, k, v, _ in
            if v < 1 { d.report(n, k, "\(d.text(n)) is too short (at least 1s)") }
        },
    ]
}

extension StopConfig: PresetSection {
    static let presetDefault = StopConfig()

    static let fields: [PresetField<StopConfig>] = [
        PresetField(key: "after", type: "duration", range: "more than 0s", defaultText: "none: no time limit",
                    doc: "Stop after this long.", decode: { d, at, c in
            guard let a = at.node, !a.isNull, let v = d.duration(a, at.key) else { return }
            if v <= 0 { d.report(a, at.key, "must be more than 0s") }
            c.after = v
        }, write: { c, _ in c.after.map { .scalar(MediaTime.formatDuration($0)) } }),
        .flag("at_end", \.atEnd, "Stop once every player has ended (a repeating source, a looping playlist or testsrc never ends; nor does a run with a programme)."),
    ]
}

extension EventsConfig: PresetSection {
    static let presetDefault = EventsConfig()

    static let fields: [PresetField<EventsConfig>] = [
        PresetField(key: "webhook", type: "http:// or https:// URL", doc: "Every event is POSTed here as JSON.",
                    decode: { d, at, c in
            guard let w = at.node, !w.isNull, let s = d.string(w, at.key) else { return }
            let sch = PathResolution.scheme(of: s)
            if (sch == "http" || sch == "https") && s.contains("://") && s.count > (sch!.count + 3) {
                c.webhook = s
            } else {
                d.report(w, at.key, "\"\(SecretMask.mask(webhook: s))\" is not an http:// or https:// URL")
            }
        }, write: { c, w in c.webhook.map { .scalar(w.quote(w.maskSecrets ? SecretMask.mask(webhook: $0) : $0)) } }),
    ]
}

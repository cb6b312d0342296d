import Foundation

extension Preset {
    /// The fully resolved preset as canonical YAML: every default written,
    /// paths absolute, playlists expanded to items, durations like `2s`/`500ms`,
    /// bitrates like `2500k`. With `maskSecrets` (the default) output URLs,
    /// sources and the webhook go through `SecretMask`. Reading it back with
    /// `PresetLoader.parse` gives this preset again (secrets aside).
    public func resolvedYAML(maskSecrets: Bool = true) -> String {
        ResolvedPresetWriter(maskSecrets: maskSecrets).write(self)
    }
}

struct ResolvedPresetWriter {
    var maskSecrets: Bool

    func write(_ p: Preset) -> String {
        var out: [String] = []
        func line(_ indent: Int, _ text: String) { out.append(String(repeating: "  ", count: indent) + text) }
        let d = MediaTime.formatDuration, b = MediaTime.formatBitrate

        line(0, "name: \(quote(p.name))")
        if let v = p.video {
            line(0, "video:")
            line(1, "size: \(v.width)x\(v.height)")
            line(1, "fps: \(v.fps)")
            line(1, "bitrate: \(b(v.bitrate))")
            line(1, "keyframe_interval: \(d(v.keyframeInterval))")
            line(1, "encoder: \(v.encoder.rawValue)")
            line(1, "encoder_preset: \(quote(v.encoderPreset))")
        }
        line(0, "audio:")
        line(1, "sample_rate: \(p.audio.sampleRate)")
        line(1, "channels: \(p.audio.channels)")
        line(1, "bitrate: \(b(p.audio.bitrate))")
        line(0, "players:")
        for pl in p.players {
            line(1, "- id: \(quote(pl.id))")
            if let s = pl.source { line(2, "source: \(quote(url(s)))") }
            if let list = pl.playlist {
                line(2, "playlist:")
                line(3, "mode: \(list.mode.rawValue)")
                line(3, "items:")
                for item in list.items { line(4, "- \(quote(url(item)))") }
            }
            line(2, "repeat: \(pl.repeat)")
            line(2, "video: \(pl.video)")
            line(2, "aux: \(pl.aux)")
            line(2, "publish_volume: \(pl.publishVolume)")
            line(2, "play_volume: \(pl.playVolume)")
            line(2, "mute_local: \(pl.muteLocal)")
            line(2, "speed: \(number(pl.speed))")
            line(2, "pitch: \(number(pl.pitch))")
            line(2, "start_at: \(d(pl.startAt))")
            line(2, "progress_interval: \(d(pl.progressInterval))")
            line(2, "memory: \(pl.memory)")
        }
        line(0, "standby:")
        if let image = p.standby.image {
            line(1, "image: \(quote(url(image)))")
        } else {
            line(1, "color: \(quote(p.standby.color))")
        }
        if let audio = p.standby.audio { line(1, "audio: \(quote(url(audio)))") }
        line(0, "publishing: \(p.publishing)")
        if p.outputs.isEmpty {
            line(0, "outputs: []")
        } else {
            line(0, "outputs:")
            for o in p.outputs {
                if let id = o.id {
                    line(1, "- id: \(quote(id))")
                    line(2, "url: \(quote(url(o.url)))")
                } else {
                    line(1, "- url: \(quote(url(o.url)))")
                }
            }
        }
        line(0, "reconnect:")
        line(1, "initial: \(d(p.reconnect.initial))")
        line(1, "max: \(d(p.reconnect.max))")
        line(1, "give_up_after: \(d(p.reconnect.giveUpAfter))")
        line(1, "stall: \(d(p.reconnect.stall))")
        line(0, "stop:")
        if let after = p.stop.after { line(1, "after: \(d(after))") }
        line(1, "at_end: \(p.stop.atEnd)")
        line(0, "monitor: \(p.monitor)")
        if let hook = p.events.webhook {
            line(0, "events:")
            line(1, "webhook: \(quote(maskSecrets ? SecretMask.mask(webhook: hook) : hook))")
        } else {
            line(0, "events: {}")
        }
        return out.joined(separator: "\n") + "\n"
    }

    private func url(_ s: String) -> String {
        maskSecrets ? SecretMask.mask(url: s) : s
    }

    private func number(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? "\(Int(x))" : "\(x)"
    }

    /// A YAML scalar for `s` that reads back as `s` through libyaml and `${}`
    /// interpolation: plain when unambiguous, else double-quoted; `$` doubled.
    func quote(_ raw: String) -> String {
        let s = EnvInterpolation.escape(raw)
        let safe: (Character) -> Bool = { c in
            c.isASCII && (c.isLetter || c.isNumber || "_./-:+@%=,".contains(c))
        }
        let reserved: Set<String> = ["true", "false", "yes", "no", "on", "off", "null", "~", "y", "n"]
        if let first = s.first, first.isASCII, first.isLetter || first.isNumber || first == "/" || first == "_",
           s.allSatisfy(safe), !s.contains(": "), !s.hasSuffix(":"),
           !reserved.contains(s.lowercased()), Double(s) == nil, Int(s) == nil {
            return s
        }
        var q = "\""
        for c in s.unicodeScalars {
            switch c {
            case "\"": q += "\\\""
            case "\\": q += "\\\\"
            case "\n": q += "\\n"
            case "\t": q += "\\t"
            case "\r": q += "\\r"
            default:
                if c.value < 0x20 || c.value == 0x7F {
                    q += String(format: "\\x%02X", c.value)
                } else {
                    q.unicodeScalars.append(c)
                }
            }
        }
        return q + "\""
    }
}

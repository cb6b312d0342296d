import Foundation

// The fields of a live feed, `live:` (docs/presets.md, live), in the order they are
// read, written and documented.

extension LiveFeedConfig: PresetSection {
    /// The preset's `live:` key: a feed that takes the output over while it delivers.
    static let presetField = PresetField<Preset>(key: "live", type: "section", defaultText: "none: no live feed",
                                                 doc: "A live feed that takes over the output while it delivers (see live).",
                                                 schema: LiveFeedConfig.schema, decode: { d, at, c in
        guard let n = at.node, !n.isNull else { return }
        var live = LiveFeedConfig()
        d.decodeSection(n, at.key, into: &live)
        c.live = live
    }, write: { c, w in c.live.map { .lines(w.lines($0)) } })

    static let presetDefault = LiveFeedConfig()

    /// The longest `takeover_after`, `release_after` and `fade`.
    static let waitRange: ClosedRange<TimeInterval> = 0...3600
    static let fadeRange: ClosedRange<TimeInterval> = 0...5

    static let fields: [PresetField<LiveFeedConfig>] = [
        PresetField(key: "source", type: "URL", range: "srt:// (listener or caller), rtmp://, rtmps://, an http(s):// .m3u8",
                    defaultText: "required", doc: "The feed; an SRT passphrase takes 10 to 79 characters and is never shown.",
                    decode: { d, at, c in
            guard let n = at.node, !n.isNull else {
                d.report(at.node ?? at.section, at.key, "a live feed needs a source (srt://:9001?mode=listener)")
                return
            }
            guard let s = d.string(n, at.key, expected: "a URL") else { return }
            if let why = LiveFeedConfig.refusal(of: s) { d.report(n, at.key, why) } else { c.source = s }
        }, write: { c, w in .scalar(w.quote(w.url(c.source))) }),
        .duration("takeover_after", \.takeoverAfter, waitRange, "The feed delivers this long before it goes on air."),
        .duration("release_after", \.releaseAfter, waitRange,
                  "Nothing from the feed this long and the programme comes back; a shorter drop-out holds the last live picture, with silence."),
        .choice("programme", \.programme, LiveFeedConfig.Programme.allCases.map { ($0.rawValue, $0) },
                "While the feed is on air: continue plays the programme on, unheard; pause pauses its players and resumes them where they were."),
        .duration("fade", \.fade, fadeRange, "The audio fade at each switch."),
    ]
}

import Foundation

// The fields of an overlay, `overlays:` (docs/presets.md, overlays), in the order they
// are read, written and documented. What needs the picture's size (a position off the
// picture, a logo wider than it) is checked once the item is read (`decodeOverlays`).

extension OverlayConfig: PresetSection {
    /// The preset's `overlays:` key; read after `video` and `players` (a template names players).
    static let presetField = PresetField<Preset>(key: "overlays", type: "list of overlays", defaultText: "none",
                                                 doc: "Logos and texts drawn on the output picture (see overlays).",
                                                 schema: .list(OverlayConfig.schema, byID: true), decode: { d, at, c in
        guard let n = at.node, !n.isNull else { return }
        c.overlays = d.decodeOverlays(n, video: c.video)
    }, write: { c, w in c.overlays.isEmpty ? nil : .lines(c.overlays.flatMap { w.listItem(w.lines($0)) }) })

    static let presetDefault = OverlayConfig()

    static let marginRange = 0...2000

    static let fields: [PresetField<OverlayConfig>] = [
        PresetField(key: "id", type: "name", range: "letters, digits, '_', '-'", defaultText: "required",
                    doc: "The overlay's name in `ctl overlay` and status.", decode: { d, at, c in
            guard let n = at.node, !n.isNull else {
                d.report(at.node ?? at.section, at.key, "an overlay needs an id (id: logo)")
                return
            }
            guard let s = d.string(n, at.key) else { return }
            if d.isName(s, extra: "") { c.id = s } else {
                d.report(n, at.key, "\"\(s.clipped())\" is not a valid id (letters, digits, '_', '-')")
            }
        }, write: { c, w in .scalar(w.quote(c.id)) }),
        PresetField(key: "image", type: "path", range: "a PNG or JPEG file", defaultText: "none",
                    doc: "A logo: the picture drawn (give image or text).", decode: { d, at, c in
            guard let n = at.node, !n.isNull, let text = d.string(n, at.key),
                  let path = d.localFile(text, n, at.key, want: .file) else { return }
            // Its placement and its decoding are checked once the overlay is read (decodeOverlays).
            switch ImageFile.load(path) {
            case .success: c.image = path
            case .failure(let why): d.report(n, at.key, why.message)
            }
        }, write: { c, w in c.image.map { .scalar(w.quote($0)) } }),
        PresetField(key: "text", type: "text", range: "{player.ID.title}, {block}, {clock:%H:%M} (see overlays)",
                    defaultText: "none", doc: "A text: its template, fields in braces, a field without a value empty "
                        + "(give image or text).", decode: { d, at, c in
            if let n = at.node, !n.isNull, let text = d.string(n, at.key) {
                switch OverlayTemplate.parse(text, players: d.playerIDs.sorted { $0.value < $1.value }.map(\.key)) {
                case .success: c.text = text
                case .failure(let why): d.report(n, at.key, why.message)
                }
            }
            let image = at.fields["image"].map { !$0.isNull } == true
            if image, let n = at.node, !n.isNull { d.report(n, at.key, "image and text are exclusive: give one of them") }
            if !image, at.node?.isNull ?? true { d.report(at.section, at.key, "an overlay needs an image or a text") }
        }, write: { c, w in c.text.map { .scalar(w.quote($0)) } }),
        PresetField(key: "markup", type: "true or false", defaultText: "false",
                    doc: "A text's own words are Pango markup (<b>, <span …>); its fields' values never are.", decode: { d, at, c in
            guard let n = at.node, !n.isNull, let v = d.bool(n, at.key) else { return }
            if at.fields["text"] == nil { d.report(n, at.key, "markup is only for a text"); return }
            c.markup = v
        }, write: { c, _ in c.text == nil ? nil : .scalar("\(c.markup)") }),
        .choice("position", \.position, Anchor.allCases.map { ($0.rawValue, $0) },
                "Where the overlay is placed, `margin` from the edges it is against (or give x and y)."),
        .length("x", \.x, "The overlay's left edge, from the picture's left (instead of position)."),
        .length("y", \.y, "The overlay's top edge, from the picture's top (instead of position)."),
        .whole("margin", \.margin, marginRange, "Pixels between the overlay and the edges of its position."),
        .length("width", \.width, "A logo's width (its height keeps its aspect); none: its own size.", imageOnly: true),
        .whole("opacity", \.opacity, 0...100, percent: true, "How opaque the overlay is."),
        .textOnly("font", type: "Pango font", range: "family, style, size", defaultText: "Sans 24",
                  doc: "The text's font: an installed family (fc-list), Sans, Serif or Monospace.",
                  set: { $0.font = $1 }, get: { $0.font }) { d, n, k, s in
            if let why = OverlayFont.refusal(of: s) { d.report(n, k, why); return nil }
            return s
        },
        .color("color", \.color, defaultText: "#FFFFFF", "The text's color."),
        .color("outline", \.outline, defaultText: "none", "An outline around the text's letters."),
        .color("box", \.box, defaultText: "none",
               "A darker box under the text, 6 pixels wider on each side: its luma lowered by this color's alpha (#00000080); not with outline."),
        .flag("on_standby", \.onStandby, "Drawn over the standby slate too."),
    ]
}

extension PresetField where Config == OverlayConfig {
    static func length(_ key: String, _ kp: Path<OverlayConfig.Length?>, _ doc: String, imageOnly: Bool = false) -> Self {
        PresetField(key: key, type: "length", range: "pixels (20) or % (10%)", defaultText: "none", doc: doc, decode: { d, at, c in
            guard let n = at.node, !n.isNull, let s = d.scalar(n, at.key, expected: "a length") else { return }
            if imageOnly, at.fields["image"] == nil { d.report(n, at.key, "\(key) is only for an image"); return }
            if let v = OverlayConfig.Length.parse(s) { c[keyPath: kp] = v } else {
                d.report(n, at.key, "\"\(d.text(n))\" is not pixels (20) or % (10%)")
            }
        }, write: { c, _ in c[keyPath: kp].map { .scalar($0.text) } })
    }

    static func color(_ key: String, _ kp: Path<String>, defaultText: String, _ doc: String) -> Self {
        color(key, defaultText: defaultText, doc, set: { $0[keyPath: kp] = $1 }, get: { $0[keyPath: kp] })
    }

    static func color(_ key: String, _ kp: Path<String?>, defaultText: String, _ doc: String) -> Self {
        color(key, defaultText: defaultText, doc, set: { $0[keyPath: kp] = $1 }, get: { $0[keyPath: kp] })
    }

    private static func color(_ key: String, defaultText: String, _ doc: String,
                              set: @escaping @Sendable (inout OverlayConfig, String) -> Void,
                              get: @escaping @Sendable (OverlayConfig) -> String?) -> Self {
        textOnly(key, type: "color", range: "\"#RRGGBB\" or \"#RRGGBBAA\"", defaultText: defaultText, doc: doc,
                 set: set, get: get) { d, n, k, s in
            guard OverlayConfig.argb(s) != nil else {
                d.report(n, k, "\"\(s.clipped())\" is not a color (\"#RRGGBB\" or \"#RRGGBBAA\"; quote it)")
                return nil
            }
            return s.uppercased()
        }
    }

    /// A text's key, refused on an image.
    static func textOnly(_ key: String, type: String, range: String, defaultText: String, doc: String,
                                 set: @escaping @Sendable (inout OverlayConfig, String) -> Void,
                                 get: @escaping @Sendable (OverlayConfig) -> String?,
                                 read: @escaping @Sendable (inout PresetDecoder, YAMLNode, String, String) -> String?) -> Self {
        PresetField(key: key, type: type, range: range, defaultText: defaultText, doc: doc, decode: { d, at, c in
            guard let n = at.node, !n.isNull, let s = d.string(n, at.key) else { return }
            if at.fields["text"] == nil { d.report(n, at.key, "\(key) is only for a text"); return }
            if key == "box", at.fields["outline"].map({ !$0.isNull }) == true {
                d.report(n, at.key, "box and outline are exclusive: give one of them")
                return
            }
            if let v = read(&d, n, at.key, s) { set(&c, v) }
        }, write: { c, w in c.text == nil ? nil : get(c).map { .scalar(w.quote($0)) } })
    }
}

extension PresetDecoder {
    /// The overlays, each read through its fields, then placed on the picture: one that
    /// would fall off it is refused at the key that places it, and a logo's image is
    /// decoded whole at the size it is drawn (a damaged one is refused here, not on air).
    mutating func decodeOverlays(_ node: YAMLNode, video: VideoConfig?) -> [OverlayConfig] {
        guard let items = node.items else {
            report(node, "overlays", "expected a list of overlays, got \(node.kindName)")
            return []
        }
        guard let video else {
            if !items.isEmpty { report(node, "overlays", "overlays are drawn on the picture: add a video section") }
            return []
        }
        var overlays: [OverlayConfig] = []
        var ids: Set<String> = []
        for (i, item) in items.enumerated() {
            var overlay = OverlayConfig()
            let path = "overlays[\(i)]"
            decodeSection(item, path, into: &overlay, index: i, count: items.count)
            let fields = Dictionary(item.pairs?.compactMap { p in p.key.scalarValue.map { ($0, p.value) } } ?? [],
                                    uniquingKeysWith: { a, _ in a })
            if !overlay.id.isEmpty, !ids.insert(overlay.id).inserted {
                report(fields["id"] ?? item, "\(path).id", "another overlay is \(overlay.id) already")
            }
            if overlay.markup, let text = overlay.text,
               let why = (try? OverlayTemplate.parse(text, players: playerIDs.map(\.key)).get())?.markupRefusal {
                report(fields["text"] ?? item, "\(path).text", why.message)
            }
            if let why = OverlayPlacement.refusal(overlay, width: video.width, height: video.height) {
                report(fields[why.key] ?? item, "\(path).\(why.key)", why.message)
            } else if let image = overlay.image,
                      case .failure(let why) = LogoPixels.load(overlay, path: image, width: video.width, height: video.height) {
                report(fields[why.key] ?? item, "\(path).\(why.key)", why.message)
            }
            overlays.append(overlay)
        }
        return overlays
    }
}

import Foundation
import Synchronization

/// The overlays drawn on the output picture (docs/presets.md, overlays): one GStreamer
/// element each between the encoder's video appsrc and its H.264 encoder (an `identity`
/// whose probe blends a logo, LogoPicture.swift, or a text rendered when it changes,
/// TextPicture.swift; a `textoverlay` for a text with a box), so the frame taps, taken
/// before, stay clean.
/// The pipeline is never rebuilt for them: `tick`, on the timeline thread before each
/// picture is pushed, works out what changed (a text, shown or hidden, opacity, a new
/// image) and queues it for that picture; a probe on the first overlay's sink pad sets it
/// as the elements' properties on the streaming thread just before that picture reaches
/// them, so a change is drawn from its own frame exactly (pictures queued in the appsrc
/// before it keep what they had). `ctl overlay` only changes what the next tick works out.
final class OverlayChain: Sendable {
    /// One overlay's settings now.
    struct Item: Sendable {
        var config: OverlayConfig
        var template: OverlayTemplate?
        /// A logo's image, decoded at its size on the picture (at the start, or by `ctl overlay
        /// set image=` before it is taken: never by a tick), and its blend at its place and opacity.
        var logo: LogoPixels?
        var picture: BlendPicture?
        /// Counts the changes of `picture`, so a tick sets it once per change.
        var logoVersion = 0
        /// `ctl overlay show|hide`.
        var visible = true
        /// A `ctl overlay` change the next tick draws and tells ("shown", "hidden", "set").
        var notice: String?
        /// The output tick from which its settings are drawn (nil: from the start).
        var since: UInt64?
    }

    /// What was last set on an overlay's element (only `tick` reads and writes it).
    private struct Applied {
        var shown: Bool?
        var text: String?
        /// The logo's `logoVersion` set.
        var logoVersion: Int?
        /// What the colors were worked out from (a text's colors are set only when it changes).
        var colorSource: ColorSource?
    }

    private struct ColorSource: Equatable {
        var color: String, outline: String?, opacity: Int
    }

    /// What the texts need each tick (worked out again only when `ctl overlay` changes one).
    typealias Needs = (players: Set<String>, block: Bool, clock: Bool)

    typealias Op = (Element, @Sendable (Element) -> Void)

    private struct State {
        var items: [Item]
        var applied: [Applied]
        var elements: [Element?] = []
        /// Each logo's and text's blend (nil for a text with a box).
        var logos: [LogoBlend?] = []
        /// Each text's renderer (nil for a logo, and for a text with a box: its textoverlay draws it).
        var texts: [TextPicture?] = []
        var needs: Needs
        /// What to set before the picture of each PTS (ns) reaches the overlays, oldest first:
        /// properties, and the texts rendered for it (PendingText).
        var pending: [(pts: UInt64, ops: [Op], texts: [PendingText])] = []
    }

    /// Pending pictures' changes kept at most (a stuck encoder holds the capture long before).
    static let pendingLimit = 64

    /// How long the overlays' probe waits, on the encoder's streaming thread, for a text
    /// rendered for the frame that reaches it (PendingText).
    static let textWait: TimeInterval = 0.5

    /// Where texts are rendered (TextPicture), one at a time, off the output's timeline.
    let textQueue = DispatchQueue(label: "overlay-text")

    let width: Int
    let height: Int
    private let state: Mutex<State>

    /// nil when `overlays` is empty: the encoder is then exactly as without them.
    init?(_ overlays: [OverlayConfig], width: Int, height: Int, players: [String]) {
        guard !overlays.isEmpty else { return nil }
        self.width = width
        self.height = height
        let items = overlays.map { o in
            Item(config: o, template: o.text.flatMap { try? OverlayTemplate.parse($0, players: players).get() })
        }
        state = Mutex(State(items: items, applied: items.map { _ in Applied() }, needs: Self.needs(of: items)))
    }

    static func elementName(_ id: String) -> String { "video-overlay-\(id)" }

    /// The elements, each followed by `!`, to put between the appsrc and the encoder.
    var description: String {
        state.withLock { s in
            s.items.map { item in
                let name = Self.elementName(item.config.id)
                // A logo, and a text without a box (TextPicture), drawn by its probe (LogoBlend) from the first tick on.
                guard item.config.text != nil, item.config.box != nil else { return "identity name=\(name) silent=true ! " }
                return "textoverlay name=\(name) silent=true " + Self.textProperties(item.config, width: width, height: height) + "! "
            }.joined()
        }
    }

    /// A textoverlay's placement, font and outline (and box) for `o` on a `width`×`height` picture.
    static func textProperties(_ o: OverlayConfig, width: Int, height: Int) -> String {
        var d = "wait-text=false auto-resize=false text=\"\" font-desc=\(GStreamer.quote(o.font)) draw-shadow=false "
        if let x = o.x, let y = o.y {
            // The text's top-left corner, in pixels: left and top alignment, padded.
            d += "halignment=left valignment=top xpad=\(x.pixels(of: width)) ypad=\(y.pixels(of: height)) "
        } else {
            // A text too wide for the picture wraps; its lines keep to the same side.
            d += "halignment=\(["left", "center", "right"][o.position.column]) "
                + "line-alignment=\(["left", "center", "right"][o.position.column]) "
                + "valignment=\(["top", "center", "bottom"][o.position.row]) xpad=\(o.margin) ypad=\(o.margin) "
        }
        if let box = o.box.flatMap(OverlayConfig.argb) {
            d += "shaded-background=true shading-value=\(box >> 24) "
        }
        d += "draw-outline=\(o.outline != nil) "
        return d
    }

    /// Finds the elements in the encoder's pipeline (once it is made).
    func bind(_ pipeline: Pipeline) throws {
        let elements = state.withLock { $0.items.map { pipeline.element(named: Self.elementName($0.config.id)) } }
        if let missing = elements.firstIndex(where: { $0 == nil }) {
            throw MediaPubError.pipeline("encoder: overlay \(state.withLock { $0.items[missing].config.id }) has no element")
        }
        state.withLock { $0.elements = elements }
        // textoverlay's picture comes in on video_sink, a logo's identity's on sink.
        guard let element = elements.first ?? nil, let first = element.staticPad("video_sink") ?? element.staticPad("sink") else {
            throw MediaPubError.pipeline("encoder: the first overlay has no sink pad")
        }
        Probes.onBuffer(first) { [weak self] pts in self?.apply(upTo: pts) }
        // The logos' images, decoded and scaled once, the texts' renderers; each probe after the one above.
        var items = state.withLock { $0.items }
        var logos: [LogoBlend?] = [], texts: [TextPicture?] = []
        for (i, element) in elements.enumerated() {
            let o = items[i].config
            guard o.text == nil || o.box == nil, let pad = element?.staticPad("sink") else {
                logos.append(nil); texts.append(nil); continue
            }
            if let path = o.image {
                switch LogoPixels.load(o, path: path, width: width, height: height) {
                case .success(let logo): items[i].setLogo(logo, width: width, height: height)
                case .failure(let why): throw MediaPubError.pipeline("overlay \(o.id): \(why.key): \(why.message)")
                }
                texts.append(nil)
            } else {
                texts.append(try TextPicture(properties: Self.textProperties(o, width: width, height: height), width: width, height: height))
            }
            let blend = LogoBlend(width: width, height: height)
            blend.install(on: pad)
            logos.append(blend)
        }
        state.withLock { s in
            for i in s.items.indices where s.items[i].logoVersion == 0 {
                (s.items[i].logo, s.items[i].picture, s.items[i].logoVersion) = (items[i].logo, items[i].picture, items[i].logoVersion)
            }
            s.logos = logos; s.texts = texts
        }
    }

    /// On the streaming thread, before the picture of `pts` reaches the overlays: sets what
    /// was queued for it and for the pictures before it (nil: everything queued).
    private func apply(upTo pts: UInt64?) {
        let (due, texts) = state.withLock { s -> ([Op], [PendingText]) in
            guard let first = s.pending.first, pts.map({ first.pts <= $0 }) ?? true else { return ([], []) }
            let count = pts.map { p in s.pending.firstIndex { $0.pts > p } ?? s.pending.count } ?? s.pending.count
            let due = s.pending.prefix(count)
            s.pending.removeFirst(count)
            return (due.flatMap(\.ops), due.flatMap(\.texts))
        }
        for (element, op) in due { op(element) }
        for text in texts { text.frameArrives(waiting: Self.textWait) }
    }

    /// What the texts need this tick: players' tags, the block, the clock.
    var needs: Needs { state.withLock { $0.needs } }

    private static func needs(of items: [Item]) -> Needs {
        let templates = items.filter(\.visible).compactMap(\.template)
        return (templates.reduce(into: Set<String>()) { $0.formUnion($1.players) },
                templates.contains(where: \.needsBlock), templates.contains(where: \.needsClock))
    }

    /// On the timeline thread, before the tick's picture is pushed: sets on the elements
    /// what changed. `standby`: the picture is the standby slate.
    /// `pts`: the tick's picture's (ns). Returns the `ctl overlay` changes drawn from this
    /// tick on: (id, what changed).
    func tick(_ n: UInt64, pts: UInt64, standby: Bool, values: OverlayTemplate.Values) -> [(id: String, change: String)] {
        let (ops, renders, notices) = state.withLock { s -> ([Op], [TextRender], [(id: String, change: String)]) in
            guard s.elements.count == s.items.count, s.logos.count == s.items.count else { return ([], [], []) }
            var ops: [Op] = [], renders: [TextRender] = []
            var notices: [(id: String, change: String)] = []
            for i in s.items.indices {
                guard let element = s.elements[i] else { continue }
                if let notice = s.items[i].notice {
                    notices.append((s.items[i].config.id, notice))
                    s.items[i].notice = nil
                    s.items[i].since = n
                }
                let item = s.items[i]
                let o = item.config
                let shown = item.visible && (!standby || o.onStandby)
                var a = s.applied[i]
                if let template = item.template, let renderer = s.texts[i], let blend = s.logos[i] {
                    // Rendered again (outside the lock, below) only when its text, colours or showing change.
                    let text = shown ? template.render(values, markup: o.markup) : (a.text ?? "")
                    let source = ColorSource(color: o.color, outline: o.outline, opacity: o.opacity)
                    if text != a.text || source != a.colorSource || shown != a.shown {
                        (a.text, a.colorSource, a.shown) = (text, source, shown)
                        let colors = (Self.faded(o.color, o.opacity), o.outline.map { Self.faded($0, o.opacity) } ?? 0)
                        renders.append(TextRender(element: element, blend: blend, renderer: renderer, text: shown ? text : "",
                                                  color: colors.0, outline: colors.1))
                    }
                } else if let template = item.template {
                    let text = shown ? template.render(values, markup: o.markup) : (a.text ?? "")
                    if text != a.text { a.text = text; ops.append((element, { $0.set("text", string: text) })) }
                    let source = ColorSource(color: o.color, outline: o.outline, opacity: o.opacity)
                    if a.colorSource != source {
                        a.colorSource = source
                        let colors = (Self.faded(o.color, o.opacity), o.outline.map { Self.faded($0, o.opacity) } ?? 0)
                        ops.append((element, { $0.set("color", uint: colors.0); $0.set("outline-color", uint: colors.1) }))
                    }
                    if shown != a.shown { a.shown = shown; ops.append((element, { $0.set("silent", bool: !shown) })) }
                } else if item.logo != nil, let blend = s.logos[i] {
                    // Set again only when its image or opacity changes (`ctl overlay set`, which
                    // decodes and blends it beforehand) or it is shown or hidden.
                    if item.logoVersion != a.logoVersion || shown != a.shown {
                        a.logoVersion = item.logoVersion
                        let picture = shown ? item.picture : nil
                        ops.append((element, { _ in blend.set(picture) }))
                    }
                    a.shown = shown
                }
                s.applied[i] = a
            }
            return (ops, renders, notices)
        }
        // Rendered on the text queue, never here: the frame waits for its text (PendingText), not the timeline.
        let texts = renders.map { r in
            let text = PendingText { [blend = r.blend] in blend.set($0) }
            textQueue.async { text.rendered(r.renderer.render(r.text, color: r.color, outline: r.outline, frame: n)) }
            return text
        }
        let overflow = state.withLock { s -> (ops: [Op], texts: [PendingText]) in
            if !ops.isEmpty || !texts.isEmpty { s.pending.append((pts, ops, texts)) }
            // Pictures that never reach the overlays (dropped before the encoder) do not pile up.
            guard s.pending.count > Self.pendingLimit else { return ([], []) }
            let oldest = s.pending.removeFirst()
            return (oldest.ops, oldest.texts)
        }
        for (element, op) in overflow.ops { op(element) }
        for text in overflow.texts { text.frameArrives(waiting: 0) }
        return notices
    }

    /// A text to render again this tick (TextPicture), on the text queue.
    private struct TextRender {
        let element: Element, blend: LogoBlend, renderer: TextPicture
        let text: String, color: UInt32, outline: UInt32
    }

    /// `#RRGGBB[AA]` as ARGB with its alpha times `opacity` %.
    static func faded(_ color: String, _ opacity: Int) -> UInt32 {
        let argb = OverlayConfig.argb(color) ?? 0xFFFF_FFFF
        let alpha = UInt32((Double(argb >> 24) * Double(min(100, max(0, opacity))) / 100).rounded())
        return (argb & 0x00FF_FFFF) | (alpha << 24)
    }

    // MARK: ctl overlay

    var items: [Item] { state.withLock { $0.items } }

    /// Changes overlay `id` (`change` may throw to refuse it, changing nothing). `change`
    /// runs holding the chain's lock, which every tick takes: it only assigns (an image is
    /// read and decoded, and a logo blended, before it).
    func update(_ id: String, _ change: (inout Item) throws -> Void) throws {
        try state.withLock { s in
            guard let i = s.items.firstIndex(where: { $0.config.id == id }) else {
                throw ControlFailure("overlay: no overlay \"\(id.clipped())\" (\(s.items.map(\.config.id).joined(separator: ", ")))")
            }
            var item = s.items[i]
            try change(&item)
            s.items[i] = item
            s.needs = Self.needs(of: s.items)
        }
    }
}

extension OverlayChain.Item {
    /// Takes `logo` (decoded for this item's placement) and blends it at its place and opacity
    /// on a `width`×`height` picture; drawn from the next tick on.
    mutating func setLogo(_ logo: LogoPixels, width: Int, height: Int) {
        let rect = OverlayPlacement.logo(config, image: logo.imageSize, width: width, height: height)
        self.logo = logo
        picture = config.opacity > 0 && logo.width == rect.width && logo.height == rect.height
            ? BlendPicture(logo, x: rect.x, y: rect.y, opacity: config.opacity) : nil
        logoVersion += 1
    }
}

import Foundation

/// A run with overlays (docs/presets.md, overlays): what the timeline tells them before
/// each picture, `ctl overlay`, and what `status` shows of them.
extension Broadcast {
    /// The run's overlays; none when no output takes pictures (all take sound only), which a
    /// warning says at start (docs/presets.md, overlays).
    static func overlayFeed(_ preset: Preset, outputs: [OutputConfig], format: MediaFormat, reporter: Reporter) -> OverlayFeed? {
        guard outputs.contains(where: \.url.target.carriesVideo) else {
            if !preset.overlays.isEmpty, preset.video != nil { reporter.report(.warning(Self.undrawnOverlays)) }
            return nil
        }
        return OverlayFeed.make(preset, format: format)
    }

    /// Why a run whose outputs take sound only draws no overlay.
    static let undrawnOverlays = "overlays: no output of this run takes pictures (each takes sound only): no overlay is drawn"

    /// The capture's hook before each picture (nil without overlays: nothing is called).
    func overlayHook() -> (@Sendable (UInt64, Bool) -> Void)? {
        guard let feed = overlays else { return nil }
        return { [weak self] n, standby in
            guard let self else { return }
            let changes = feed.tick(n, standby: standby, players: self.players, programme: self.programmeRunner)
            let ms = Int(n * 1000 / UInt64(max(1, feed.tickRate)))
            for change in changes { self.reporter.report(.overlay(name: change.id, state: change.change, outputMs: ms)) }
        }
    }

    /// `ctl overlay show|hide|set` (docs/control.md): drawn from the next picture on,
    /// without touching the encoding pipeline or the outputs.
    func overlay(_ request: OverlayRequest) throws {
        guard let feed = overlays else {
            throw ControlFailure(preset.overlays.isEmpty ? "overlay: this run has no overlays (overlays:)" : Self.undrawnOverlays)
        }
        let chain = feed.chain
        // A new image, or a logo's new opacity, is read, decoded and blended here, on the
        // control's queue, holding no lock a tick takes: the tick only swaps it in.
        let logo = try Self.logoChange(request, chain: chain, base: preset.baseDirectory)
        try chain.update(request.id) { item in
            switch request.action {
            case .show: item.visible = true; item.notice = "shown"
            case .hide: item.visible = false; item.notice = "hidden"
            case .set(let text, let image, let opacity):
                if let text {
                    guard item.config.text != nil else { throw ControlFailure("overlay set: \(request.id) is a logo, not a text") }
                    switch OverlayTemplate.parse(text, players: players.map(\.id)) {
                    case .success(let template):
                        if item.config.markup, let why = template.markupRefusal { throw ControlFailure("overlay set: text: \(why.message)") }
                        item.template = template; item.config.text = text
                    case .failure(let why): throw ControlFailure("overlay set: text: \(why.message)")
                    }
                }
                if image != nil, item.config.image == nil { throw ControlFailure("overlay set: \(request.id) is a text, not a logo") }
                if let opacity { item.config.opacity = opacity }
                if let logo {
                    item.config = logo.config
                    (item.logo, item.picture, item.logoVersion) = (logo.item.logo, logo.item.picture, item.logoVersion + 1)
                }
                item.notice = "set"
            }
        }
    }

    /// A logo's new image or opacity of `request`, decoded and blended for the item as it
    /// will be (nil when neither changes, or the overlay is a text); throws what is wrong
    /// with the image (a FIFO, too many pixels, damaged: docs/control.md).
    private static func logoChange(_ request: OverlayRequest, chain: OverlayChain, base: String) throws -> (config: OverlayConfig, item: OverlayChain.Item)? {
        guard case .set(_, let image, let opacity) = request.action, image != nil || opacity != nil,
              var item = chain.items.first(where: { $0.config.id == request.id }), let current = item.logo,
              item.config.image != nil else { return nil }
        if let opacity { item.config.opacity = opacity }
        var logo = current
        if let image {
            let path = PathResolution.absolutePath(PathResolution.localPath(of: image) ?? image, base: base)
            switch LogoPixels.load(item.config, path: path, width: chain.width, height: chain.height) {
            case .success(let decoded): logo = decoded
            case .failure(let why): throw ControlFailure("overlay set: \(why.key): \(why.message)")
            }
            item.config.image = path
        }
        item.setLogo(logo, width: chain.width, height: chain.height)
        return (item.config, item)
    }

    /// `status`'s `overlays`; nil without any.
    func overlayStatus() -> [OverlayStatus]? { overlays?.status }
}

import Foundation

/// A run with overlays (docs/presets.md, overlays): what the timeline tells them before
/// each picture, `ctl overlay`, and what `status` shows of them.
extension Broadcast {
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
        guard let feed = overlays else { throw ControlFailure("overlay: this run has no overlays (overlays:)") }
        let chain = feed.chain
        try chain.update(request.id) { item in
            switch request.action {
            case .show: item.visible = true; item.notice = "shown"
            case .hide: item.visible = false; item.notice = "hidden"
            case .set(let text, let image, let opacity):
                if let text {
                    guard item.config.text != nil else { throw ControlFailure("overlay set: \(request.id) is a logo, not a text") }
                    switch OverlayTemplate.parse(text, players: players.map(\.id)) {
                    case .success(let template): item.template = template; item.config.text = text
                    case .failure(let why): throw ControlFailure("overlay set: text: \(why.message)")
                    }
                }
                if let image {
                    guard item.config.image != nil else { throw ControlFailure("overlay set: \(request.id) is a text, not a logo") }
                    let path = PathResolution.absolutePath(PathResolution.localPath(of: image) ?? image, base: preset.baseDirectory)
                    guard let size = ImageSize.of(file: path) else {
                        throw ControlFailure("overlay set: image: \(path) is not a PNG or JPEG picture that can be read")
                    }
                    var placed = item.config
                    placed.image = path
                    if let why = OverlayPlacement.refusal(placed, width: chain.width, height: chain.height) {
                        throw ControlFailure("overlay set: image: \(why.message)")
                    }
                    item.config.image = path
                    item.imageSize = size
                }
                if let opacity { item.config.opacity = opacity }
                item.notice = "set"
            }
        }
    }

    /// `status`'s `overlays`; nil without any.
    func overlayStatus() -> [OverlayStatus]? { overlays?.status }
}

import Foundation

/// A run with checks of its output (docs/presets.md, monitor): dead air, a black or a
/// frozen picture, said as `alert` and `cleared` events.
extension Broadcast {
    /// The checks of the preset's `monitor:`; nil without one.
    func contentWatch() -> ContentWatch? {
        ContentWatch(preset.monitoring, format: format, players: players, liveFeedSource: preset.live.map { SecretMask.mask(url: $0.source) }) {
            [reporter] event in reporter.report(event)
        }
    }
}

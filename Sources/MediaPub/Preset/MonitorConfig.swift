import Foundation

/// `monitor:` (docs/presets.md, monitor): the local sound device, and the checks of
/// what goes out, dead air and a dead picture. `monitor: true|false` is `local` alone.
public struct MonitorConfig: Equatable, Sendable {
    /// Play the mix on the local sound device.
    public var local: Bool
    /// The dead-air check of the output mix; nil: none.
    public var silence: SilenceCheck?
    /// The black and frozen checks of the output picture; nil: none.
    public var picture: PictureCheck?

    public init(local: Bool = false, silence: SilenceCheck? = nil, picture: PictureCheck? = nil) {
        self.local = local
        self.silence = silence
        self.picture = picture
    }

    /// Only the local device: written back as `monitor: true|false`.
    var isLocalOnly: Bool { silence == nil && picture == nil }
}

/// What a run does when a check raises an alert.
public enum AlertAction: String, Equatable, Sendable, Codable, CaseIterable {
    /// The events only.
    case alert
    /// The standby slate and sound go out until the content recovers.
    case standby
    /// The player's next item.
    case next
}

/// `monitor.silence`: the mix below `below` for `duration` is dead air.
public struct SilenceCheck: Equatable, Sendable {
    /// dBFS: the mix's peak in a tick below this is silent.
    public var below: Double
    /// How long it must be silent before the alert (`for`).
    public var duration: TimeInterval
    public var action: AlertAction

    public init(below: Double = -50, duration: TimeInterval = 10, action: AlertAction = .alert) {
        self.below = below
        self.duration = duration
        self.action = action
    }
}

/// `monitor.picture`: black or still this long is a dead picture; nil turns a check off.
public struct PictureCheck: Equatable, Sendable {
    public var black: TimeInterval?
    public var frozen: TimeInterval?
    public var action: AlertAction

    public init(black: TimeInterval? = 10, frozen: TimeInterval? = 10, action: AlertAction = .alert) {
        self.black = black
        self.frozen = frozen
        self.action = action
    }
}

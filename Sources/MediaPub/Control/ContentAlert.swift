import Foundation

/// What a check of `monitor:` found (docs/events.md, `alert` and `cleared`; docs/presets.md,
/// monitor): the same fields for dead air, a black and a frozen picture.
public struct ContentAlert: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case silence, black, frozen
    }

    public var kind: Kind
    /// The player whose item it is (the sounding one for silence, the video player's for a picture), and its item (masked).
    public var player: String
    public var source: String
    public var action: AlertAction
    /// When the silence, the black or the still picture began: in output time, and on the wall clock.
    public var beganMs: Int
    public var beganAt: String
    /// Output time of the event: when the alert was raised, or when sound or motion returned.
    public var outputMs: Int

    enum CodingKeys: String, CodingKey, CaseIterable {
        case kind, player, source, action
        case beganMs = "began_ms"
        case beganAt = "began_at"
        case outputMs = "output_ms"
    }
}

/// `status`'s `alerts` (docs/status.md), when the preset has a check: the alerts raised
/// so far by kind, and those in progress.
public struct AlertStatus: Codable, Sendable, Equatable {
    public var silence = 0
    public var black = 0
    public var frozen = 0
    public var active: [ContentAlert] = []

    func count(_ kind: ContentAlert.Kind) -> Int {
        switch kind {
        case .silence: silence
        case .black: black
        case .frozen: frozen
        }
    }

    mutating func add(_ kind: ContentAlert.Kind) {
        switch kind {
        case .silence: silence += 1
        case .black: black += 1
        case .frozen: frozen += 1
        }
    }
}

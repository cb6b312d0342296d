import Foundation

/// A live feed that takes the output over while it delivers (docs/presets.md, live):
/// an SRT listener or caller, an RTMP stream pulled from a server, or a live HLS playlist.
public struct LiveFeedConfig: Equatable, Sendable {
    /// What the programme's players do while the feed is on air.
    public enum Programme: String, Equatable, Sendable, CaseIterable {
        /// They play on, unheard: the programme comes back where the clock says it is.
        case `continue`
        /// They are paused, and resumed where they were left at the hand-back.
        case pause
    }

    /// The feed's URL as written (its secrets masked wherever it is shown).
    public var source: String
    /// The feed delivers this long before it goes on air.
    public var takeoverAfter: TimeInterval
    /// Nothing from the feed this long: the programme comes back.
    public var releaseAfter: TimeInterval
    public var programme: Programme
    /// The audio fade at each switch.
    public var fade: TimeInterval

    public init(source: String = "", takeoverAfter: TimeInterval = 0.5, releaseAfter: TimeInterval = 3,
                programme: Programme = .continue, fade: TimeInterval = 0.1) {
        self.source = source
        self.takeoverAfter = takeoverAfter
        self.releaseAfter = releaseAfter
        self.programme = programme
        self.fade = fade
    }

    /// The stream schemes only a feed may have, and every scheme a feed may have.
    static let streamSchemes: Set<String> = ["srt", "rtmp", "rtmps"]
    static let schemes = streamSchemes.union(["http", "https"])

    /// Why `url` cannot be a feed (nil: it can): an SRT URL is checked as an output's is
    /// (port, mode, latency, a passphrase of 10 to 79 characters); the text never shows a secret.
    static func refusal(of url: String) -> String? {
        let scheme = PathResolution.sourceScheme(of: url) ?? ""
        guard url.contains("://"), schemes.contains(scheme) else {
            return "\"\(SecretMask.mask(url: url))\" is not a live feed (srt://, rtmp://, rtmps:// or an http(s):// live playlist)"
        }
        if scheme == "srt", case .failure(let why) = OutputURL.resolve(url, base: "/", environment: [:]) { return why.message }
        if scheme.hasPrefix("http"), !HLSPlaylist.isPlaylist(url) {
            return "\"\(SecretMask.mask(url: url))\" is not a live playlist (an http(s):// feed is an .m3u8)"
        }
        return nil
    }
}

/// The state machine of a media player (docs/status.md, `players[]` `state`):
/// `stopped → loading → playing ⇄ paused → ended`, and `error`.
public enum PlayerState: String, Sendable {
    case stopped, loading, playing, paused, ended, error
}

/// Now-playing tags of the current item.
public struct NowPlaying: Sendable, Equatable {
    public var title: String?
    public var artist: String?
    public var album: String?
    public init(title: String? = nil, artist: String? = nil, album: String? = nil) {
        self.title = title; self.artist = artist; self.album = album
    }
}

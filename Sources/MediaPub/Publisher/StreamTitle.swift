import Foundation
import Synchronization

/// The run's now-playing tags, as Icecast mounts announce them (`artist - title`):
/// the current item of the video player, else of the first player that plays
/// (docs/presets.md, Icecast). Set by the run on each `player.track` of that
/// player; read by each Icecast output as it connects and when told it changed.
final class StreamTitle: Sendable {
    private let current = Mutex<NowPlaying?>(nil)

    var tags: NowPlaying? { current.withLock { $0 } }

    func set(_ tags: NowPlaying) { current.withLock { $0 = tags } }

    /// Whether `index`'s `player.track` sets the title: the video player's (`videoIndex`),
    /// else the first player (in the preset's order) that is playing, or `index` when none is.
    static func isAnnounced(_ index: Int, videoIndex: Int?, playing: [Bool]) -> Bool {
        if let videoIndex { return index == videoIndex }
        return (playing.firstIndex(of: true) ?? index) == index
    }

    /// An item's tags as the mount shows them: an item with neither title nor artist
    /// is named by its file (`music-a` for …/music-a.mp3), its secrets masked.
    static func tags(_ tags: NowPlaying, source: String) -> NowPlaying {
        guard tags.title == nil, tags.artist == nil else { return tags }
        let name = ((SecretMask.mask(url: source).split(separator: "?").first.map(String.init) ?? source) as NSString)
            .lastPathComponent
        return NowPlaying(title: (name as NSString).deletingPathExtension, artist: nil, album: tags.album)
    }
}

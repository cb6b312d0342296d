import Foundation

extension MediaPlayer {
    /// Before it starts: `playlist` is what the player plays, its first item from
    /// `offset` seconds (a programme's block joined in progress, or its filler;
    /// docs/presets.md, Schedule). A player already started is left as it is (a cue
    /// switches it then). `then`: what it goes on with once `playlist` is over (`DeckCourse.followOn`).
    func prime(_ playlist: Playlist, startAt offset: TimeInterval, then followOn: Playlist? = nil) {
        let offset = offset.isFinite ? min(max(0, offset), MediaTime.maxDuration) : 0
        LibraryLog.addSecrets(of: playlist.items)
        state.withLock { s in
            guard s.phase == .stopped, s.current == nil else { return }
            s.playlist = playlist
            s.config.source = nil
            s.config.playlist = PlaylistConfig(items: playlist.items, mode: playlist.mode)
            s.config.startAt = offset
            s.deck.course.followOn = followOn
        }
    }
}

import Foundation

/// The run's players as the run follows them: the stream title (StreamTitle) from the item
/// that names it, and waiting while they load.
extension Broadcast {
    /// A player's new item: the now-playing title when it is the player that names it (StreamTitle).
    func trackChanged(_ player: MediaPlayer, source: String, _ tags: NowPlaying) {
        guard let index = players.firstIndex(where: { $0 === player }),
              StreamTitle.isAnnounced(index, videoIndex: preset.videoPlayerIndex, playing: players.map { $0.currentState == .playing })
        else { return }
        streamTitle.set(StreamTitle.tags(tags, source: source))
        state.withLock { $0.phase.publisher }?.titleChanged()
    }

    /// Waits, up to `timeout`, while some player is loading (each wakes it as its state changes).
    func waitForPlayers(timeout: TimeInterval) {
        let deadline = MonotonicInstant.now.addingTimeInterval(timeout)
        for player in players { player.waitWhileLoading(until: deadline) }
    }
}

import Synchronization

/// Title, artist and album a stream's tags gave so far. Noted on the thread that
/// posts them (the decode bus's `onPostingThread` hook, on a streaming thread):
/// a sink posts its tags before it prerolls, so they are known by the time the
/// session is ready, however late the bus queue runs (a short item can end
/// before it does). A type of its own, held strongly by that hook, so that a
/// streaming thread never holds the session, or frees it.
final class StreamTags: Sendable {
    private let seen = Mutex(NowPlaying())

    /// Merges what a tag message gives (a value it lacks is kept); any other message is ignored.
    func note(_ message: BusMessage) {
        guard case .tags(let title, let artist, let album) = message,
              title != nil || artist != nil || album != nil else { return }
        seen.withLock { seen in
            seen = NowPlaying(title: title ?? seen.title, artist: artist ?? seen.artist, album: album ?? seen.album)
        }
    }

    var current: NowPlaying { seen.withLock { $0 } }
}

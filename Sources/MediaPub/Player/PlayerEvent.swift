/// Something a player reports: state changes, a new track, a skipped item.
public enum PlayerEvent: Sendable {
    case state(PlayerState, error: String?)
    case track(index: Int, source: String, durationMs: Int?, tags: NowPlaying)
    case progress(positionMs: Int, durationMs: Int?)
    case warning(String)
}

import Foundation

/// The sources of a preset that are endless: their media comes as the wall clock
/// goes and has no end (an endless HLS playlist, a FIFO, a live feed). A run with one is paced
/// to the wall clock whatever its outputs (README, run options).
enum EndlessSources {
    /// Every playlist read here together takes at most this long.
    static let lookupSeconds: TimeInterval = 5

    /// The first endless source of `preset` (its live feed, else one of its players'), as given (nil: none).
    static func first(in preset: Preset) -> String? {
        if let feed = preset.live?.source { return feed }
        let sources = preset.players.flatMap { [$0.source].compactMap { $0 } + ($0.playlist?.items ?? []) }
        let deadline = MonotonicInstant.now.addingTimeInterval(lookupSeconds)
        return sources.first { isEndless($0, until: deadline) }
    }

    /// Whether `source` is endless: a FIFO, or an HLS playlist without `#EXT-X-ENDLIST`
    /// (read from the network before `deadline`; one that cannot be read counts as not endless).
    static func isEndless(_ source: String, until deadline: MonotonicInstant) -> Bool {
        guard let spec = try? SourceSpec(source) else { return false }
        if let path = spec.localPath {
            var info = stat()
            return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO
        }
        guard case .uri(let uri, _) = spec, HLSPlaylist.isPlaylist(uri) else { return false }
        let left = deadline.timeIntervalSinceNow
        guard left > 0.1 else { return false }
        return (try? HLSPlaylist.fetch(uri, timeout: left))?.isEndless == true
    }
}

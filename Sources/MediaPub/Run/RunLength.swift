import Foundation

/// How much output time a run has left, when that is known (the status line's `%`
/// and `eta=`, docs/status.md "The status line"): to `--duration` or `stop.after`; else, with
/// `stop.at_end`, until the last player ends, when every player ends (no `repeat`,
/// a playlist `mode: once`) and the duration of all it has left is known. Later
/// playlist items that are local files are probed once (`ItemDurations`), off the run's threads.
final class RunLength: Sendable {
    private let stopAfter: TimeInterval?
    private let players: [MediaPlayer]
    private let atEnd: Bool
    /// The later items' durations, once probed.
    private let durations = ItemDurations(deadline: 5)
    private let queue = DispatchQueue(label: "run-length", qos: .utility)

    init(stopAfter: TimeInterval?, players: [MediaPlayer], atEnd: Bool) {
        self.stopAfter = stopAfter
        self.players = players
        self.atEnd = atEnd
        guard stopAfter == nil, atEnd else { return }
        let later = players.filter { $0.settings.playlist?.mode == .once }.flatMap { $0.settings.playlist?.items ?? [] }
        let local = Array(Set(later.filter { (try? SourceSpec($0))?.localPath != nil })).prefix(Self.maxProbed)
        queue.async { [durations] in _ = durations.durations(of: Array(local)) }
    }

    /// The most later items probed for a run's length (a huge folder is left unknown).
    static let maxProbed = 1000

    /// The run's whole length in output seconds, `seconds` being where it is now; nil when unknown.
    func length(at seconds: TimeInterval) -> TimeInterval? {
        if let stopAfter { return stopAfter }
        guard atEnd, !players.isEmpty else { return nil }
        var left: TimeInterval = 0
        for player in players {
            guard let l = remaining(player) else { return nil }
            left = max(left, l)
        }
        return seconds + left
    }

    /// Output seconds until `player` ends; nil when it never ends or that is not known.
    private func remaining(_ player: MediaPlayer) -> TimeInterval? {
        switch player.currentState {
        case .ended, .error: return 0
        default: break
        }
        let config = player.settings
        let items: [String]
        if let playlist = config.playlist {
            guard playlist.mode == .once else { return nil }
            items = Array(playlist.items.dropFirst(player.currentIndex + 1))
        } else {
            guard !config.repeat else { return nil }
            items = []
        }
        guard let duration = player.durationMs, config.speed > 0 else { return nil }
        var ms = max(0, duration - player.positionMs)
        for item in items {
            guard let seconds = durations.known(item) ?? nil else { return nil }
            ms += Int((seconds * 1000).rounded())
        }
        return Double(ms) / 1000 / config.speed
    }
}

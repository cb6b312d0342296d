import Foundation
import Synchronization

/// The checks of `monitor:` on what goes out (docs/presets.md, monitor): dead air in
/// the mix, a black or still picture before any overlay. Told every tick by the
/// capture (`observe`, on the timeline thread); says `alert` and `cleared` through
/// `report`, takes the check's action, and answers whether the standby holds the
/// output. What `status` shows is in `state`.
final class ContentWatch: Sendable {
    private let players: [MediaPlayer]
    private let videoPlayer: MediaPlayer?
    private let silenceAction: AlertAction
    private let pictureAction: AlertAction
    private let tickRate: Int
    private let checksPicture: Bool
    /// The live feed's URL (masked): what an alert is about while the feed is on air.
    private let liveFeedSource: String?
    /// Where an `alert` or `cleared` goes (it must only queue).
    private let report: @Sendable (Event) -> Void
    /// Where an alert's `next` skips the player's item (it opens the next one), never on the timeline thread.
    private let actions = DispatchQueue(label: "monitor-action")

    private struct State {
        var silence: SilenceWatch?
        var picture: PictureWatch?
        var status = AlertStatus()
        /// Wall time each spell in progress began.
        var began: [ContentAlert.Kind: Date] = [:]
    }
    private let state: Mutex<State>

    /// nil when the preset has no check.
    init?(_ config: MonitorConfig, format: MediaFormat, players: [MediaPlayer], liveFeedSource: String? = nil,
          report: @escaping @Sendable (Event) -> Void) {
        let picture = format.video.flatMap { v in
            config.picture.map { PictureWatch($0, layout: I420Layout(width: v.width, height: v.height), tickRate: format.tickRate) }
        }
        let silence = config.silence.map { SilenceWatch($0, tickRate: format.tickRate) }
        guard silence != nil || picture != nil else { return nil }
        self.players = players
        videoPlayer = players.first { $0.feedsVideo }
        silenceAction = config.silence?.action ?? .alert
        pictureAction = config.picture?.action ?? .alert
        tickRate = format.tickRate
        checksPicture = picture != nil
        self.liveFeedSource = liveFeedSource
        self.report = report
        state = Mutex(State(silence: silence, picture: picture))
    }

    var status: AlertStatus { state.withLock { $0.status } }

    /// The tick `tick`'s content: its mix (the first `count` samples) and its picture, before
    /// the standby and any overlay (`liveFeedOnAir`: the live feed's, on air). Not checked while the publishing
    /// flag is off. True: an alert whose action is `standby` is in progress, and the standby goes out instead.
    func observe(mix: [Float], count: Int, picture: Buffer?, tick: UInt64, publishing: Bool, liveFeedOnAir: Bool = false) -> Bool {
        guard publishing else {
            state.withLock { s in
                s.silence?.skip()
                s.picture?.skip()
            }
            return holdsStandby
        }
        var changes: [(ContentAlert.Kind, AlertSpell.Change)] = []
        state.withLock { s in
            if let change = s.silence?.observe(mix, count: count, tick: tick) { changes.append((.silence, change)) }
        }
        if let picture, checksPicture {
            // Mapped outside the lock; the grid is read under it (a few thousand bytes).
            _ = try? picture.map { bytes in
                state.withLock { s in
                    guard let seen = s.picture?.observe(bytes, tick: tick) else { return }
                    if let c = seen.black { changes.append((.black, c)) }
                    if let c = seen.frozen { changes.append((.frozen, c)) }
                }
            }
        }
        for (kind, change) in changes { apply(kind, change, tick: tick, liveFeedOnAir: liveFeedOnAir) }
        return holdsStandby
    }

    private var holdsStandby: Bool {
        state.withLock { s in s.status.active.contains { $0.action == .standby } }
    }

    /// One spell's change: recorded, said, and acted on (holding no lock).
    private func apply(_ kind: ContentAlert.Kind, _ change: AlertSpell.Change, tick: UInt64, liveFeedOnAir: Bool) {
        let ms = { (t: UInt64) in Int(clamping: t &* 1000 / UInt64(max(1, self.tickRate))) }
        switch change {
        case .began:
            state.withLock { $0.began[kind] = Date() }
        case .raised(let since):
            let player = liveFeedOnAir ? nil : subject(kind)
            let action = kind == .silence ? silenceAction : pictureAction
            let (id, source) = player.map { ($0.id, SecretMask.mask(url: $0.currentSource)) }
                ?? (liveFeedOnAir ? ("live", liveFeedSource ?? "") : ("", ""))
            let alert = state.withLock { s in
                let began = s.began[kind] ?? Date()
                let alert = ContentAlert(kind: kind, player: id, source: source, action: action, beganMs: ms(since),
                                         beganAt: UTCTimestamp.string(began), outputMs: ms(tick))
                s.status.add(kind)
                s.status.active.removeAll { $0.kind == kind }
                s.status.active.append(alert)
                return alert
            }
            report(.alert(alert))
            // Skipped, the next item is counted afresh: silent (or dead) on, it is skipped in its turn.
            if action == .next, let player {
                actions.async { player.next() }
                state.withLock { s in
                    if kind == .silence { s.silence?.restart() } else { s.picture?.restart(black: kind == .black) }
                }
            }
        case .cleared:
            let alert = state.withLock { s -> ContentAlert? in
                s.began[kind] = nil
                guard let i = s.status.active.firstIndex(where: { $0.kind == kind }) else { return nil }
                var alert = s.status.active.remove(at: i)
                alert.outputMs = ms(tick)
                return alert
            }
            if let alert { report(.cleared(alert)) }
        }
    }

    /// The player an alert is about (the live feed's alert is about no player): the video player's for
    /// a picture; for silence, the player that sounds (an aux player playing, the video player first),
    /// else the first aux one.
    private func subject(_ kind: ContentAlert.Kind) -> MediaPlayer? {
        if kind != .silence { return videoPlayer }
        let aux = players.filter(\.aux)
        let playing = aux.filter { $0.currentState == .playing }
        return playing.first { $0 === videoPlayer } ?? playing.first ?? aux.first ?? players.first
    }
}

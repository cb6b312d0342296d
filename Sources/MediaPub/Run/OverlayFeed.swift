import Foundation
import Synchronization

/// What the overlays' texts show, tick by tick (docs/presets.md, overlays): the players'
/// now-playing tags and items, the programme's block, and the clock of the output
/// timeline in the programme's zone (else the system's), read on the timeline thread
/// just before the tick's picture is pushed, so a text changes on the frame its track does.
final class OverlayFeed: Sendable {
    let chain: OverlayChain
    let zone: ZoneRules
    let tickRate: Int
    let clock: TickClock
    /// The wall instant of output second 0 without a programme (set at the first tick).
    private let clockStart = Mutex<Date?>(nil)

    init(chain: OverlayChain, zone: ZoneRules, format: MediaFormat) {
        self.chain = chain
        self.zone = zone
        tickRate = format.tickRate
        clock = format.tickClock
    }

    /// The overlays of `preset` (nil without any, or without pictures).
    static func make(_ preset: Preset, format: MediaFormat) -> OverlayFeed? {
        guard let video = preset.video, format.video != nil,
              let chain = OverlayChain(preset.overlays, width: video.width, height: video.height,
                                       players: preset.players.map(\.id)) else { return nil }
        let zone = preset.schedule?.zone ?? (try? ZoneRules.system()) ?? .utc
        return OverlayFeed(chain: chain, zone: zone, format: format)
    }

    /// On the timeline thread: tick `n`'s texts set on the overlays; returns the `ctl
    /// overlay` changes drawn from it on, for `overlay` events.
    func tick(_ n: UInt64, standby: Bool, players: [MediaPlayer], programme: ScheduleRunner?) -> [(id: String, change: String)] {
        let needs = chain.needs
        var values = OverlayTemplate.Values()
        for player in players where needs.players.contains(player.id) {
            values.players[player.id] = (player.nowPlaying, player.currentSource)
        }
        if needs.block { values.block = programme?.onAir?.entry?.block.id }
        if needs.clock {
            let seconds = Double(n) / Double(tickRate)
            let instant: Date
            if let programme {
                instant = programme.now
            } else {
                let start = clockStart.withLock { s -> Date in
                    let start = s ?? Date().addingTimeInterval(-seconds)
                    s = start
                    return start
                }
                instant = start.addingTimeInterval(seconds)
            }
            values.clock = zone.local(instant)
        }
        return chain.tick(n, pts: clock.time(ofTick: n).nanoseconds, standby: standby, values: values)
    }

    /// `status`'s `overlays`.
    var status: [OverlayStatus] {
        chain.items.map { item in
            OverlayStatus(id: item.config.id, visible: item.visible, text: item.config.text, image: item.config.image,
                          opacity: item.config.opacity, onStandby: item.config.onStandby,
                          sinceMs: Int((item.since ?? 0) * 1000 / UInt64(max(1, tickRate))))
        }
    }
}

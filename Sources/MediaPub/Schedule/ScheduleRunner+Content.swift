import Foundation
import Synchronization

/// What the programme's player plays for a block or the filler (docs/presets.md, Joining a block in progress).
extension ScheduleRunner {
    /// What the player plays for `entry` (nil: filler) from `instant` on, and the offset
    /// into its first item: a block joined where it is (`BlockCursor`), filler from its top.
    /// `onTimeline`: for a cue the timeline commits, which never waits for a probe: only lengths
    /// known already count (an unknown one opens the block at that item's start). Made on the
    /// cue queue (or at the run's start), never on the timeline thread itself: what is known
    /// of a local file is looked up by its version (a stat, `ItemDurations.known`).
    func content(_ entry: ProgrammeEntry?, at instant: Date, programme: Programme,
                 onTimeline: Bool = false) -> (Playlist?, TimeInterval) {
        guard let entry else {
            guard let filler = programme.config.filler else { return (nil, 0) }
            var playlist = Playlist(items: filler.items, mode: filler.mode)
            playlist.crossfade = filler.crossfade
            return (playlist, 0)
        }
        let items = entry.items
        let elapsed = max(0, instant.timeIntervalSince(entry.start))
        let durations: [TimeInterval?] = elapsed < 0.001 ? items.map { _ in nil }
            : onTimeline ? items.map { self.durations.known($0) ?? nil } : self.durations.durations(of: items)
        guard let position = BlockCursor.position(durations: durations, mode: entry.mode, occurrenceKey: entry.occurrenceKey,
                                                  elapsed: elapsed,
                                                  crossfade: entry.block.playlist?.crossfade.seconds ?? 0) else {
            // A block that has played all it had: filler until it ends.
            return content(nil, at: instant, programme: programme, onTimeline: onTimeline)
        }
        let (key, mode, count) = (entry.occurrenceKey, entry.mode, items.count)
        var playlist = Playlist(items: items, mode: mode, order: position.order, position: position.position, pass: position.pass,
                                passOrder: { BlockCursor.order(count: count, mode: mode, occurrenceKey: key, pass: $0) })
            ?? Playlist(items: items, mode: mode)
        playlist.crossfade = entry.block.playlist?.crossfade ?? CrossfadeConfig()
        var offset = position.offset
        // A local item missing when its turn comes, or one whose probe got no answer (a server
        // that never answers), is named and skipped; none left: the filler.
        var skipped = 0
        while let why = Self.unreadable(playlist.current) ?? self.durations.failure(playlist.current), skipped < items.count {
            emit(.warning("schedule: \(entry.blockID): \(why), skipped"))
            skipped += 1
            offset = 0
            guard playlist.advance() else { return content(nil, at: instant, programme: programme, onTimeline: onTimeline) }
        }
        if skipped >= items.count { return content(nil, at: instant, programme: programme, onTimeline: onTimeline) }
        return (playlist, offset)
    }

    /// Why `source` cannot be read when it is a local file that is missing or unreadable
    /// (`SourceSpec.checkReadable`, as `ctl load` checks it); nil otherwise.
    static func unreadable(_ source: String) -> String? {
        do { try SourceSpec(source).checkReadable(source) } catch { return SecretMask.scrub("\(error)", secretsOf: source) }
        return nil
    }
}

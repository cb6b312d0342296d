import Foundation

/// One occurrence of a block in a programme (`Programme.entries`): when it starts and ends
/// on the wall clock, and what it plays.
public struct ProgrammeEntry: Equatable, Sendable {
    /// The block as the programme gives it (content, levels, overrun).
    public let block: ScheduleBlock
    /// The block's place in the programme's list.
    public let blockIndex: Int
    /// The instant it starts: its wall time in the programme's zone (a time in a spring-forward
    /// gap: the end of the gap; a time that happens twice: the first).
    public let start: Date
    /// The instant it ends: its `until` or `duration`, else the next block's start; with
    /// `overrun: cut`, never after the next block's start. `Date.distantFuture` when nothing ends it.
    public let end: Date
    /// The wall time it is scheduled for, as written (02:30 even where the clocks skip it).
    public let local: LocalDateTime
    /// The zone's clock at `start`, with its offset (`2026-03-29 03:00:00 +02:00`).
    public let startClock: ZonedTime
    /// The blocks set for other times that the clocks' spring-forward gap moves onto this
    /// start, in the programme's order: they do not play that day (docs/presets.md, Time zones).
    public let displaced: [String]

    public var blockID: String { block.id }
    public var overrun: ScheduleBlock.Overrun { block.overrun }

    /// The block's id and the local date it is scheduled for: `news@2026-03-29`. A shuffled
    /// block's order is derived from it (`BlockCursor`).
    public var occurrenceKey: String { "\(block.id)@\(local.date)" }

    /// What it plays, resolved: a source is one item played once.
    public var items: [String] { block.playlist?.items ?? block.source.map { [$0] } ?? [] }
    public var mode: PlaylistMode { block.playlist?.mode ?? .once }
}

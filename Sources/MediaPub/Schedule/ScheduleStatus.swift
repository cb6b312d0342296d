import Foundation

/// The programme in `status` and `ctl schedule` (docs/status.md, `schedule`): the block
/// on air, where its player is in it, and the next blocks.
public struct ScheduleStatus: Codable, Sendable, Equatable {
    /// The programme's zone.
    public var timezone: String
    /// The wall clock the output is at, in that zone.
    public var now: String
    /// The block on air; nil while filler plays.
    public var block: String?
    /// When the block on air was scheduled to start.
    public var scheduledAt: String?
    /// How late it went on air, in ms of output.
    public var lateMs: Int
    /// The player's item (masked) and its position in it.
    public var item: String?
    public var offsetMs: Int
    /// The next blocks, with their start times.
    public var next: [Upcoming]

    public struct Upcoming: Codable, Sendable, Equatable {
        public var block: String
        public var at: String
        /// Milliseconds until it starts (of output, on the programme's clock).
        public var inMs: Int

        enum CodingKeys: String, CodingKey, CaseIterable {
            case block, at
            case inMs = "in_ms"
        }
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case timezone, now, block, item, next
        case scheduledAt = "scheduled_at"
        case lateMs = "late_ms"
        case offsetMs = "offset_ms"
    }

    /// Writes `block` and `scheduled_at` as null while filler plays, rather than leaving them out.
    public func encode(to encoder: Swift.Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(timezone, forKey: .timezone)
        try c.encode(now, forKey: .now)
        try c.encode(block, forKey: .block)
        try c.encode(scheduledAt, forKey: .scheduledAt)
        try c.encode(lateMs, forKey: .lateMs)
        try c.encode(item, forKey: .item)
        try c.encode(offsetMs, forKey: .offsetMs)
        try c.encode(next, forKey: .next)
    }
}

extension ScheduleRunner {
    /// How many blocks ahead `status` shows.
    static let upcomingShown = 3

    /// The programme as it stands on the output now.
    func status() -> ScheduleStatus {
        let now = self.now
        let (programme, onAir) = (self.programme, self.onAir)
        let zone = programme.zone
        // A block started early (`ctl skip`) is on air, not to come.
        let upcoming = programme.upcoming(after: now, count: Self.upcomingShown + 1)
            .filter { $0.block != onAir?.entry?.block || $0.start != onAir?.entry?.start }.prefix(Self.upcomingShown)
        let item = player.currentState == .playing || player.currentState == .paused
            ? SecretMask.mask(url: player.currentSource) : nil
        return ScheduleStatus(timezone: zone.name, now: zone.local(now).description, block: onAir?.entry?.blockID,
                              scheduledAt: onAir?.entry?.startClock.description, lateMs: onAir?.lateMs ?? 0,
                              item: item, offsetMs: item == nil ? 0 : player.positionMs,
                              next: upcoming.map {
                                  ScheduleStatus.Upcoming(block: $0.blockID, at: $0.startClock.description,
                                                          inMs: Int(clamping: Int64(($0.start.timeIntervalSince(now) * 1000).rounded())))
                              })
    }
}

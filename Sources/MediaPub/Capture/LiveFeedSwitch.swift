import Foundation

/// When a live feed goes on air and when it hands the output back (docs/presets.md,
/// live), tick by tick: a pure value `LiveFeedTakeover` keeps on the timeline thread.
/// The feed goes on air once it has delivered for `takeover_after` (at once with
/// `ctl live on`); on air, a drop-out shorter than `release_after` keeps it there;
/// `release_after` without anything from it, or `ctl live off`, releases it.
struct LiveFeedSwitch: Equatable, Sendable {
    /// `ctl live on|off|auto` (docs/control.md).
    enum Mode: String, Sendable, CaseIterable {
        case auto, on, off
    }

    enum Change: Equatable, Sendable {
        /// The feed began delivering (off air).
        case connected
        case onAir
        case released(String)
        /// The feed stopped delivering before it went on air.
        case lost
    }

    let takeoverTicks: UInt64
    let releaseTicks: UInt64
    private let releaseText: String
    private(set) var onAir = false
    /// The first tick of the feed's current spell of delivery (nil: not delivering).
    private(set) var spellBegan: UInt64?
    private(set) var lastDelivery: UInt64?

    init(takeoverAfter: TimeInterval, releaseAfter: TimeInterval, tickRate: Int) {
        // Kept in the preset's range first: no trapping conversion of a nan or a huge value.
        func ticks(_ seconds: TimeInterval) -> UInt64 {
            UInt64((min(LiveFeedConfig.waitRange.upperBound, max(0, seconds.isNaN ? 0 : seconds)) * Double(max(1, tickRate))).rounded())
        }
        takeoverTicks = ticks(takeoverAfter)
        releaseTicks = max(1, ticks(releaseAfter))
        releaseText = MediaTime.formatDuration(releaseAfter)
    }

    /// The feed was closed (failed, ended): a spell off air is over without a word; on
    /// air, it is released once `release_after` has passed without anything.
    mutating func forget() {
        guard !onAir else { return }
        spellBegan = nil
        lastDelivery = nil
    }

    /// Tick `n` (each tick once, in order): whether the feed gave anything in it, whether
    /// it holds enough to go on air with (its jitter buffer is full, `LiveFeedBuffer`), and the mode.
    mutating func tick(_ n: UInt64, delivered: Bool, ready: Bool = true, mode: Mode) -> Change? {
        if onAir, mode == .off {
            onAir = false
            return .released("ctl live off")
        }
        if delivered {
            let fresh = spellBegan == nil
            if fresh { spellBegan = n }
            lastDelivery = n
            if !onAir, ready, mode != .off, mode == .on || n - (spellBegan ?? n) >= takeoverTicks {
                onAir = true
                return .onAir
            }
            return fresh && !onAir ? .connected : nil
        }
        guard spellBegan != nil, let last = lastDelivery, n >= last, n - last >= releaseTicks else { return nil }
        spellBegan = nil
        guard onAir else { return .lost }
        onAir = false
        return .released("nothing from the feed for \(releaseText)")
    }
}

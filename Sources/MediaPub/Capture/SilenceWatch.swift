import Foundation

/// Dead air (docs/presets.md, monitor.silence): the output mix silent, its peak below
/// the check's level in every tick, for the check's time. A pure value, told each
/// tick's mix on the timeline thread; it stops reading a tick at its first loud sample.
struct SilenceWatch: Equatable {
    /// The level as a sample's magnitude (-50 dBFS: 0.00316).
    let threshold: Float
    private(set) var spell: AlertSpell

    init(_ check: SilenceCheck, tickRate: Int) {
        threshold = Float(pow(10, check.below / 20))
        spell = AlertSpell(seconds: check.duration, tickRate: tickRate)
    }

    /// The first `count` samples of `mix` are the tick's at `tick`.
    mutating func observe(_ mix: [Float], count: Int, tick: UInt64) -> AlertSpell.Change? {
        spell.update(Self.isSilent(mix, count: count, below: threshold), tick: tick)
    }

    /// After the silent item was skipped: counted again (AlertSpell.restart).
    mutating func restart() { spell.restart() }

    /// A tick not checked (AlertSpell.skip).
    mutating func skip() { spell.skip() }

    static func isSilent(_ samples: [Float], count: Int, below threshold: Float) -> Bool {
        samples.withUnsafeBufferPointer { p in
            for i in 0..<min(count, p.count) where abs(p[i]) >= threshold { return false }
            return true
        }
    }
}

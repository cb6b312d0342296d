import Foundation

/// Samples a decoder gave that are no sound (docs/presets.md, Players: what a broken
/// item plays as): not a number, infinite, or so far over full scale that no recording
/// holds them (a float file's garbage, ±1e30). Each is made silence where it is read,
/// before any gain, mix or limiter sees it, so that nothing downstream holds a NaN or
/// sums to one; how many there were is counted for the item's one warning.
enum BrokenSamples {
    /// The largest magnitude taken as sound: 30 dB over full scale. A float file may
    /// hold a little over full scale (a master's peaks); this far over, it is garbage.
    static let bound: Float = 32

    /// Replaces the broken samples among `count` at `samples` with 0; returns how many it replaced.
    static func silence(_ samples: UnsafeMutablePointer<Float>, count: Int) -> Int {
        var replaced = 0
        for i in 0..<count {
            let v = samples[i]
            // A NaN fails every comparison: `abs(v) <= bound` is false for it as for ±inf.
            if !(abs(v) <= bound) {
                samples[i] = 0
                replaced += 1
            }
        }
        return replaced
    }

    /// A broken item is told of once its broken samples have played this long, or at its end.
    static let reportAfter = ClockTime(seconds: 1)

    /// Items a player remembers having said (a bound: a player that has said this many
    /// forgets them, and may say one again).
    static let remembered = 256

    /// What the warning says of `count` broken samples of `source` (masked by the caller).
    static func warning(_ source: String, count: Int, atEnd: Bool) -> String {
        "\(source) gave \(count) samples that are not sound (NaN, infinite or over \(Int(bound))× full scale)"
            + (atEnd ? "" : " in its first second of them") + ": played as silence"
    }
}

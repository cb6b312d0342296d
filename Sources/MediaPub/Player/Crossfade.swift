import Foundation

/// The gains across a crossfade (docs/presets.md, Crossfades), a pure value: over
/// `length` audio frames the outgoing item's gain falls from 1 to 0 while the incoming
/// one's rises from 0 to 1. Equal-power gains are the cosine and sine of one angle, so
/// the powers of two different sounds add up to the same at every frame (the sum
/// neither dips nor swells); linear gains add up to 1 (one sound on both sides keeps its
/// level). The gains move a little each frame: nothing clicks.
struct Crossfade: Sendable, Equatable {
    /// In audio frames.
    private(set) var length: Int
    let curve: CrossfadeCurve
    /// Frames of the fade mixed so far.
    private(set) var position = 0
    /// The incoming picture's share (0...1) at the middle of the frames mixed last.
    private(set) var pictureWeight = 0.0

    init(length: Int, curve: CrossfadeCurve) {
        self.length = max(1, length)
        self.curve = curve
    }

    var isOver: Bool { position >= length }

    /// A fade not begun yet made no longer than `frames` (half of an incoming item known
    /// only once it is ready).
    mutating func limit(to frames: Int) {
        if position == 0 { length = max(1, min(length, frames)) }
    }

    /// The gains at frame `k` of the fade (from its end on: the incoming item alone).
    func gains(at k: Int) -> (outgoing: Float, incoming: Float) {
        guard k < length else { return (0, 1) }
        let x = Double(max(0, k)) / Double(length)
        switch curve {
        case .equalPower:
            let angle = x * Double.pi / 2
            return (Float(cos(angle)), Float(sin(angle)))
        case .linear:
            return (Float(1 - x), Float(x))
        }
    }

    /// Mixes a tick of `frames` interleaved frames of `channels` in `out`: its first
    /// `incoming` frames are the incoming item's (the rest are silent), and the first
    /// `outgoingFrames` of `outgoing` the outgoing item's. `advance`: the fade moves on by
    /// the tick; false while the incoming item gives nothing yet (loading after a skip),
    /// when the outgoing one goes on at its gain. Returns how many frames of `out` hold sound.
    mutating func mix(into out: UnsafeMutablePointer<Float>, incoming: Int, outgoing: UnsafePointer<Float>,
                      outgoingFrames: Int, frames: Int, channels: Int, advance: Bool) -> Int {
        let (incoming, outgoingFrames) = (min(max(0, incoming), frames), min(max(0, outgoingFrames), frames))
        for i in 0..<max(0, frames) {
            let (g, h) = gains(at: position + (advance ? i : 0))
            let frame = out + i * channels, old = outgoing + i * channels
            for c in 0..<channels {
                let a = i < incoming ? frame[c] * h : 0
                frame[c] = i < outgoingFrames ? a + old[c] * g : a
            }
        }
        if advance {
            pictureWeight = min(1, (Double(position) + Double(frames) / 2) / Double(length))
            position += max(0, frames)
        }
        return max(incoming, outgoingFrames)
    }
}

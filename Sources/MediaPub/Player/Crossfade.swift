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
    /// The outgoing item's gain as the fade begins (below 1: it was itself fading in, a skip
    /// during a fade), its fade's gains scaled by it so that its level goes on from there.
    let outgoingScale: Float

    init(length: Int, curve: CrossfadeCurve, outgoingScale: Float = 1) {
        self.length = max(1, length)
        self.curve = curve
        self.outgoingScale = max(0, min(1, outgoingScale))
    }

    /// The gains of the frame it is at, the outgoing one scaled.
    var levels: (outgoing: Float, incoming: Float) {
        let (g, h) = gains(at: position)
        return (g * outgoingScale, h)
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

    /// Moves the fade on by a tick of `frames` (its gains applied by `GainEnvelope`).
    mutating func advance(by frames: Int) {
        pictureWeight = min(1, (Double(position) + Double(frames) / 2) / Double(length))
        position += max(0, frames)
    }
}

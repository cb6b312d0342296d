/// One tick's gains on a player's sound, a pure value (docs/design.md, The player's deck):
/// the current item's gain to the loudness target (`ItemGain`: linear from `itemFrom` to
/// `itemTo` over its first `itemRamp` frames), a crossfade's gains on it and on the item
/// fading out under it (`Crossfade`, with that item's own gain), and the cut-fade before and
/// after a cut to cued content (`CutFade`: a gain per frame, nil when the tick has full sound),
/// worked out per frame and applied to the samples in one pass. The publish volume is the
/// capture's gain as it mixes the players (`Mixer.add`); the limiter and a live feed's
/// crossfade come after the mix.
struct GainEnvelope {
    var itemFrom: Float = 1
    var itemTo: Float = 1
    var itemRamp = 0
    /// The item fading out under the current one: its crossfade as the tick begins, whether
    /// the fade moves on in this tick, and that item's own gain.
    var crossfade: Crossfade?
    var advance = true
    var outgoingGain: Float = 1
    /// The cut-fade's gain of each frame of the tick (nil: 1 throughout).
    var cut: [Float]?

    /// The gains leave the item's samples as they are (no loudness gain, no fade, no cut).
    var isUnity: Bool { itemFrom == 1 && itemTo == 1 && crossfade == nil && cut == nil }

    /// Applies the tick's gains to `frames` interleaved frames of `channels` in `out`: its first
    /// `incoming` frames are the current item's (the rest are silent), and with a crossfade the
    /// first `outgoingFrames` of `outgoing` the outgoing item's, mixed in. The crossfade moves on
    /// by the tick when `advance`. Returns how many frames of `out` hold sound.
    mutating func apply(to out: UnsafeMutablePointer<Float>, incoming: Int, outgoing: UnsafePointer<Float>?,
                        outgoingFrames: Int, frames: Int, channels: Int) -> Int {
        let frames = max(0, frames)
        let incoming = min(max(0, incoming), frames)
        let outgoingFrames = outgoing == nil || crossfade == nil ? 0 : min(max(0, outgoingFrames), frames)
        let sounding = max(incoming, outgoingFrames)
        guard !isUnity, channels > 0 else { return sounding }
        let slope = itemRamp > 0 ? (itemTo - itemFrom) / Float(itemRamp) : 0
        guard let fade = crossfade else {
            // The item's gain alone (the common tick): its ramp, then its gain, and the cut's when it moves.
            let ramp = cut == nil ? min(itemRamp, incoming) : incoming
            for f in 0..<ramp {
                var g = f < itemRamp ? itemFrom + slope * Float(f) : itemTo
                if let cut { g *= cut[f] }
                let frame = out + f * channels
                for c in 0..<channels { frame[c] *= g }
            }
            // The rest at one gain: one run over the samples.
            if ramp < incoming, itemTo != 1 {
                for k in (ramp * channels)..<(incoming * channels) { out[k] *= itemTo }
            }
            return sounding
        }
        let scaledOut = fade.outgoingScale * outgoingGain
        let at = fade.position
        for f in 0..<sounding {
            let (g, h) = fade.gains(at: at + (advance ? f : 0))
            var gIn = f >= incoming ? 0 : (f < itemRamp ? itemFrom + slope * Float(f) : itemTo) * h
            var gOut = f < outgoingFrames ? g * scaledOut : 0
            if let cut {
                gIn *= cut[f]
                gOut *= cut[f]
            }
            let frame = out + f * channels
            if let outgoing, gOut != 0 {
                let old = outgoing + f * channels
                for c in 0..<channels { frame[c] = frame[c] * gIn + old[c] * gOut }
            } else {
                for c in 0..<channels { frame[c] *= gIn }
            }
        }
        if advance { crossfade?.advance(by: frames) }
        return sounding
    }
}

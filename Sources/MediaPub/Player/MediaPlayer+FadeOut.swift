import Foundation

/// An item a skip drops from its crossfade (docs/presets.md, Crossfades): `ctl next` while
/// a fade is on makes the item fading in the outgoing one, and the item that was fading out
/// goes out over `CutFade`'s 50 ms from the gain it had, mixed under the tick like the
/// outgoing item, rather than stopping on a sample (a click). A cue's cut, a load or a stop
/// drops it with the rest (`closeSessions`).
extension MediaPlayer {
    struct FadingOut {
        let session: DecodeSession
        /// Its gain as it was dropped from its fade.
        let gain: Float
        var fade: CutFade
        /// Frames of it mixed so far.
        var mixed: UInt64 = 0
    }

    /// At most this many at once (skips faster than 50 ms apart drop the oldest).
    static let fadingOutLimit = 4

    /// Under the lock, for a skip: the item fading out under the current one (if any)
    /// goes out quickly, kept out of `closeSessions`' way until the new item is opened.
    func takeFadingOut(_ s: inout State) -> [FadingOut] {
        var kept = s.fades.fadingOut
        if let old = s.fades.outgoing {
            kept.append(FadingOut(session: old.session, gain: old.fade.levels.outgoing, fade: CutFade(sampleRate: format.sampleRate)))
        }
        s.fades.outgoing = nil
        s.fades.fadingOut = []
        for dropped in kept.dropLast(Self.fadingOutLimit) { retire(dropped.session) }
        return Array(kept.suffix(Self.fadingOutLimit))
    }

    func dropFadingOut(_ s: inout State) {
        for item in s.fades.fadingOut { retire(item.session) }
        s.fades.fadingOut = []
    }

    /// Without the lock: the items fading out quickly, added to the tick's first `filled`
    /// frames of `out`. Returns how many frames of `out` hold sound.
    func mixFadingOut(into out: UnsafeMutablePointer<Float>, frames: Int, filled: Int, wait: Double) -> Int {
        let items = state.withLock { $0.fades.fadingOut }
        guard !items.isEmpty, frames > 0 else { return filled }
        let channels = format.channels
        let source = UnsafeMutablePointer<Float>.allocate(capacity: frames * channels)
        defer { source.deallocate() }
        var sounding = filled
        var done: [DecodeSession] = []
        var moved: [(DecodeSession, FadingOut)] = []
        for var item in items {
            let left = max(0, item.fade.length - Int(min(item.mixed, UInt64(item.fade.length))))
            let got = item.session.hasAudio && !item.session.audioExhausted
                ? item.session.readAudio(frames: min(frames, left), into: source, wait: wait) : 0
            // Silent from its fade's end on: it fades from its first frame mixed.
            item.fade.apply(to: source, frames: got, channels: channels, first: item.mixed, silentFrom: UInt64(item.fade.length))
            if got > sounding { (out + sounding * channels).update(repeating: 0, count: (got - sounding) * channels) }
            for k in 0..<(got * channels) { out[k] += source[k] * item.gain }
            sounding = max(sounding, got)
            item.mixed += UInt64(got)
            if item.fade.isSilent || got == 0 { done.append(item.session) } else { moved.append((item.session, item)) }
        }
        state.withLock { s in
            s.fades.fadingOut = s.fades.fadingOut.compactMap { kept in
                if done.contains(where: { $0 === kept.session }) { retire(kept.session); return nil }
                return moved.first { $0.0 === kept.session }?.1 ?? kept
            }
        }
        return sounding
    }
}

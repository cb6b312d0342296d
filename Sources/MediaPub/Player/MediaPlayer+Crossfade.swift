import Foundation

/// Crossfades between a playlist's items (docs/presets.md, Crossfades). The next item
/// is opened ahead; once the current item's end is within the fade (its duration is
/// known once it is ready, `DecodeSession.lengthMs`), the next one becomes the current
/// item (its `player.track` goes out then) and the one before goes on beside it as the
/// outgoing item, fading out as the new one fades in (`Crossfade`), its picture
/// dissolving into the new one's (`Dissolve`). A fade takes at most half of either item.
/// `next` and `previous` fade the current item out from where it is under the item
/// they open. A cue's cut, a load or a stop drops the outgoing item (`closeSessions`).
/// The functions taking the state `inout` run under the player's lock; the others take it.
extension MediaPlayer {
    /// An item fading out under the current one.
    struct Outgoing {
        let session: DecodeSession
        var fade: Crossfade
    }

    struct CrossfadeState {
        var outgoing: Outgoing?
        /// Items a skip dropped from their fade, going out quickly (`MediaPlayer+FadeOut`).
        var fadingOut: [FadingOut] = []
    }

    /// What a tick finds of the current item when a crossfade may begin (it plays and has a
    /// known duration, no other fade, segment skip or load on its way), for the `Deck`.
    private func crossfadeCandidate(_ s: borrowing State) -> Deck.Candidate? {
        guard s.playlist.crossfade.isOn, s.crossfade.outgoing == nil, s.phase == .playing, s.currentReady, s.resumeAtMs == nil,
              s.pendingLoad == nil, let current = s.current, let total = current.lengthMs else { return nil }
        let remaining = Double(total - current.positionMs) / 1000 / max(0.1, s.config.speed)
        guard remaining > 0 else { return nil }
        let upcoming = s.upcoming.flatMap { $0.position == s.playlist.following()?.position ? $0 : nil }
        let next: Deck.Next = upcoming.map { $0.session.map { $0.isReady ? .ready : .unready } ?? .opening } ?? .none
        return Deck.Candidate(item: ObjectIdentifier(current), fadeSetting: s.playlist.crossfade.seconds, remaining: remaining,
                              lengthMs: total, nextLengthMs: upcoming?.session?.lengthMs, next: next)
    }

    /// At the start of a tick: the next item opened ahead, and the crossfade begun once
    /// the current item's end is within it and the next item is ready (`Deck`).
    func crossfadeIfDue(_ s: inout State) {
        let current = s.current
        for effect in s.deck.tick(current: current.map(ObjectIdentifier.init), crossfadeCandidate(s)) {
            switch effect {
            case .openNext:
                preloadNext(&s)
            case .beginCrossfade(let frames):
                guard let current else { continue }
                s.current = nil  // not retired: it fades out
                guard advanceAfterEnd(&s) else { retire(current); return }
                s.crossfade.outgoing = Outgoing(session: current, fade: Crossfade(length: frames, curve: s.playlist.crossfade.curve))
            }
        }
    }

    /// As fast as possible, a tick waits for the next item's preroll once its crossfade is due.
    func crossfadeAwaited(_ s: borrowing State) -> Bool {
        s.deck.awaitsNext(current: s.current.map(ObjectIdentifier.init), crossfadeCandidate(s))
    }

    /// For `next` and `previous`, the playlist moved already: its current item is opened,
    /// the one playing fading out under it from where it is when the playlist crossfades.
    /// During a fade, the item fading in goes out from the gain it reached, and the one it
    /// was fading in over goes out quickly (`takeFadingOut`); an item a skip opened that has
    /// not sounded yet is only replaced, what fades out under it going on as it was.
    func openCurrentCrossfading(_ s: inout State) {
        if s.playlist.crossfade.isOn, s.phase == .loading || (s.phase == .playing && !s.currentReady),
           let fading = s.crossfade.outgoing {
            let quick = s.crossfade.fadingOut
            (s.crossfade.outgoing, s.crossfade.fadingOut) = (nil, [])
            openCurrent(&s)
            (s.crossfade.outgoing, s.crossfade.fadingOut) = (fading, quick)
            return
        }
        guard s.playlist.crossfade.isOn, s.phase == .playing, s.currentReady, let current = s.current else {
            openCurrent(&s)
            return
        }
        let left = crossfadeCandidate(s)?.remaining ?? s.playlist.crossfade.seconds
        let fade = min(s.playlist.crossfade.seconds, left, current.lengthMs.map { Double($0) / 2000 } ?? .infinity)
        let level = s.crossfade.outgoing?.fade.levels.incoming ?? 1
        let quick = takeFadingOut(&s)
        s.current = nil  // not retired: it fades out
        openCurrent(&s)
        s.crossfade.fadingOut = quick
        let frames = Int(fade * Double(format.sampleRate))
        guard frames > 0 else { retire(current); return }
        s.crossfade.outgoing = Outgoing(session: current, fade: Crossfade(length: frames, curve: s.playlist.crossfade.curve,
                                                                          outgoingScale: level))
    }

    func dropOutgoing(_ s: inout State) {
        retire(s.crossfade.outgoing?.session)
        s.crossfade.outgoing = nil
    }

    /// What a tick read of the item fading out: its samples (`frames` of them) and its fade as the tick began.
    struct OutgoingRead {
        let session: DecodeSession
        let fade: Crossfade
        let samples: UnsafeMutablePointer<Float>
        let frames: Int

        func release() { samples.deallocate() }
    }

    /// Without the lock: a tick of `frames` of the item fading out, read. `advance`: the
    /// current item sounds, the fade moves on (and is bounded by half of the incoming item,
    /// known only once it is ready: after a skip). nil without a crossfade.
    func readOutgoing(frames: Int, tick length: ClockTime, wait: Double, advance: Bool) -> OutgoingRead? {
        let taken = state.withLock { s -> (DecodeSession, Crossfade)? in
            if advance, let ms = s.current?.lengthMs { s.crossfade.outgoing?.fade.limit(to: ms * format.sampleRate / 2000) }
            return s.crossfade.outgoing.map { ($0.session, $0.fade) }
        }
        guard let (session, fade) = taken else { return nil }
        let source = UnsafeMutablePointer<Float>.allocate(capacity: max(1, frames * format.channels))
        var got = 0
        if !session.hasAudio {
            session.advance(by: length)
        } else if !session.audioExhausted {
            got = session.readAudio(frames: min(frames, fade.length - fade.position), into: source, wait: wait)
        }
        return OutgoingRead(session: session, fade: fade, samples: source, frames: got)
    }

    /// Once mixed (`GainEnvelope`): the fade as it has moved on kept, or the item dropped once it is over.
    func commitOutgoing(_ read: OutgoingRead, _ fade: Crossfade?) {
        read.release()
        state.withLock { s in
            guard s.crossfade.outgoing?.session === read.session, let fade else { return }
            if fade.isOver { dropOutgoing(&s) } else { s.crossfade.outgoing?.fade = fade }
        }
    }

    /// Without the lock: the tick's picture across a crossfade, the outgoing item's and
    /// `picture` (the current one's) blended as far as the fade has gone.
    func dissolve(_ picture: Buffer?, lag: ClockTime, wait: Double) -> Buffer? {
        guard feedsVideo, let (session, weight) = state.withLock({ s in s.crossfade.outgoing.map { ($0.session, $0.fade.pictureWeight) } })
        else { return picture }
        guard let old = session.videoFrame(lag: lag, wait: wait) else { return picture }
        guard let picture else { return old }
        return Dissolve.blend(old, picture, weight: weight) ?? picture
    }

    /// Without the lock, for a tick the current item gives nothing to (loading after a
    /// skip): the outgoing item goes on alone, at its gain, and the frame taps get it.
    func outgoingAlone(_ early: Rendered, frames: Int, tick length: ClockTime, into out: UnsafeMutablePointer<Float>,
                       wait: Double) -> Rendered {
        guard state.withLock({ ($0.crossfade.outgoing != nil || !$0.crossfade.fadingOut.isEmpty) && $0.phase != .paused })
        else { return early }
        var rendered = early
        // The outgoing item at its gain as the fade stands (it does not move on while nothing comes in).
        let outgoing = readOutgoing(frames: frames, tick: length, wait: wait, advance: false)
        var envelope = GainEnvelope(crossfade: outgoing?.fade, advance: false,
                                    outgoingGain: state.withLock { $0.gain?.outgoingGain ?? 1 })
        let sounding = envelope.apply(to: out, incoming: 0, outgoing: outgoing?.samples, outgoingFrames: outgoing?.frames ?? 0,
                                      frames: frames, channels: format.channels)
        if let outgoing { commitOutgoing(outgoing, envelope.crossfade) }
        rendered.audioFrames = mixFadingOut(into: out, frames: frames, filled: sounding, wait: wait)
        rendered.video = dissolve(early.video, lag: length.scaled(by: 1, 2), wait: wait)
        // The taps hear what the capture does (`finishTick` is not reached in such a tick).
        let deliveries = state.withLock { s in
            s.taps.deliveries(audio: out, frames: rendered.audioFrames, video: rendered.video, format: format,
                              positionMs: s.current?.positionMs ?? 0)
        }
        for deliver in deliveries { deliver() }
        return rendered
    }
}

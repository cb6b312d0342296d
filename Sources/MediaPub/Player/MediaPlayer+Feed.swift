import Foundation

/// The capture side: each tick, the capture thread takes a player's audio and the
/// picture due, from the current item and (gaplessly) the ones after it. The
/// current session is taken under the player's lock, read (its appsinks pulled,
/// which may wait for the decoder) without it, and what was read is committed under
/// the lock again only if that session is still the current one: `status`, `/metrics`
/// and the controls never wait for a decoder.
extension MediaPlayer {
    struct Rendered: Sendable {
        var audioFrames: Int
        var video: Buffer?
        /// The mix settings as they were for this tick (read under the same lock).
        var aux = false
        var publishGain: Float = 0
        /// nil when the player is muted locally.
        var localGain: Float?
    }

    /// What one tick has done so far, across the items it spans.
    private struct Tick {
        /// The output tick.
        let index: UInt64
        let frames: Int
        let length: ClockTime
        let began = MonotonicInstant.now  // a tick that waits for data counts its wait as starved
        var filled = 0
        var hops = 0
        /// Where in this tick the item last changed, and the picture of the item that
        /// was playing at the tick's middle when that was an item that ended since.
        var changedAt: Int?
        var pictureAtMiddle: Buffer?
        /// Where in this tick content came in as a cut (faded in from there, `CutFade`).
        var cutInAt: Int?
    }

    private enum Step {
        case done
        case again
        /// The next item is not ready: wait (without the lock), then go on if it is.
        case waitForItem
    }

    /// Hands the capture `frames` of audio (interleaved floats written to `out`)
    /// and the frame due now, for output tick `n`. `wait` bounds how long to wait for
    /// decoding (0 in realtime, longer when running as fast as possible).
    func render(frames: Int, tick length: ClockTime, at n: UInt64, into out: UnsafeMutablePointer<Float>, wait: Double) -> Rendered {
        var tick = Tick(index: n, frames: frames, length: length)
        // Not paced by the clock: a load on its way is waited for too, so that it takes
        // over where it was asked for in output time, not after whatever was decoded
        // meanwhile; and so is a cue being prepared once its fade-out is due (it fades
        // out what plays only if it is to land) and a committed cue not ready at its commit.
        if wait > 0 {
            state.wait(until: MonotonicInstant.now.addingTimeInterval(wait)) { s in
                s.awaitingItem || s.deck.load.pending != nil || cueAwaited(tick: n, s) || crossfadeAwaited(s)
            }
        }
        awaitItemLoudness(wait: wait)
        let early: Rendered? = state.withLock { s in
            s.nextTick = n &+ 1
            landIfDue(at: n, &s)
            crossfadeIfDue(&s)
            if s.phase != .playing { s.watch.notPlaying() }
            switch s.phase {
            case .paused: return mixed(Rendered(audioFrames: 0, video: s.frozenFrame), s)
            case .playing where s.currentReady: return nil
            default: return mixed(Rendered(audioFrames: 0, video: nil), s)
            }
        }
        if let early { return outgoingAlone(early, frames: frames, tick: length, into: out, wait: wait) }
        var step = Step.again
        while step != .done {
            if step == .waitForItem {
                // Not preloaded in time: when not paced by the clock, wait rather than leave a gap.
                state.wait(until: MonotonicInstant.now.addingTimeInterval(wait)) { $0.awaitingItem }
                guard state.withLock({ $0.phase == .playing && $0.currentReady }) else { break }
            }
            guard let session = state.withLock({ s in tick.hops < 3 ? s.current : nil }) else { break }
            let over = read(session, &tick, into: out, wait: wait)
            step = state.withLock { s in
                // Replaced while it was read (a load took over, a stop, a reopen): what it gave
                // stays in the tick, the rest of which comes from what is current now.
                guard s.current === session else {
                    tick.hops += 1
                    return s.phase == .playing && s.currentReady ? .again : .done
                }
                return itemRead(session, over: over, &tick, wait: wait, &s)
            }
        }
        // Across a crossfade, the item fading out is read (`MediaPlayer+Crossfade`); its gains, the
        // item's and the cut's are applied as one envelope, in one pass (`GainEnvelope`).
        let outgoing = readOutgoing(frames: frames, tick: length, wait: wait, advance: true)
        let sounding = max(tick.filled, outgoing?.frames ?? 0)
        var envelope = state.withLock { s in tickEnvelope(tick, sounding: sounding, crossfade: outgoing?.fade, &s) }
        tick.filled = envelope.apply(to: out, incoming: tick.filled, outgoing: outgoing?.samples, outgoingFrames: outgoing?.frames ?? 0,
                                     frames: frames, channels: format.channels)
        if let outgoing { commitOutgoing(outgoing, envelope.crossfade) }
        tick.filled = mixFadingOut(into: out, frames: frames, filled: tick.filled, wait: wait)
        // The picture due is pulled without the lock too (the session may wait for its decoder).
        let pictured = state.withLock { s in (feedsVideo || s.taps.wantsVideo) ? s.current : nil }
        let decoded = dissolve(pictured?.videoFrame(lag: tick.length.scaled(by: 1, 2), wait: wait),
                               lag: tick.length.scaled(by: 1, 2), wait: wait)
        let (rendered, deliveries) = state.withLock { s in finishTick(tick, picture: decoded, audio: out, &s) }
        // Tap handlers run outside the lock: they may ask the player anything.
        for deliver in deliveries { deliver() }
        return rendered
    }

    private func mixed(_ rendered: Rendered, _ s: borrowing State) -> Rendered {
        var r = rendered
        r.aux = s.config.aux
        r.publishGain = Float(s.config.publishVolume) / 100
        r.localGain = s.config.muteLocal ? nil : Float(s.config.playVolume) / 100
        return r
    }

    /// Without the player's lock: reads `session` into the tick. Returns whether the item is over.
    private func read(_ session: DecodeSession, _ t: inout Tick, into out: UnsafeMutablePointer<Float>, wait: Double) -> Bool {
        if session.hasAudio && !session.audioExhausted {
            t.filled += session.readAudio(frames: t.frames - t.filled, into: out + t.filled * format.channels, wait: wait)
        } else {
            // No audio (left): the picture's clock is the timeline's, for the part of
            // the tick this item has (all of it, unless it began within the tick).
            let part = Double(t.frames - t.filled) / Double(max(1, t.frames))
            session.advance(by: t.filled == 0 ? t.length : ClockTime(nanoseconds: UInt64(Double(t.length.nanoseconds) * part)))
        }
        // Audio is the item's clock: when it runs out the item is over (a picture
        // that goes on longer plays out first), and the next one fills the same tick.
        return session.hasAudio
            ? session.audioExhausted && session.videoEndsWithAudio(slack: ClockTime(milliseconds: 100), wait: wait)
            : session.isDrained
    }

    /// Under the lock, `session` still current: at the item's end, hands over to the next one.
    private func itemRead(_ session: DecodeSession, over: Bool, _ t: inout Tick, wait: Double, _ s: inout State) -> Step {
        guard t.filled < t.frames || !session.hasAudio, over else { return .done }
        // The item ending now spans the tick's middle: its picture is this tick's.
        if (t.changedAt ?? 0) * 2 <= t.frames && t.filled * 2 > t.frames { t.pictureAtMiddle = session.lastVideo }
        t.changedAt = t.filled
        t.hops += 1
        reportBrokenSamples(of: session, &s)
        guard advanceAfterEnd(&s) else { return .done }
        if s.fades.cutInPending {
            s.fades.cutInPending = false
            t.cutInAt = t.filled
        }
        if s.awaitingItem && wait > 0 { return .waitForItem }
        return s.phase == .playing && s.currentReady ? .again : .done
    }

    /// An item whose decoder gave samples that are no sound (`BrokenSamples`): said once.
    private func reportBrokenSamples(of session: DecodeSession, _ s: inout State) {
        guard let (count, atEnd) = session.brokenSamplesReport() else { return }
        if s.brokenSaid.count >= BrokenSamples.remembered { s.brokenSaid.removeAll() }
        guard s.brokenSaid.insert(session.source).inserted else { return }
        emit(.warning("player \(id): " + BrokenSamples.warning(SecretMask.mask(url: session.source), count: count, atEnd: atEnd)), s)
    }

    /// Under the lock: the tick's gains (`GainEnvelope`) on its first `sounding` frames: the
    /// current item's gain (`ItemGain`), the crossfade's (`crossfade`, as the tick began) with
    /// the outgoing item's own gain, and the cut's: faded out before a cut to come, in after
    /// one (`CutFade`), from where in the tick it came in when that was within it. Once the
    /// item's gain is not what its `player.track` said, an updated one goes out.
    private func tickEnvelope(_ t: Tick, sounding: Int, crossfade: Crossfade?, _ s: inout State) -> GainEnvelope {
        var envelope = GainEnvelope(crossfade: crossfade, outgoingGain: s.gain?.outgoingGain ?? 1)
        if s.gain != nil, let session = s.current {
            let heard = soundIsHeard(s)
            let gained = s.gain?.advance(frames: t.filled, session: ObjectIdentifier(session), source: session.source,
                                         next: s.playlist.followingItem, crossfading: crossfade != nil, heard: heard)
            if let (ramp, stale) = gained {
                (envelope.itemFrom, envelope.itemTo, envelope.itemRamp) = ramp
                if stale, let tags = s.sentTags {
                    let (index, source) = (s.playlist.index, s.playlist.current)
                    emit({ .track(index: index, source: source, durationMs: $0, tags: tags) }, durationOf: session, s)
                }
            }
        }
        // Content that came in as a cut starts silent even when nothing of it sounds in this tick.
        let (first, silentFrom) = (format.tickClock.audioFrames(atTick: t.index), cutSilentFrom(tick: t.index, s))
        guard sounding > 0, t.cutInAt != nil || s.fades.cut.moves(frames: sounding, first: first, silentFrom: silentFrom) else {
            if t.cutInAt != nil { s.fades.cut.cutIn() }
            return envelope  // full sound throughout: no gain per frame to work out
        }
        let cut = min(t.cutInAt ?? sounding, sounding)
        var gains = [Float](repeating: 1, count: sounding)
        let fading = gains.withUnsafeMutableBufferPointer { g in
            let before = s.fades.cut.gains(into: g.baseAddress!, frames: cut, first: first, silentFrom: silentFrom)
            if t.cutInAt != nil { s.fades.cut.cutIn() }
            let after = s.fades.cut.gains(into: g.baseAddress! + cut, frames: sounding - cut, first: first + UInt64(cut),
                                     silentFrom: silentFrom)
            return before || after
        }
        if fading { envelope.cut = gains }
        return envelope
    }

    /// The tick's picture, the stall watch, the taps and progress.
    /// `picture`: the frame due at the tick's middle, pulled without the lock.
    private func finishTick(_ t: Tick, picture: Buffer?, audio out: UnsafeMutablePointer<Float>,
                            _ s: inout State) -> (Rendered, [@Sendable () -> Void]) {
        // The tick's picture is the one due at its middle, so a picture is never more than
        // half a frame from its sound: an item that began in the second half of the tick
        // shows its first frame from the next tick on.
        var decoded = picture
        if let changedAt = t.changedAt, changedAt * 2 > t.frames, let picture = t.pictureAtMiddle { decoded = picture }
        // A source that gives nothing (network stall, buffering) has no picture to show: the slate stands in.
        let progressed = t.filled > 0 || (s.current.map { !$0.hasAudio || $0.audioExhausted } ?? false)
        // An endless stream whose playlist stopped growing is stalled once what was queued has played.
        let limit = s.current?.isEndlessStale == true ? MediaPlayer.stallLimit.seconds : DecodeSession.stallSeconds
        let verdict = s.watch.tick(length: t.length, progressed: progressed, filled: t.filled, frames: t.frames,
                                   playing: s.phase == .playing, item: s.current != nil, began: t.began,
                                   now: .now, limit: limit)
        let buffering = verdict.buffering
        if verdict.broken, let session = s.current {
            // Nothing for seconds, in the middle: what was queued has played out.
            session.abandon()
            itemFailed(source: session.source, DecodeSession.stalled, &s)
        }
        // The taps hear what the capture does (the tick's gains applied, `tickEnvelope`).
        var deliveries: [@Sendable () -> Void] = []
        if !s.taps.isEmpty {
            let position = s.current?.positionMs ?? 0
            deliveries = s.taps.deliveries(audio: out, frames: t.filled, video: decoded, format: format, positionMs: position)
        }
        reportProgress(&s)
        if let session = s.current { reportBrokenSamples(of: session, &s) }
        return (mixed(Rendered(audioFrames: t.filled, video: feedsVideo && !buffering ? decoded : nil), s), deliveries)
    }
}

/// Where one connection's samples land on its own timeline (a pure value, no
/// GStreamer): every connection starts at zero with a keyframe. The base is the
/// running time of the first keyframe (of the first sound, for an output without
/// pictures); audio that comes before it is held, and goes out after that keyframe,
/// in order. Nothing earlier than the base goes out.
///
/// Times are nanoseconds. A sample is moved back by its `Shift`: its own PTS offset
/// (encoders may stamp from an offset: x264enc starts at 1000 h) plus the base, less
/// the `lead`.
///
/// With B-frames a picture is decoded before it is shown: the keyframe's DTS is earlier
/// than its PTS by the encoder's reorder delay, and no decoding time may be before zero
/// (clamped, the first pictures would share a DTS and muxers would misplace them). So
/// the base is that much before the keyframe: sound from there goes out, the keyframe
/// is shown that much later (the publisher encodes no picture before a few frames in,
/// so the run's first keyframe leaves room). A keyframe too early for that (running
/// time less than the delay) has everything go out that much later instead (`lead`),
/// but a fragmented MP4 starts each track at its own first decoding time, where that
/// would put the picture late against the sound: it waits for the next keyframe.
struct OutputTimeline<Held> {
    /// A sample's times: the PTS its encoder stamped and its running time.
    struct Stamp: Equatable {
        let pts: UInt
        let runningTime: UInt
        /// How much earlier it is decoded than shown (PTS − DTS); 0 without a DTS.
        let reorder: UInt

        /// nil when the PTS is before the running time (no offset to take off). A DTS
        /// more than `maxReorder` before the PTS is not believed (taken as that much).
        init?(pts: UInt, runningTime: UInt, dts: UInt? = nil) {
            guard pts >= runningTime else { return nil }
            self.pts = pts
            self.runningTime = runningTime
            reorder = dts.map { pts > $0 ? min(pts - $0, Stamp.maxReorder) : 0 } ?? 0
        }

        /// 10 s: far more than any encoder's B-frames delay a picture.
        static var maxReorder: UInt { 10_000_000_000 }
    }

    /// How far back (ns) a sample's presentation and decoding times are moved.
    struct Shift: Equatable {
        let pts: Int
        let dts: Int
    }

    /// Held audio let go: pushed in this order, after the keyframe that fixed the base.
    struct Release {
        let item: Held
        let shift: Shift
    }

    enum Placement {
        /// Not sent: a picture before the first keyframe, or anything before the base.
        case drop
        /// Audio before the first keyframe: kept until it comes.
        case hold
        /// Sent, moved back by `Shift`.
        case push(Shift)
        /// The sample that fixed the base, then the held audio that goes out after it.
        case first(Shift, released: [Release])
    }

    /// Whether pictures come too (then audio waits for the first keyframe).
    let hasVideo: Bool
    /// AAC encoders prime with 1024 samples: the first decoded sound is that late, so
    /// pictures are stamped as late too (ns) and stay in sync in every player.
    let videoDelay: Int
    /// A fragmented MP4 starts every track's decoding at zero (no edit list), so there
    /// the delay rides on the presentation time alone (a composition offset), which it keeps.
    let delaysByCompositionOffset: Bool
    /// At most this many sounds are held (the oldest go first).
    let maxHeld: Int

    /// The running time that is zero on this connection, once fixed.
    private(set) var base: UInt?
    /// How late (ns) everything goes out: the first keyframe's reorder delay when that
    /// keyframe came earlier than it (0 without B-frames, and when the base went back).
    private(set) var lead: UInt = 0
    /// How far after the base the first picture is decoded (the base snapped back to a
    /// sound frame); a fragmented MP4's pictures decode from zero, so theirs go back by it.
    private var firstDecode: UInt = 0
    private var held: [(item: Held, stamp: Stamp)] = []

    init(hasVideo: Bool, videoDelay: Int, delaysByCompositionOffset: Bool, maxHeld: Int = 2000) {
        self.hasVideo = hasVideo
        self.videoDelay = videoDelay
        self.delaysByCompositionOffset = delaysByCompositionOffset
        self.maxHeld = maxHeld
    }

    /// The base is fixed: nothing is held any more.
    var isAnchored: Bool { base != nil }

    /// Sounds held for the first keyframe.
    var heldCount: Int { held.count }

    /// Places a sample (a picture when `video`) on the timeline.
    mutating func place(_ item: Held, at stamp: Stamp, video: Bool, keyframe: Bool) -> Placement {
        guard let base else {
            if !video && hasVideo {
                // Audio encodes faster than video: held until the first keyframe fixes the base.
                held.append((item, stamp))
                if held.count > maxHeld { held.removeFirst() }
                return .hold
            }
            if video && !keyframe { return .drop }
            let reorder = video ? stamp.reorder : 0
            // Sound from there on is held, or still to come (it is encoded apart, often later).
            let goesBack = reorder > 0 && reorder <= stamp.runningTime
            if reorder > 0 && !goesBack && delaysByCompositionOffset { return .drop }
            let base = goesBack ? snappedToAudioFrame(stamp.runningTime - reorder) : stamp.runningTime
            self.base = base
            lead = goesBack ? 0 : reorder
            firstDecode = goesBack ? stamp.runningTime - reorder - base : 0
            let released = held.compactMap { h -> Release? in
                h.stamp.runningTime >= base ? Release(item: h.item, shift: shift(of: h.stamp, base: base, video: false)) : nil
            }
            held = []
            return .first(shift(of: stamp, base: base, video: video), released: released)
        }
        guard stamp.runningTime >= base else { return .drop }
        return .push(shift(of: stamp, base: base, video: video))
    }

    /// `t` moved back to the start of the sound's frame it falls in. AAC-LC primes with one
    /// frame (1024 samples), so the sound's frames lie on a grid of `videoDelay` from zero:
    /// the first sound that goes out is then at the base itself, which a fragmented MP4,
    /// starting each track at its own first sample, needs to keep the picture in sync.
    private func snappedToAudioFrame(_ t: UInt) -> UInt {
        videoDelay > 0 ? t - t % UInt(videoDelay) : t
    }

    private func shift(of stamp: Stamp, base: UInt) -> Int {
        let (sum, overflow) = (stamp.pts - stamp.runningTime).addingReportingOverflow(base)
        return (overflow ? Int.max : Int(clamping: sum)) - Int(lead)
    }

    private func shift(of stamp: Stamp, base: UInt, video: Bool) -> Shift {
        let shift = shift(of: stamp, base: base)
        guard video else { return Shift(pts: shift, dts: shift) }
        // Pictures are shown as late as the AAC priming.
        let (decoding, overflow) = shift.addingReportingOverflow(Int(firstDecode))
        return Shift(pts: shift - videoDelay, dts: delaysByCompositionOffset ? (overflow ? Int.max : decoding) : shift - videoDelay)
    }
}

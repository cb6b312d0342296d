import XCTest
@testable import MediaPub

/// The output's timestamp rebasing, without GStreamer: every connection starts at
/// zero with a keyframe, audio before it is held and goes out after it in order.
final class OutputTimelineTests: XCTestCase {
    typealias Timeline = OutputTimeline<String>
    private let ms: UInt = 1_000_000

    private func stamp(_ runningMs: UInt, offsetMs: UInt = 0) -> Timeline.Stamp {
        Timeline.Stamp(pts: (runningMs + offsetMs) * ms, runningTime: runningMs * ms)!
    }

    private func shift(_ ns: Int) -> Timeline.Shift { Timeline.Shift(pts: ns, dts: ns) }

    func testAStampBeforeItsRunningTimeIsRefused() {
        XCTAssertNil(Timeline.Stamp(pts: 1, runningTime: 2))
        XCTAssertNotNil(Timeline.Stamp(pts: 2, runningTime: 2))
    }

    func testPicturesBeforeTheFirstKeyframeAreDroppedAndTheKeyframeIsZero() {
        var t = Timeline(hasVideo: true, videoDelay: 0, delaysByCompositionOffset: false)
        guard case .drop = t.place("p0", at: stamp(40), video: true, keyframe: false) else { return XCTFail() }
        XCTAssertFalse(t.isAnchored)
        guard case .first(let s, let released) = t.place("k", at: stamp(80), video: true, keyframe: true) else { return XCTFail() }
        XCTAssertEqual(s, shift(80_000_000))
        XCTAssertTrue(released.isEmpty)
        XCTAssertEqual(t.base, 80 * ms)
        guard case .push(let next) = t.place("p", at: stamp(120), video: true, keyframe: false) else { return XCTFail() }
        XCTAssertEqual(next, shift(80_000_000), "later pictures keep their distance from the keyframe")
    }

    func testAudioBeforeTheKeyframeIsHeldThenReleasedInOrderFromTheBase() {
        var t = Timeline(hasVideo: true, videoDelay: 0, delaysByCompositionOffset: false)
        for (name, at) in [("a0", UInt(0)), ("a1", 21), ("a2", 42), ("a3", 64)] {
            guard case .hold = t.place(name, at: stamp(at), video: false, keyframe: true) else { return XCTFail(name) }
        }
        XCTAssertEqual(t.heldCount, 4)
        guard case .first(_, let released) = t.place("k", at: stamp(40), video: true, keyframe: true) else { return XCTFail() }
        // Sound before the base never goes out; what is left keeps its order.
        XCTAssertEqual(released.map(\.item), ["a2", "a3"])
        XCTAssertEqual(released.map(\.shift), [shift(40_000_000), shift(40_000_000)])
        XCTAssertEqual(t.heldCount, 0)
        guard case .push = t.place("a4", at: stamp(85), video: false, keyframe: true) else { return XCTFail() }
        guard case .drop = t.place("late", at: stamp(30), video: false, keyframe: true) else { return XCTFail("before the base") }
    }

    func testHeldAudioIsBoundedOldestFirst() {
        var t = Timeline(hasVideo: true, videoDelay: 0, delaysByCompositionOffset: false, maxHeld: 3)
        for i in 0..<5 { _ = t.place("a\(i)", at: stamp(UInt(i) * 20), video: false, keyframe: true) }
        XCTAssertEqual(t.heldCount, 3)
        guard case .first(_, let released) = t.place("k", at: stamp(0), video: true, keyframe: true) else { return XCTFail() }
        XCTAssertEqual(released.map(\.item), ["a2", "a3", "a4"])
    }

    func testWithoutPicturesTheFirstSoundIsTheBase() {
        var t = Timeline(hasVideo: false, videoDelay: 0, delaysByCompositionOffset: false)
        guard case .first(let s, let released) = t.place("a0", at: stamp(500), video: false, keyframe: true) else { return XCTFail() }
        XCTAssertEqual(s, shift(500_000_000))
        XCTAssertTrue(released.isEmpty)
        guard case .push(let next) = t.place("a1", at: stamp(521), video: false, keyframe: true) else { return XCTFail() }
        XCTAssertEqual(next, shift(500_000_000))
    }

    func testTheEncodersOwnPTSOffsetIsTakenOff() {
        // x264enc stamps from 1000 h: the offset of PTS over running time comes off too.
        let offset: UInt = 3_600_000 * 1000
        var t = Timeline(hasVideo: true, videoDelay: 0, delaysByCompositionOffset: false)
        guard case .first(let s, _) = t.place("k", at: stamp(100, offsetMs: offset), video: true, keyframe: true) else { return XCTFail() }
        XCTAssertEqual(s, shift(Int((offset + 100) * ms)))
        guard case .push(let audio) = t.place("a", at: stamp(120), video: false, keyframe: true) else { return XCTFail() }
        XCTAssertEqual(audio, shift(100_000_000), "audio from an encoder without an offset")
    }

    func testPicturesAreAsLateAsTheAACPriming() {
        let delay = 21_333_333
        // A fragmented MP4 starts decoding at zero: there the delay is a composition offset alone.
        for composition in [false, true] {
            var t = Timeline(hasVideo: true, videoDelay: delay, delaysByCompositionOffset: composition)
            guard case .first(let s, _) = t.place("k", at: stamp(40), video: true, keyframe: true) else { return XCTFail() }
            XCTAssertEqual(s, Timeline.Shift(pts: 40_000_000 - delay, dts: composition ? 40_000_000 : 40_000_000 - delay))
            guard case .push(let audio) = t.place("a", at: stamp(60), video: false, keyframe: true) else { return XCTFail() }
            XCTAssertEqual(audio, shift(40_000_000), "sound is not delayed")
        }
    }

    func testHugeTimesDoNotTrap() {
        var t = Timeline(hasVideo: false, videoDelay: 0, delaysByCompositionOffset: false)
        let big = Timeline.Stamp(pts: UInt.max, runningTime: UInt.max / 2)!
        guard case .first(let s, _) = t.place("a", at: big, video: false, keyframe: true) else { return XCTFail() }
        XCTAssertEqual(s, shift(Int.max))
        // A keyframe decoded well before it is shown, in an MP4 (its decoding time moved the most).
        var mp4 = Timeline(hasVideo: true, videoDelay: 30_000_000, delaysByCompositionOffset: true)
        let kf = Timeline.Stamp(pts: UInt.max, runningTime: UInt.max / 2, dts: UInt.max - 80 * ms)!
        guard case .first(let v, _) = mp4.place("k", at: kf, video: true, keyframe: true) else { return XCTFail() }
        XCTAssertEqual(v.dts, Int.max)
    }

    /// With B-frames the keyframe is decoded before it is shown: the base goes back by that
    /// reorder delay, snapped to the start of a sound frame (the AAC priming's grid), so
    /// no decoding time is before zero and sound from the base goes out; in a fragmented
    /// MP4 the pictures' decoding starts at zero exactly.
    func testBFramesMoveTheBaseBackByTheReorderDelay() {
        let delay = 30_000_000
        for composition in [false, true] {
            var t = Timeline(hasVideo: true, videoDelay: delay, delaysByCompositionOffset: composition)
            for at in [UInt(0), 30, 60] { _ = t.place("a\(at)", at: stamp(at), video: false, keyframe: true) }
            let kf = Timeline.Stamp(pts: 160 * ms, runningTime: 160 * ms, dts: 80 * ms)!
            XCTAssertEqual(kf.reorder, 80 * ms)
            guard case .first(let s, let released) = t.place("k", at: kf, video: true, keyframe: true) else { return XCTFail() }
            XCTAssertEqual(t.base, 60 * ms, "80 ms before the keyframe, back to a sound frame")
            XCTAssertEqual(t.lead, 0)
            XCTAssertEqual(released.map(\.item), ["a60"])
            XCTAssertEqual(released.map(\.shift), [shift(60_000_000)], "the first sound is at zero")
            XCTAssertEqual(Int(160 * ms) - s.pts, 130_000_000, "the keyframe is shown 100 ms after the base, plus the priming")
            XCTAssertEqual(Int(80 * ms) - s.dts, composition ? 0 : 50_000_000, "decoded at zero (MP4) or after it")
        }
    }

    /// A keyframe earlier than its reorder delay leaves no room before it: everything goes
    /// out that much later, except in a fragmented MP4, which waits for the next keyframe.
    func testAKeyframeTooEarlyForItsReorderDelay() {
        // x264enc-like stamps: PTS 1 s over the running time, decoded 80 ms before shown.
        let early = Timeline.Stamp(pts: 1040 * ms, runningTime: 40 * ms, dts: 960 * ms)!
        var t = Timeline(hasVideo: true, videoDelay: 0, delaysByCompositionOffset: false)
        guard case .first(let s, _) = t.place("k", at: early, video: true, keyframe: true) else { return XCTFail() }
        XCTAssertEqual(t.base, 40 * ms)
        XCTAssertEqual(t.lead, 80 * ms)
        XCTAssertEqual(s, shift(960_000_000), "shown at 80 ms, decoded at zero")
        var mp4 = Timeline(hasVideo: true, videoDelay: 0, delaysByCompositionOffset: true)
        guard case .drop = mp4.place("k", at: early, video: true, keyframe: true) else { return XCTFail() }
        XCTAssertFalse(mp4.isAnchored)
        let next = Timeline.Stamp(pts: 2040 * ms, runningTime: 1040 * ms, dts: 1960 * ms)!
        guard case .first = mp4.place("k2", at: next, video: true, keyframe: true) else { return XCTFail() }
        XCTAssertEqual(mp4.base, 960 * ms)
        XCTAssertEqual(mp4.lead, 0)
    }
}

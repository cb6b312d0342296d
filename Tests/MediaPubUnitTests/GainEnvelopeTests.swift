// One tick's gains as one envelope (GainEnvelope): the item's loudness ramp, a crossfade's
// gains on both items and the cut-fade, applied in one pass, give what the stages gave one
// after the other (each computed here from its own definition), and nothing is touched
// when there is no gain to apply.

import XCTest
@testable import MediaPub

final class GainEnvelopeTests: XCTestCase {
    private let channels = 2
    private let frames = 960

    /// A tick of `frames` stereo frames, each sample distinct.
    private func samples(_ seed: Float) -> [Float] {
        (0..<(frames * channels)).map { sin(Float($0) * 0.37 + seed) * 0.5 }
    }

    private func applied(_ envelope: inout GainEnvelope, _ incoming: [Float], incomingFrames: Int,
                         outgoing: [Float]? = nil, outgoingFrames: Int = 0) -> ([Float], Int) {
        var out = incoming
        let sounding = out.withUnsafeMutableBufferPointer { o in
            if let outgoing {
                return outgoing.withUnsafeBufferPointer {
                    envelope.apply(to: o.baseAddress!, incoming: incomingFrames, outgoing: $0.baseAddress!,
                                   outgoingFrames: outgoingFrames, frames: frames, channels: channels)
                }
            }
            return envelope.apply(to: o.baseAddress!, incoming: incomingFrames, outgoing: nil, outgoingFrames: 0,
                                  frames: frames, channels: channels)
        }
        return (out, sounding)
    }

    func testNoGainLeavesTheSamplesAsTheyAre() {
        var envelope = GainEnvelope()
        XCTAssertTrue(envelope.isUnity)
        let input = samples(1)
        let (out, sounding) = applied(&envelope, input, incomingFrames: 700)
        XCTAssertEqual(out, input, "not a sample changed")
        XCTAssertEqual(sounding, 700)
    }

    /// The item's ramp, a crossfade a third of the way in (equal power, the outgoing item at its own
    /// gain and scaled, as after a skip during a fade), and a cut-fade falling within the tick: the
    /// one pass gives, to rounding, the item gain, then the crossfade's mix, then the cut-fade.
    func testOnePassIsTheStagesOneAfterTheOther() throws {
        let incoming = samples(0.3), outgoing = samples(2.1)
        let (g0, g1, ramp) = (Float(0.5), Float(0.8), 400)
        var fade = Crossfade(length: 3 * frames, curve: .equalPower, outgoingScale: 0.9)
        fade.advance(by: frames)  // a tick in
        let outgoingGain = Float(0.7)
        // A cut at frame 1500 of the timeline, this tick beginning at frame 1000: it fades out from 1500 - 2205.
        let (first, silentFrom) = (UInt64(1000), UInt64(1500 + 2205))
        var cutFade = CutFade(sampleRate: 44100)
        var cutGains = [Float](repeating: 1, count: frames)
        XCTAssertTrue(cutGains.withUnsafeMutableBufferPointer {
            cutFade.gains(into: $0.baseAddress!, frames: frames, first: first, silentFrom: silentFrom)
        }, "the cut-fade moves within this tick")

        var envelope = GainEnvelope(itemFrom: g0, itemTo: g1, itemRamp: ramp, crossfade: fade, outgoingGain: outgoingGain,
                                    cut: cutGains)
        let (out, sounding) = applied(&envelope, incoming, incomingFrames: frames, outgoing: outgoing, outgoingFrames: 800)
        XCTAssertEqual(sounding, frames)
        XCTAssertEqual(envelope.crossfade?.position, 2 * frames, "the fade moved on by the tick")

        // The stages, one after the other, from their definitions.
        var expected = incoming
        var check = CutFade(sampleRate: 44100)
        for f in 0..<frames {
            let item = f < ramp ? g0 + (g1 - g0) * Float(f) / Float(ramp) : g1
            let x = Double(frames + f) / Double(3 * frames) * Double.pi / 2
            let (g, h) = (Float(cos(x)) * 0.9, Float(sin(x)))
            for c in 0..<channels {
                let k = f * channels + c
                expected[k] = incoming[k] * item * h + (f < 800 ? outgoing[k] * outgoingGain * g : 0)
            }
        }
        expected.withUnsafeMutableBufferPointer {
            check.apply(to: $0.baseAddress!, frames: frames, channels: channels, first: first, silentFrom: silentFrom)
        }
        let worst = zip(out, expected).map { abs($0 - $1) }.max() ?? 1
        XCTAssertLessThan(worst, 1e-6, "the one pass is the stages in series")
        XCTAssertEqual(cutGains[499], 1, "full sound up to where the fade-out begins")
        XCTAssertEqual(cutGains[frames - 1], Float(2205 - 460) / 2205, accuracy: 1e-6, "then falling a step a frame")
    }

    /// Without a crossfade (the common tick): the item's ramp then its gain, with and without a
    /// cut-fade, as their definitions say; frames past the item's are left alone.
    func testTheItemGainAloneWithAndWithoutACut() {
        let input = samples(1.7)
        let cut = (0..<frames).map { Float(max(0, 600 - $0)) / 600 }
        for withCut in [false, true] {
            var envelope = GainEnvelope(itemFrom: 0.25, itemTo: 0.5, itemRamp: 300, cut: withCut ? cut : nil)
            let (out, sounding) = applied(&envelope, input, incomingFrames: 900)
            XCTAssertEqual(sounding, 900)
            for f in [0, 150, 299, 300, 899] {
                let g = (f < 300 ? 0.25 + 0.25 * Float(f) / 300 : 0.5) * (withCut ? cut[f] : 1)
                XCTAssertEqual(out[f * channels + 1], input[f * channels + 1] * g, accuracy: 1e-6, "frame \(f), cut \(withCut)")
            }
            XCTAssertEqual(out[900 * channels], input[900 * channels], "past the item's frames: untouched")
        }
    }

    /// Without the incoming item (loading after a skip) the outgoing one goes on alone at its gain
    /// as the fade stands, and the fade does not move.
    func testTheOutgoingItemAloneKeepsItsGainWhileTheFadeWaits() {
        let outgoing = samples(0.8)
        let fade = Crossfade(length: 2 * frames, curve: .linear)
        var envelope = GainEnvelope(crossfade: fade, advance: false, outgoingGain: 0.5)
        let (out, sounding) = applied(&envelope, [Float](repeating: 0, count: frames * channels), incomingFrames: 0,
                                      outgoing: outgoing, outgoingFrames: 500)
        XCTAssertEqual(sounding, 500)
        XCTAssertEqual(envelope.crossfade?.position, 0)
        XCTAssertEqual(out[0], outgoing[0] * 0.5, accuracy: 1e-7)
        XCTAssertEqual(out[499 * channels + 1], outgoing[499 * channels + 1] * 0.5, accuracy: 1e-7)
        XCTAssertEqual(out[500 * channels], 0, "nothing past what it gave")
    }
}

// The gain across a cut (CutFade): silent from the cut's first frame, faded out over
// the 50 ms before it, the incoming faded in, a cut called off brought back; never a
// step larger than 1/length, and no trap at the far end of the timeline.

import XCTest
@testable import MediaPub

final class CutFadeTests: XCTestCase {
    /// `frames` of mono full scale, through the fade in blocks of `block` frames from timeline frame `first`.
    private func run(_ fade: inout CutFade, frames: Int, block: Int = 441, first: UInt64 = 0, silentFrom: UInt64?) -> [Float] {
        var out: [Float] = []
        var at = 0
        while at < frames {
            var chunk = [Float](repeating: 1, count: min(block, frames - at))
            let count = chunk.count
            chunk.withUnsafeMutableBufferPointer {
                fade.apply(to: $0.baseAddress!, frames: count, channels: 1, first: first + UInt64(at), silentFrom: silentFrom)
            }
            out += chunk
            at += count
        }
        return out
    }

    func testFadesOutBeforeTheCutAndInAfter() {
        var fade = CutFade(sampleRate: 44100)
        XCTAssertEqual(fade.length, 2205, "50 ms")
        let before = run(&fade, frames: 10_000, silentFrom: 10_000)
        XCTAssertEqual(before[..<(10_000 - 2205)].min(), 1, "full sound before the fade")
        XCTAssertEqual(before.last, 0, "silent at the frame before the cut")
        XCTAssertEqual(before[10_000 - 2205], 1 - 1 / 2205, accuracy: 1e-6, "the fade begins 50 ms before the cut")
        fade.cutIn()
        let after = run(&fade, frames: 4000, first: 10_000, silentFrom: nil)
        XCTAssertEqual(after[0], 1 / 2205, accuracy: 1e-6, "the incoming starts from silence")
        XCTAssertEqual(after[2204], 1, accuracy: 1e-5, "and is full after 50 ms")
        XCTAssertEqual(after[2205...].min(), 1)
        let all = before + after
        let step = zip(all.dropFirst(), all).map { abs($0 - $1) }.max() ?? 0
        XCTAssertLessThanOrEqual(step, 1 / 2205 + 1e-6, "no step larger than the fade's")
    }

    func testACutCalledOffBringsTheSoundBack() {
        var fade = CutFade(sampleRate: 48000)
        let faded = run(&fade, frames: 1200, silentFrom: 2400)  // halfway into the 2400-frame fade-out
        XCTAssertEqual(faded.last ?? 0, 0.5, accuracy: 0.01)
        let back = run(&fade, frames: 3000, first: 1200, silentFrom: nil)
        XCTAssertEqual(back[0], 0.5 + 1 / 2400, accuracy: 0.01, "it goes back up from where it was")
        XCTAssertEqual(back[1199], 1, accuracy: 1e-5)
        XCTAssertEqual(fade.gain, 1)
    }

    func testTheFarEndOfTheTimelineDoesNotTrap() {
        var fade = CutFade(sampleRate: 44100)
        let out = run(&fade, frames: 100, first: .max - 10, silentFrom: .max)
        XCTAssertEqual(out.count, 100)
        XCTAssertLessThan(out.last ?? 1, 1, "past the end counts as silent (the gain goes down)")
        var none = CutFade(sampleRate: 0)
        XCTAssertEqual(none.length, 1)
        XCTAssertEqual(run(&none, frames: 10, silentFrom: 5)[5...].max(), 0)
    }
}

import XCTest
@testable import MediaPub

/// The aux mix's arithmetic: sums at gains, silence reused, and the limiter.
final class MixerTests: XCTestCase {
    func testAddSumsAtItsGainOverCountSamplesOnly() {
        var mix: [Float] = [0.1, 0.2, 0.3, 0.4]
        Mixer.add([1, -1, 0.5, 9], into: &mix, count: 3, gain: 0.5)
        XCTAssertEqual(mix, [0.6, -0.3, 0.55, 0.4])
    }

    func testAGainOfZeroOrLessAddsNothing() {
        var mix: [Float] = [0.25, -0.25]
        Mixer.add([1, 1], into: &mix, count: 2, gain: 0)
        Mixer.add([1, 1], into: &mix, count: 2, gain: -1)
        XCTAssertEqual(mix, [0.25, -0.25])
    }

    func testSilenceKeepsItsStorageWhenTheCountIsUnchanged() {
        var buffer: [Float] = [1, 2, 3]
        let before = buffer.withUnsafeBufferPointer { $0.baseAddress }
        Mixer.silence(&buffer, count: 3)
        XCTAssertEqual(buffer, [0, 0, 0])
        XCTAssertEqual(buffer.withUnsafeBufferPointer { $0.baseAddress }, before)
        Mixer.silence(&buffer, count: 5)
        XCTAssertEqual(buffer, [0, 0, 0, 0, 0])
    }

    func testTheLimiterClipsAtFullScaleAndNeverWraps() {
        var mix: [Float] = [0, 0.5, -0.5, 1, -1, 1.0001, -1.0001, 7, -300, .infinity, -.infinity]
        Mixer.limit(&mix)
        XCTAssertEqual(mix, [0, 0.5, -0.5, 1, -1, 1, -1, 1, -1, 1, -1])
    }

    func testTwoLoudSourcesMixedAreLimited() {
        var mix = [Float](repeating: 0, count: 4)
        Mixer.add([0.8, -0.8, 0.8, 0.1], into: &mix, count: 4, gain: 1)
        Mixer.add([0.8, -0.8, -0.8, 0.1], into: &mix, count: 4, gain: 1)
        Mixer.limit(&mix)
        XCTAssertEqual(mix[0], 1)
        XCTAssertEqual(mix[1], -1)
        XCTAssertEqual(mix[2], 0)
        XCTAssertEqual(mix[3], 0.2, accuracy: 1e-6)
    }
}

// The output timeline's clock: each tick's picture and sound times, exact over any
// run length (a 24/7 run is never stopped by its own arithmetic).

import XCTest
@testable import MediaPub

final class TickClockTests: XCTestCase {
    func testTicksAndAudioFramesAreExactAndAddUp() {
        let clock = TickClock(tickRate: 30, sampleRate: 44100)
        XCTAssertEqual(clock.time(ofTick: 0), .zero)
        XCTAssertEqual(clock.time(ofTick: 1), ClockTime(nanoseconds: 33_333_333), "floored, never rounded up")
        XCTAssertEqual(clock.time(ofTick: 30), .second)
        XCTAssertEqual(clock.audioFrames(atTick: 1), 1470)
        XCTAssertEqual(clock.audioTime(atTick: 30), .second)
        // The ticks' frames add up to the second's: no sample lost or doubled between ticks.
        let frames = (0..<30).map { clock.audioFrames(atTick: $0 + 1) - clock.audioFrames(atTick: $0) }
        XCTAssertEqual(frames.reduce(0, +), 44100)
        XCTAssertEqual(clock.audioDuration(frames: 441), ClockTime(nanoseconds: 10_000_000))
    }

    /// At 48 kHz, frames × 10⁹ passes 2⁶⁴ after 4.4 days: times a month in are still exact.
    func testAMonthIntoARunTheTimesAreExact() {
        let clock = TickClock(tickRate: 25, sampleRate: 48000)
        let month: UInt64 = 30 * 86400
        let tick = month * 25
        XCTAssertEqual(clock.time(ofTick: tick), ClockTime(nanoseconds: month * ClockTime.nanosecondsPerSecond))
        XCTAssertEqual(clock.audioFrames(atTick: tick), month * 48000)
        XCTAssertEqual(clock.audioTime(atTick: tick), ClockTime(nanoseconds: month * ClockTime.nanosecondsPerSecond))
        XCTAssertEqual(clock.audioTime(atTick: tick + 1) - clock.audioTime(atTick: tick), ClockTime(nanoseconds: 40_000_000))
        // Far past any run (2^62 ticks): saturated, never a trap.
        XCTAssertGreaterThan(clock.audioTime(atTick: 1 << 62), clock.audioTime(atTick: tick))
    }

    /// The tick of an output second (a scheduled action's, a cue's): the nearest, never a trap.
    func testTheTickOfAnOutputSecond() {
        let clock = MediaFormat(sampleRate: 44100, channels: 2, video: (320, 180, 25)).tickClock
        XCTAssertEqual(clock.tickRate, 25)
        XCTAssertEqual(clock.tick(at: 10.0), 250)
        XCTAssertEqual(clock.tick(at: 10.019), 250)
        XCTAssertEqual(clock.tick(at: 10.021), 251)
        XCTAssertEqual(MediaFormat(sampleRate: 48000, channels: 2, video: nil).tickClock.tick(at: 1), 50, "audio only: 50 a second")
        for bad: Double in [-1, -.infinity, .nan] { XCTAssertEqual(clock.tick(at: bad), 0, "\(bad)") }
        XCTAssertEqual(clock.tick(at: .infinity), 1 << 62)
        XCTAssertEqual(clock.tick(at: 1e300), 1 << 62)
    }
}

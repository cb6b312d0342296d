import Foundation
import XCTest
@testable import MediaPub

/// A live feed's jitter buffer (`LiveFeedBuffer`, docs/presets.md, live), fed tick by tick
/// as the capture feeds it: mono sound whose every sample is its own frame number (so
/// what is played says exactly which sound it is), and numbered pictures at 25 fps of
/// the feed's own clock. Pure: no media, no clock.
final class LiveFeedBufferTests: XCTestCase {
    private let rate = 44100, tickRate = 25
    private var tickFrames: Int { rate / tickRate }

    override func setUp() { GStreamer.initialize() }  // the pictures are GstBuffers

    /// A sender: `perTick` frames of its clock each output tick, handed over `burst` ticks at a time.
    private struct Sender {
        let perTick: Double
        let burst: Int
        var sent = 0.0
        var next = 1  // frame numbers start at 1: a 0 played is silence
        var pictures: [Buffer] = []

        /// What it hands over at tick `n` (frame numbers), and its pictures due in it, each with its lead.
        mutating func tick(_ n: Int, framesPerPicture: Double) -> ([Float], [(Buffer, Double)]) {
            guard (n + 1) % burst == 0 else { return ([], []) }
            sent += perTick * Double(burst)
            var sound: [Float] = []
            while Double(next) <= sent { sound.append(Float(next)); next += 1 }
            var shown: [(Buffer, Double)] = []
            // Each picture due in this sound, with how far before its end it is (as the player says it).
            while Double(pictures.count) * framesPerPicture < Double(next - 1) {
                let picture = [UInt8(pictures.count % 256)].withUnsafeBytes { Buffer(copying: $0) }
                let lead = (Double(next - 1) - Double(pictures.count) * framesPerPicture) / 44100
                pictures.append(picture)
                shown.append((picture, lead))
            }
            return (sound, shown)
        }
    }

    /// Runs `ticks` ticks, on air from `onAirFrom`: what was played and the picture shown at each tick.
    private func run(_ sender: inout Sender, ticks: Int, onAirFrom: Int, framesPerPicture: Double,
                     _ buffer: inout LiveFeedBuffer) -> (played: [[Float]], pictures: [Int?], fills: [Int]) {
        var played: [[Float]] = [], shown: [Int?] = [], fills: [Int] = []
        for n in 0..<ticks {
            let (sound, pictures) = sender.tick(n, framesPerPicture: framesPerPicture)
            if pictures.isEmpty {
                sound.withUnsafeBufferPointer { buffer.put($0.baseAddress ?? UnsafePointer(bitPattern: 8)!, frames: sound.count,
                                                            picture: nil, before: nil, onAir: n >= onAirFrom) }
            } else {
                // The player gives its sound a tick at a time, each with the picture due at its end.
                for (i, (picture, lead)) in pictures.enumerated() {
                    let part = i == 0 ? sound : []
                    part.withUnsafeBufferPointer { buffer.put($0.baseAddress ?? UnsafePointer(bitPattern: 8)!, frames: part.count,
                                                               picture: picture, before: lead, onAir: n >= onAirFrom) }
                }
            }
            buffer.took(sound.count)
            if n < onAirFrom {
                buffer.idle()
                continue
            }
            var out = [Float](repeating: -1, count: tickFrames)
            let picture = out.withUnsafeMutableBufferPointer { buffer.play(frames: tickFrames, into: $0.baseAddress!) }
            played.append(out)
            shown.append(picture.flatMap { p in sender.pictures.lastIndex { $0 === p } })
            fills.append(buffer.fill)
        }
        return (played, shown, fills)
    }

    /// An MPEG-TS sender's sound comes some 300 ms at a time: on air, none of it is lost
    /// and nothing is silent between bursts (taken as it came, a tick had nothing for
    /// 200 ms of each 320), and a feed on time is played untouched, sample for sample.
    func testBurstsPlayWithoutAGapAndAFeedOnTimeUntouched() {
        var buffer = LiveFeedBuffer(channels: 1, sampleRate: rate, tickRate: tickRate)
        var sender = Sender(perTick: Double(tickFrames), burst: 8)
        let (played, _, fills) = run(&sender, ticks: 300, onAirFrom: 40, framesPerPicture: 1764, &buffer)
        let all = played.joined()
        XCTAssertFalse(all.contains(0), "no silence on air")
        let steps = zip(all.dropFirst(), all).filter { $0 - $1 != 1 }.count
        XCTAssertEqual(steps, 0, "every frame the one after the last")
        XCTAssertGreaterThan(fills.min() ?? 0, 0)
        XCTAssertEqual(buffer.delay, 0.42, accuracy: 0.2, "a burst of 320 ms and 150 ms")
        // Pictures the decoding passed over (a feed of more pictures a second) count as dropped on air only.
        let dropped = buffer.framesDropped
        buffer.passedOver(5, onAir: true)
        buffer.passedOver(7, onAir: false)
        XCTAssertEqual(buffer.framesDropped, dropped + 5)
    }

    /// A sender 1 % fast or slow for 40 s: the fill (the feed's delay) stays within 200 ms
    /// of where it was, no sound is dropped in a lump, and the picture shown is the one
    /// due with the sound played, within a frame, by dropping (fast) or repeating (slow) pictures.
    func testADriftingFeedKeepsItsDelayAndItsPicturesFollowItsSound() {
        for speed in [1.01, 0.99] {
            var buffer = LiveFeedBuffer(channels: 1, sampleRate: rate, tickRate: tickRate)
            let framesPerPicture = Double(rate) / 25  // 25 fps on the sender's clock
            var sender = Sender(perTick: Double(tickFrames) * speed, burst: 2)
            let (played, shown, _) = run(&sender, ticks: 1040, onAirFrom: 40, framesPerPicture: framesPerPicture, &buffer)
            let heard = played.map { $0[$0.count / 2] }
            // The delay: how far the sender is ahead of what is played, in seconds of its clock.
            let delays = heard.indices.map { i in (Double(i + 40) * Double(tickFrames) * speed - Double(heard[i])) / Double(rate) }
            XCTAssertEqual(delays[999], delays[50], accuracy: 0.2, "speed \(speed): delay \(delays[50]) then \(delays[999])")
            XCTAssertLessThan(delays.max() ?? 9, 0.6, "speed \(speed)")
            let all = Array(played.joined())
            XCTAssertFalse(all.contains(0), "speed \(speed): no silence")
            let jumps = zip(all.dropFirst(), all).filter { abs($0 - $1) > 2 }
            XCTAssertTrue(jumps.isEmpty, "speed \(speed): no lump dropped: \(jumps.prefix(3))")
            for (sound, picture) in zip(heard, shown) {
                let due = Double(sound) / framesPerPicture
                XCTAssertEqual(Double(picture ?? -9), due, accuracy: 1.5, "speed \(speed)")
            }
            if speed > 1 {
                XCTAssertEqual(Double(buffer.framesDropped), 10, accuracy: 6, "1 % of 1000 pictures dropped")
            } else {
                XCTAssertEqual(Double(buffer.framesRepeated), 10, accuracy: 6, "1 % of 1000 pictures repeated")
            }
        }
    }
}

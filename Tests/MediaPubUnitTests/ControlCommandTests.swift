import Foundation
import XCTest
@testable import MediaPub

/// Control command words → a checked command, or the message that refuses them
/// (nothing is run here: no broadcast, no socket).
final class ControlCommandTests: XCTestCase {
    private let players = ["music", "voice"]

    private func parse(_ words: String...) -> Result<ControlCommand, ControlFailure> {
        Result { () throws(ControlFailure) in try ControlCommand.parse(words, players: players) }
    }

    private func refused(_ words: String..., file: StaticString = #filePath, line: UInt = #line) -> String? {
        do throws(ControlFailure) {
            let command = try ControlCommand.parse(words, players: players)
            XCTFail("\(words) was taken as \(command)", file: file, line: line)
            return nil
        } catch {
            return error.message
        }
    }

    func testCommandsAndTheirArguments() {
        XCTAssertEqual(parse("status"), .success(.status))
        XCTAssertEqual(parse("publish", "on"), .success(.publish(true)))
        XCTAssertEqual(parse("publish", "No"), .success(.publish(false)))
        XCTAssertEqual(parse("pause"), .success(.transport(.pause, player: nil)))
        XCTAssertEqual(parse("next", "voice"), .success(.transport(.next, player: "voice")))
        XCTAssertEqual(parse("prev", "music"), .success(.transport(.prev, player: "music")))
        XCTAssertEqual(parse("seek", "music", "1:30"), .success(.seek(player: "music", ms: 90_000, given: "1:30")))
        XCTAssertEqual(parse("seek", "music", "2.5"), .success(.seek(player: "music", ms: 2_500, given: "2.5")))
        XCTAssertEqual(parse("volume", "music", "40"), .success(.publishVolume(player: "music", 40)))
        XCTAssertEqual(parse("publish_volume", "music", "40.7"), .success(.publishVolume(player: "music", 40)))
        XCTAssertEqual(parse("play-volume", "voice", "200"), .success(.playVolume(player: "voice", 200)))
        XCTAssertEqual(parse("mute_local", "voice", "true"), .success(.muteLocal(player: "voice", true)))
        XCTAssertEqual(parse("aux", "music", "0"), .success(.aux(player: "music", false)))
        XCTAssertEqual(parse("progress-interval", "music", "500ms"), .success(.progressInterval(player: "music", 0.5)))
        XCTAssertEqual(parse("speed", "music", "1.5"), .success(.speed(player: "music", 1.5)))
        XCTAssertEqual(parse("pitch", "music", "-3"), .success(.pitch(player: "music", -3)))
        XCTAssertEqual(parse("repeat", "music", "yes"), .success(.repeat(player: "music", true)))
        XCTAssertEqual(parse("load", "music", "b.mp3"), .success(.load(player: "music", source: "b.mp3")))
        XCTAssertEqual(parse("reconnect"), .success(.reconnect(output: nil)))
        XCTAssertEqual(parse("reconnect", "archive"), .success(.reconnect(output: "archive")))
        XCTAssertEqual(parse("quit"), .success(.quit))
        XCTAssertEqual(parse("live", "on"), .success(.live(.on)))
        XCTAssertEqual(parse("live", "OFF"), .success(.live(.off)))
        XCTAssertEqual(parse("live", "auto"), .success(.live(.auto)))
        XCTAssertEqual(refused("live"), "live: expected on, off or auto")
        XCTAssertEqual(refused("live", "music"), "live: expected on, off or auto")
        XCTAssertEqual(ControlLane.of(["live", "off"]), .run)
    }

    func testEveryNameIsACommand() {
        for spelling in ControlCommand.names.joined() {
            if case .failure(let failure) = parse(spelling) {
                XCTAssertFalse(failure.message.hasPrefix("unknown command"), spelling)
            }
        }
        XCTAssertEqual(Set(ControlCommand.Transport.allCases.map(\.rawValue)).subtracting(ControlCommand.names.joined()), [])
    }

    func testRefusalsNameWhatIsWrong() {
        XCTAssertEqual(refused(), "empty command")
        XCTAssertEqual(refused("dance"), "unknown command \"dance\" (status, publish, pause, resume, stop, start, next, prev, seek, volume, play-volume, mute-local, aux, speed, pitch, repeat, progress-interval, load, reconnect, quit, schedule, skip, live, overlay)")
        XCTAssertEqual(refused("publish"), "publish: on or off?")
        XCTAssertEqual(refused("publish", "maybe"), "publish: expected on or off, got maybe")
        XCTAssertEqual(refused("pause", "drums"), "pause: no player \"drums\"")
        XCTAssertEqual(refused("seek"), "seek: which player? (music, voice)")
        XCTAssertEqual(refused("seek", "music"), "seek: expected a position such as 90s or 1:30")
        XCTAssertEqual(refused("seek", "music", "soon"), "seek: expected a position such as 90s or 1:30, got soon")
        XCTAssertEqual(refused("seek", "music", "99999h"), "seek: 99999h is too far (at most 87600h (10 years))")
        XCTAssertEqual(refused("volume", "music", "loud"), "volume: volume must be a number")
        XCTAssertEqual(refused("volume", "music", "nan"), "volume: nan is not a finite number")
        XCTAssertEqual(refused("play_volume", "music", "1e19"), "play_volume: 1e19 is out of range 0..200")
        XCTAssertEqual(refused("speed", "music", "-inf"), "speed: -inf is not a finite number")
        XCTAssertEqual(refused("pitch", "music"), "pitch: pitch must be a number")
        XCTAssertEqual(refused("aux", "music", "sometimes"), "aux: expected on or off, got sometimes")
        XCTAssertEqual(refused("progress-interval", "music", "often"), "progress-interval: expected a duration such as 500ms or 2s")
        XCTAssertEqual(refused("progress_interval", "music", "2h"), "progress_interval: 2h is out of range 100ms..1h")
        XCTAssertEqual(refused("load", "music"), "load: which source?")
        XCTAssertEqual(refused("load"), "load: which player? (music, voice)")
        XCTAssertEqual(refused("seek", String(repeating: "x", count: 500), "1s")?.count, "seek: no player \"\"".count + 80,
                       "what was given is clipped in the message")
    }
}

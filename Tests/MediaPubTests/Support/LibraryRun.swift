// Runs a broadcast through the library API (`@testable import MediaPub`), for
// the tests that need run-time control (schedule, seek, frame taps). What it
// produces is still verified with ffprobe/ffmpeg, never by asking mediapub.

import Foundation
import XCTest
@testable import MediaPub

extension XCTestCase {
    /// Parses `yaml` as a preset in `dir` and makes a Broadcast with the given run options.
    func makeBroadcast(_ yaml: String, in dir: URL, outputs: [String] = [], duration: TimeInterval? = nil,
                       realtime: Bool = false) throws -> Broadcast {
        let preset = try PresetLoader.parse(yaml: yaml, file: dir.appendingPathComponent("t.yaml").path,
                                            baseDirectory: dir.path, environment: [:], overrides: [])
        var opts = RunOptions()
        opts.outputs = try outputs.map(OutputURL.init)
        opts.duration = duration
        opts.realtime = realtime
        return try Broadcast(preset: preset, options: opts, log: Logger(level: .warn), events: Events())
    }

    /// `b.run()` on a background thread, bounded by `timeout` (a hung run fails
    /// the test instead of hanging the suite; it is then asked to stop).
    func runBounded(_ b: Broadcast, timeout: TimeInterval, file: StaticString = #filePath, line: UInt = #line) -> RunResult? {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox()
        Thread.detachNewThread {
            box.result = b.run()
            done.signal()
        }
        if done.wait(timeout: .now() + timeout) == .timedOut {
            XCTFail("broadcast did not finish within \(timeout) s", file: file, line: line)
            b.requestStop()
            _ = done.wait(timeout: .now() + 10)
            return nil
        }
        return box.result
    }
}

private final class ResultBox: @unchecked Sendable {
    var result: RunResult?
}

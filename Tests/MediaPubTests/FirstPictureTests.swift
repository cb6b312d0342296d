// An item's first picture and first sound are in hand when it is reported ready.
// In realtime the capture never waits for decoding: the tick right after an item
// became ready takes what its appsinks hold. After preroll, an appsink hands over
// its prerolled buffer only once its streaming thread has run again after PLAYING;
// a tick before that found nothing (the slate for a frame, silence for a tick).

import Foundation
import Synchronization
import XCTest
@testable import MediaPub

final class FirstPictureTests: XCTestCase {
    /// Twenty sessions of a short video file, half of them started 0.4 s in (a seek
    /// after preroll, then decoded again), each read the moment it reports ready,
    /// without waiting: every one has its first frame and its first samples.
    func testASessionReportedReadyHasItsFirstFrameAndSoundWithoutWaiting() throws {
        GStreamer.initialize()
        let dir = try makeTempDir()
        let file = try TestMedia.makeColorVideo(in: dir, name: "green.mp4", seconds: 1, color: "green", freq: 440)
        let format = MediaFormat(sampleRate: 44100, channels: 2, video: (width: 320, height: 180, fps: 25))
        var missing: [String] = []
        for attempt in 1...20 {
            let ready = DispatchSemaphore(value: 0)
            let failure = Mutex<String?>(nil)
            let startAt = attempt % 2 == 0 ? 0.4 : 0
            let session = try DecodeSession(source: file.path, format: format, wantsVideo: true, startAt: startAt) { _, event in
                switch event {
                case .ready: ready.signal()
                case .failed(let problem): failure.withLock { $0 = problem.text }; ready.signal()
                default: break
                }
            }
            session.start()
            XCTAssertEqual(ready.wait(timeout: .now() + 30), .success, "attempt \(attempt): ready within 30 s")
            if let problem = failure.withLock({ $0 }) { XCTFail("attempt \(attempt): \(problem)"); break }
            // What a realtime tick does: no wait for the decoder.
            let picture = session.videoFrame(lag: .zero, wait: 0)
            var samples = [Float](repeating: 0, count: 2 * 441)
            let frames = samples.withUnsafeMutableBufferPointer { session.readAudio(frames: 441, into: $0.baseAddress!, wait: 0) }
            if picture == nil { missing.append("attempt \(attempt) (from \(startAt) s): no picture") }
            if frames == 0 { missing.append("attempt \(attempt) (from \(startAt) s): no sound") }
            session.close()
        }
        XCTAssertEqual(missing, [], "read at once when reported ready")
    }
}

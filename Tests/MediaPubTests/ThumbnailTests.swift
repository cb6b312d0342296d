// GET /api/thumbnail.jpg's making (docs/http.md): a picture taken from a real pipeline's
// pad only when asked, made a JPEG by jpegenc, read back by ffmpeg.

import Foundation
import XCTest
@testable import MediaPub

final class ThumbnailTests: XCTestCase {
    /// videotestsrc at 640x360, 25 fps, through an element named as the encoder is, the grab on its sink pad.
    private func picture(pattern: String) throws -> (pipeline: Pipeline, source: Element, grab: FrameGrab, frames: FrameCount) {
        let pipeline = try Pipeline(parsing: "videotestsrc name=src is-live=true pattern=\(pattern) ! "
            + "video/x-raw,format=I420,width=640,height=360,framerate=25/1 ! identity name=video-encoder ! fakesink sync=false")
        let pad = try XCTUnwrap(pipeline.element(named: "video-encoder")?.staticPad("sink"))
        let grab = FrameGrab()
        grab.install(on: pad)
        let frames = FrameCount()
        Probes.onData(pad) { frames.add() }
        try pipeline.setState(.playing)
        addTeardownBlock { pipeline.stop() }
        return (pipeline, try XCTUnwrap(pipeline.element(named: "src")), grab, frames)
    }

    /// The JPEG's size and its middle pixel, as ffmpeg decodes it.
    private func decode(_ jpeg: Data) throws -> (width: Int, height: Int, rgb: [UInt8]) {
        let dir = try makeTempDir()
        let file = dir.appendingPathComponent("t.jpg")
        try jpeg.write(to: file)
        let probe = try Proc.run(try Tools.path("ffprobe"), ["-v", "error", "-show_entries", "stream=codec_name,width,height",
                                                              "-of", "csv=p=0", file.path], timeout: 20)
        let fields = probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",")
        XCTAssertEqual(fields.first, "mjpeg", probe.stdout)
        let pixel = try Proc.run(try Tools.path("ffmpeg"), ["-v", "error", "-i", file.path, "-vf", "crop=8:8,scale=1:1",
                                                             "-f", "rawvideo", "-pix_fmt", "rgb24", "-"], timeout: 20)
        return (Int(fields.dropFirst().first ?? "") ?? 0, Int(fields.dropFirst(2).first ?? "") ?? 0, Array(pixel.stdoutData))
    }

    private func jpeg(_ answer: Thumbnails.Answer) throws -> Data {
        guard case .jpeg(let data) = answer else { throw HarnessError("not a JPEG: \(answer)") }
        return data
    }

    func testNothingIsTakenWhileNobodyAsksThenOnePictureServesEveryoneForASecond() throws {
        let (_, source, grab, frames) = try picture(pattern: "red")
        XCTAssertTrue(Ports.waitUntil(timeout: 20) { frames.count >= 25 }, "frames pass: \(frames.count)")
        XCTAssertEqual(grab.taken, 0, "no picture taken while nobody asks")
        XCTAssertFalse(grab.isWanted)

        let thumbnails = Thumbnails(output: (640, 360)) { grab }
        defer { thumbnails.stop() }
        let started = Date()
        let first = try decode(try jpeg(thumbnails.answer(query: nil)))
        XCTAssertEqual(first.width, 320)
        XCTAssertEqual(first.height, 180)
        XCTAssertTrue(first.rgb.count == 3 && first.rgb[0] > 200 && first.rgb[1] < 60 && first.rgb[2] < 60, "red: \(first.rgb)")
        for _ in 0..<49 { _ = try jpeg(thumbnails.answer(query: "n=1")) }
        let elapsed = Date().timeIntervalSince(started)
        print("50 thumbnails in \(String(format: "%.3f", elapsed)) s took \(grab.taken) picture(s)")
        XCTAssertLessThanOrEqual(Double(grab.taken), elapsed.rounded(.up), "at most one picture a second whoever asks")
        XCTAssertFalse(grab.isWanted, "nothing asked once answered")

        // Another width is made on its own; the picture changes: the next one shows it.
        let wide = try decode(try jpeg(thumbnails.answer(query: "width=640")))
        XCTAssertEqual([wide.width, wide.height], [640, 360])
        XCTAssertTrue(source.set("pattern", int: 6), "videotestsrc's blue")
        var blue: [UInt8] = []
        XCTAssertTrue(Ports.waitUntil(timeout: 10) {
            blue = (try? decode(try jpeg(thumbnails.answer(query: nil))).rgb) ?? []
            return blue.count == 3 && blue[2] > 200 && blue[0] < 60
        }, "blue once the picture is: \(blue)")
    }

    func testAWidthOutOfBoundsIsABadRequestAndARunWithoutPicturesHasNone() throws {
        let (_, _, grab, _) = try picture(pattern: "red")
        let thumbnails = Thumbnails(output: (640, 360)) { grab }
        defer { thumbnails.stop() }
        XCTAssertEqual(thumbnails.answer(query: "width=641"), .badRequest("width: expected a whole number from 16 to 640, got \"641\""))
        XCTAssertEqual(grab.taken, 0, "a bad request takes no picture")
        let soundOnly = Thumbnails(output: nil) { nil }
        XCTAssertEqual(soundOnly.answer(query: nil), .unavailable(status: 404, reason: "this run has no pictures"))
        let notYet = Thumbnails(output: (640, 360)) { nil }
        XCTAssertEqual(notYet.answer(query: nil), .unavailable(status: 503, reason: "no picture is being encoded yet"))
        thumbnails.stop()
        XCTAssertEqual(thumbnails.answer(query: nil), .unavailable(status: 503, reason: "the run is over"))
    }
}

/// Frames counted on a streaming thread.
private final class FrameCount: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func add() { lock.lock(); n += 1; lock.unlock() }
    var count: Int { lock.lock(); defer { lock.unlock() }; return n }
}

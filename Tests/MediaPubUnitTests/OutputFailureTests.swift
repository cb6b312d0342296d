// An output's failure is a typed value (OutputFailure): its words, and a cause each
// transport names for its own errors (OutputTarget+Failures.swift), which decides the
// retry. Pure values: the errors are GStreamer's, as real runs posted them (rtmp2sink,
// srtsink, shout2send, filesink, hlssink2: domain, code, message and debug details).

import XCTest
@testable import MediaPub

final class OutputFailureTests: XCTestCase {
    private func error(_ message: String, _ code: ErrorCode, source: String = "sink", debug: String? = nil) -> ErrorMessage {
        ErrorMessage(source: source, message: message, code: code, debug: debug, httpStatus: nil)
    }

    private let connecting = OutputErrorContext(connecting: true)
    private let publishing = OutputErrorContext(connecting: false)

    /// rtmp2sink: a refused key, its own connect deadline while connecting, anything else
    /// with GStreamer's words and code.
    func testRTMPClassifiesItsOwnErrors() {
        let rtmp = OutputTarget.rtmp(NetworkEndpoint(url: "rtmp://127.0.0.1/app/key", host: "127.0.0.1", port: 1935))
        // nginx-rtmp with a stream already publishing.
        let badName = error("Failed to connect: 'publish' cmd failed: NetStream.Publish.BadName: Stream already publishing",
                            .resource(.failed))
        XCTAssertEqual(rtmp.verdict(on: badName, connecting),
                       .failed(OutputFailure("rejected: the server refused the stream key (publish: NetStream.Publish.BadName: Stream already publishing)",
                                             .refused)))
        // A server that took the connection and never answered (rtmp2sink timeout=3: RESOURCE/FAILED).
        let silent = error("Failed to connect: Socket I/O timed out", .resource(.failed),
                           debug: "../gst/rtmp2/gstrtmp2sink.c(1117): send_connect_error (): /GstPipeline:pipeline0/GstRtmp2Sink:sink:\ndomain g-io-error-quark, code 24")
        XCTAssertEqual(rtmp.verdict(on: silent, connecting),
                       .failed(OutputFailure("connect: the server answered nothing for 5s", .connectTimeout)))
        XCTAssertEqual(rtmp.verdict(on: silent, publishing),
                       .failed(OutputFailure("sink: Failed to connect: Socket I/O timed out", .library(.resource(.failed)))))
        // Nobody listening: RESOURCE/OPEN_READ (5), as rtmp2sink posts it.
        let refused = error("Connection refused: Could not connect to 127.0.0.1: Connection refused", .resource(.openRead))
        XCTAssertEqual(rtmp.verdict(on: refused, connecting),
                       .failed(OutputFailure("sink: Connection refused: Could not connect to 127.0.0.1: Connection refused",
                                             .library(.resource(.openRead)))))
    }

    /// srtsink: a caller still connecting asks its listener why (srtsink never says),
    /// whose answer names the cause; one that had got going lost its listener; a
    /// listener's own errors keep GStreamer's words.
    func testSRTClassifiesItsOwnErrors() {
        let caller = NetworkEndpoint(url: "srt://127.0.0.1:9000", host: "127.0.0.1", port: 9000)
        let listener = NetworkEndpoint(url: "srt://127.0.0.1:9000?mode=listener", host: "127.0.0.1", port: 9000,
                                       parameters: ["mode": "listener"])
        // No listener, or one that refused the handshake: RESOURCE/WRITE (10).
        let noConnection = error("Failed to write to SRT socket: Connection does not exist", .resource(.write),
                                 debug: "../ext/srt/gstsrtsink.c(205): gst_srt_sink_render (): /GstPipeline:pipeline0/GstSRTSink:sink")
        let words = OutputFailure("sink: Failed to write to SRT socket: Connection does not exist", .library(.resource(.write)))
        XCTAssertEqual(OutputTarget.srt(caller).verdict(on: noConnection, connecting), .askListener(caller, otherwise: words))
        XCTAssertEqual(SRTRejection.failure(after: .refused("the listener refused the passphrase"), otherwise: words),
                       OutputFailure("rejected: the listener refused the passphrase", .refused))
        XCTAssertEqual(SRTRejection.failure(after: .noAnswer("no SRT listener answers at 127.0.0.1:9000 (the handshake timed out)"),
                                            otherwise: words),
                       OutputFailure("no SRT listener answers at 127.0.0.1:9000 (the handshake timed out)", .unreachable))
        XCTAssertEqual(SRTRejection.failure(after: .accepted, otherwise: words), words)
        // Got going, then the listener went: libsrt's peer timeout, as srtsink posts it.
        let broke = error("Failed to write to SRT socket: Error on SRT socket: Connection timeout (16)", .resource(.write))
        XCTAssertEqual(OutputTarget.srt(caller).verdict(on: broke, publishing),
                       .failed(OutputFailure(SRTRejection.connectionBroke, .connectionLost)))
        // Another element of the pipeline: its own words.
        let muxer = error("Internal data stream error.", .stream(.failed), source: "mux")
        XCTAssertEqual(OutputTarget.srt(caller).verdict(on: muxer, publishing),
                       .failed(OutputFailure("mux: Internal data stream error.", .library(.stream(.failed)))))
        XCTAssertEqual(OutputTarget.srt(listener).verdict(on: noConnection, connecting), .failed(words))
    }

    /// shout2send: libshout's "Login failed" is a refusal; no server is GStreamer's code.
    func testIcecastClassifiesItsOwnErrors() {
        let icecast = OutputTarget.icecast(IcecastEndpoint(host: "127.0.0.1", port: 8000, mount: "/live.mp3", user: "source",
                                                           password: "pw", codec: .mp3))
        let debug = "../ext/shout2/gstshout2.c(705): gst_shout2send_connect (): /GstPipeline:pipeline0/GstShout2send:sink:\n"
        // icecast2 with another source password: RESOURCE/OPEN_WRITE (6).
        let wrongPassword = error("Could not connect to server", .resource(.openWrite), debug: debug + "shout_open() failed: err=Login failed")
        XCTAssertEqual(icecast.verdict(on: wrongPassword, connecting),
                       .failed(OutputFailure("rejected: the server refused the source login: Could not connect to server: shout_open() failed: err=Login failed",
                                             .refused)))
        // Nobody listening.
        let noServer = error("Could not connect to server", .resource(.openWrite), debug: debug + "shout_open() failed: err=Socket error")
        XCTAssertEqual(icecast.verdict(on: noServer, connecting),
                       .failed(OutputFailure("Could not connect to server: shout_open() failed: err=Socket error",
                                             .library(.resource(.openWrite)))))
    }

    /// filesink and hlssink2: a full disk, by its own code (RESOURCE/NO_SPACE_LEFT, 14:
    /// filesink on /dev/full) or by another resource error on a disk short of room (hlssink2
    /// writes its playlist so); any other error names the file written.
    func testRecordingsClassifyTheirOwnErrors() {
        let file = OutputTarget.file(path: "/rec/a.mkv", container: "mkv")
        let full = error("No space left on the resource.", .resource(.noSpaceLeft),
                         debug: "../plugins/elements/gstelements_private.c(338): gst_writev_iovecs (): /GstPipeline:pipeline0/GstFileSink:sink")
        let recording = OutputErrorContext(connecting: false, written: "/rec/a.mkv", folder: "/rec")
        XCTAssertEqual(file.verdict(on: full, recording),
                       .failed(OutputFailure("writing /rec/a.mkv failed: No space left on the resource.", .diskFull)))
        // filesink cannot open its file: RESOURCE/OPEN_WRITE (6), on a disk with room.
        let cannotOpen = error("Could not open file \"/rec/a.mkv\" for writing.", .resource(.openWrite))
        XCTAssertEqual(file.verdict(on: cannotOpen, recording),
                       .failed(OutputFailure("writing /rec/a.mkv failed: Could not open file \"/rec/a.mkv\" for writing.",
                                             .library(.resource(.openWrite)))))
        var short = recording
        short.diskShort = true
        XCTAssertEqual(file.verdict(on: cannotOpen, short),
                       .failed(OutputFailure("writing /rec/a.mkv failed: Could not open file \"/rec/a.mkv\" for writing.", .diskFull)))
        // A stream error on a short disk is no full disk.
        let streamError = error("Internal data stream error.", .stream(.failed), source: "audiotestsrc0")
        XCTAssertEqual(file.verdict(on: streamError, short),
                       .failed(OutputFailure("writing /rec/a.mkv failed: Internal data stream error.", .library(.stream(.failed)))))
        // hlssink2 with no file of its own: the folder, else the element's words.
        let hls = OutputTarget.hls(OutputURL.HLS(playlist: "/live/a.m3u8", segment: 2, window: 5))
        let segment = error("Got no output stream for fragment '/live/s00000.ts': Error opening file “/live/s00000.ts”: No such file or directory.",
                            .resource(.openWrite))
        let live = OutputErrorContext(connecting: false, written: nil, folder: "/live")
        XCTAssertEqual(hls.verdict(on: segment, live),
                       .failed(OutputFailure("sink: " + segment.message, .library(.resource(.openWrite)))))
        var liveShort = live
        liveShort.diskShort = true
        XCTAssertEqual(hls.verdict(on: segment, liveShort),
                       .failed(OutputFailure("writing /live failed: " + segment.message, .diskFull)))
    }

    /// What a connect threw: a failure of its own as it stands, a missing element for good,
    /// a full disk, anything else a set-up that failed.
    func testWhatAConnectThrowsIsClassifiedByItsType() {
        let login = IcecastLogin.refused("the server refused the mount: 403 Forbidden")
        XCTAssertEqual(OutputFailure(thrown: login), OutputFailure("rejected: the server refused the mount: 403 Forbidden", .refused))
        let missing = OutputFailure(thrown: MediaPubError.missingElement("srtsink", "gstreamer1.0-plugins-bad"))
        XCTAssertEqual(missing.cause, .missingElement)
        XCTAssertTrue(missing.isFinal)
        XCTAssertEqual(OutputFailure(thrown: DiskSpace(folder: "/rec", free: 1000)).cause, .diskFull)
        XCTAssertEqual(OutputFailure(thrown: MediaPubError.output("file:///rec/a.mkv", "cannot create /rec")),
                       OutputFailure("cannot create /rec", .setup))
    }

    /// The cause decides the retry: a refusal waits the longest backoff, a missing element
    /// gives up at once, a full disk retries even a recording, any other cause of a
    /// recording gives up and of a network output retries on the usual backoff.
    func testTheCauseDecidesTheRetry() {
        let config = ReconnectConfig(initial: 1, max: 30, giveUpAfter: 600)
        func first(_ failure: OutputFailure, retries: Bool) -> OutputSupervision.Failure {
            var s = OutputSupervision(reconnect: config, retries: retries)
            _ = s.connected()
            return s.fail(failure, random: 0.5)
        }
        XCTAssertEqual(first(OutputFailure("rejected: key", .refused), retries: true),
                       .reported(.reconnecting, connection: 2, retryAfter: config.delay(attempt: 64, random: 0.5)))
        XCTAssertEqual(first(OutputFailure("stalled: x", .stalled), retries: true),
                       .reported(.reconnecting, connection: 2, retryAfter: config.delay(attempt: 1, random: 0.5)))
        XCTAssertEqual(first(OutputFailure("no srtsink", .missingElement), retries: true),
                       .reported(.failed, connection: 2, retryAfter: nil))
        XCTAssertEqual(first(OutputFailure("writing a failed: full", .diskFull), retries: false),
                       .reported(.reconnecting, connection: 2, retryAfter: config.delay(attempt: 1, random: 0.5)))
        XCTAssertEqual(first(OutputFailure("writing a failed: x", .library(.resource(.write))), retries: false),
                       .reported(.failed, connection: 2, retryAfter: nil))
    }
}

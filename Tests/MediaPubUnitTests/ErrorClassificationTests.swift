// Error classification: what a player does about a failed source is
// decided from GStreamer's error domain and code (and the HTTP status), or from
// the transfer problem libcurl names, never from the words of the message.

import CCurl
import CGStreamer
import CGStreamerShim
import XCTest
@testable import MediaPub

final class ErrorClassificationTests: XCTestCase {
    private func library(_ code: ErrorCode, _ status: Int? = nil) -> SourceFailure {
        SourceFailure("whatever the words", .library(code, httpStatus: status))
    }

    func testNetworkTroubleIsTransient() {
        XCTAssertTrue(library(.stream(.failed)).isTransient, "a flow error: refused, failed or dropped connection")
        XCTAssertTrue(library(.resource(.openRead), 500).isTransient, "a server error")
        XCTAssertTrue(library(.resource(.openRead), 503).isTransient)
        XCTAssertTrue(library(.resource(.openRead)).isTransient, "cannot connect (no HTTP status)")
        XCTAssertTrue(library(.resource(.openRead), 4).isTransient, "libsoup 2's transport status (cannot connect)")
        XCTAssertTrue(library(.resource(.notFound), 2).isTransient, "libsoup 2's transport status (cannot resolve)")
        XCTAssertTrue(library(.resource(.read)).isTransient, "dropped mid-way")
        XCTAssertTrue(SourceFailure("x", .stalled).isTransient)
        XCTAssertTrue(SourceFailure("x", .prerollTimeout).isTransient)
        XCTAssertTrue(SourceFailure("x", .segment(httpStatus: 502)).isTransient)
        for problem: SourceFailure.TransferProblem in [.hostNotFound, .cannotConnect, .timedOut, .dropped, .tlsSetup, .httpStatus(504)] {
            XCTAssertTrue(SourceFailure("x", .transfer(problem)).isTransient, "\(problem)")
        }
    }

    func testWhatNoRetryMendsIsPermanent() {
        XCTAssertFalse(library(.resource(.notFound), 404).isTransient, "404")
        XCTAssertFalse(library(.resource(.notAuthorized), 403).isTransient, "403")
        XCTAssertFalse(library(.resource(.openRead), 410).isTransient, "another client error")
        XCTAssertFalse(library(.resource(.openRead), 302).isTransient, "a redirect that leads nowhere")
        XCTAssertFalse(library(.resource(.read), 416).isTransient)
        for code: ErrorCode.StreamError in [.decode, .format, .typeNotFound, .codecNotFound, .wrongType, .demux] {
            XCTAssertFalse(library(.stream(code)).isTransient, "\(code)")
        }
        XCTAssertFalse(library(.core(1)).isTransient)
        XCTAssertFalse(library(.other(domain: "g-io-error-quark", code: 1)).isTransient)
        XCTAssertFalse(SourceFailure("x", .unplayable).isTransient)
        XCTAssertFalse(SourceFailure("x", .segment(httpStatus: 404)).isTransient)
        XCTAssertFalse(SourceFailure("x", .segment(httpStatus: nil)).isTransient)
        for problem: SourceFailure.TransferProblem in [.untrustedCertificate, .tooManyRedirects, .httpStatus(404), .other] {
            XCTAssertFalse(SourceFailure("x", .transfer(problem)).isTransient, "\(problem)")
        }
    }

    func testTheWordsDoNotDecide() {
        let failure = SourceFailure("Could not connect: connection timed out (503 Service Unavailable)", .unplayable)
        XCTAssertFalse(failure.isTransient)
        XCTAssertTrue(SourceFailure("Not Found", .stalled).isTransient)
    }

    func testVagueErrorsGetASecondLook() {
        XCTAssertTrue(SourceFailure.isVague(.stream(.failed), httpStatus: nil), "Internal data stream error")
        XCTAssertTrue(SourceFailure.isVague(.resource(.openRead), httpStatus: 302), "Found")
        XCTAssertTrue(SourceFailure.isVague(.resource(.openRead), httpStatus: 6), "Secure connection setup failed")
        XCTAssertTrue(SourceFailure.isVague(.resource(.notFound), httpStatus: 2), "Could not resolve server name")
        XCTAssertFalse(SourceFailure.isVague(.resource(.notFound), httpStatus: 404))
        XCTAssertFalse(SourceFailure.isVague(.resource(.openRead), httpStatus: 500))
        XCTAssertFalse(SourceFailure.isVague(.stream(.decode), httpStatus: nil))
    }

    func testGenericWordsAreSaidInOurs() {
        XCTAssertEqual(library(.stream(.failed)).plainReason(isNetwork: true),
                       "cannot read from the server (connection refused, failed or dropped)")
        XCTAssertEqual(library(.stream(.failed)).plainReason(isNetwork: false), "cannot be read")
        XCTAssertEqual(library(.stream(.typeNotFound)).plainReason(isNetwork: false),
                       "not media (no decoder recognises what it holds)")
        XCTAssertNil(library(.resource(.notFound), 404).plainReason(isNetwork: true), "Not Found stays")
        XCTAssertNil(SourceFailure("sends nothing (stalled)", .stalled).plainReason(isNetwork: true))
    }

    func testLibcurlCodesNameTheProblem() {
        XCTAssertEqual(SourceDiagnosis.problem(of: CURLE_COULDNT_RESOLVE_HOST, httpStatus: 0), .hostNotFound)
        XCTAssertEqual(SourceDiagnosis.problem(of: CURLE_COULDNT_CONNECT, httpStatus: 0), .cannotConnect)
        XCTAssertEqual(SourceDiagnosis.problem(of: CURLE_OPERATION_TIMEDOUT, httpStatus: 0), .timedOut)
        XCTAssertEqual(SourceDiagnosis.problem(of: CURLE_RECV_ERROR, httpStatus: 0), .dropped)
        XCTAssertEqual(SourceDiagnosis.problem(of: CURLE_PEER_FAILED_VERIFICATION, httpStatus: 0), .untrustedCertificate)
        XCTAssertEqual(SourceDiagnosis.problem(of: CURLE_TOO_MANY_REDIRECTS, httpStatus: 0), .tooManyRedirects)
        XCTAssertEqual(SourceDiagnosis.problem(of: CURLE_HTTP_RETURNED_ERROR, httpStatus: 503), .httpStatus(503))
        XCTAssertEqual(SourceDiagnosis.problem(of: CURLE_WRITE_ERROR, httpStatus: 0), .other)
    }

    func testGErrorDomainsAndCodesAreNamed() {
        GStreamer.initialize()
        XCTAssertEqual(ErrorCode(domain: gst_resource_error_quark(), code: Int32(GST_RESOURCE_ERROR_NOT_FOUND.rawValue)),
                       .resource(.notFound))
        XCTAssertEqual(ErrorCode(domain: gst_resource_error_quark(), code: Int32(GST_RESOURCE_ERROR_NOT_AUTHORIZED.rawValue)),
                       .resource(.notAuthorized))
        XCTAssertEqual(ErrorCode(domain: gst_stream_error_quark(), code: Int32(GST_STREAM_ERROR_DECODE.rawValue)), .stream(.decode))
        XCTAssertEqual(ErrorCode(domain: gst_stream_error_quark(), code: Int32(GST_STREAM_ERROR_TYPE_NOT_FOUND.rawValue)),
                       .stream(.typeNotFound))
        XCTAssertEqual(ErrorCode(domain: gst_stream_error_quark(), code: 999), .stream(.unknown(999)))
        XCTAssertEqual(ErrorCode(domain: gst_core_error_quark(), code: 3), .core(3))
        XCTAssertEqual(ErrorCode(domain: g_quark_from_string("my-domain"), code: 7), .other(domain: "my-domain", code: 7))
    }

    // MARK: the retry policy

    private func situation(_ failure: SourceFailure, network: Bool = true, played: Bool = false, items: Int = 1,
                           playedSinceStart: Bool = false) -> RetryPolicy.Situation {
        RetryPolicy.Situation(failure: failure, isNetwork: network, hasPlayed: played, itemCount: items,
                              playedSinceStart: playedSinceStart)
    }

    func testATransientNetworkFailureIsRetriedThreeTimesWithBackoff() {
        var policy = RetryPolicy()
        let failure = library(.stream(.failed))
        let delays = (0..<3).map { _ in policy.decide(situation(failure)) { XCTFail("no skip"); return false } }
        XCTAssertEqual(delays, [.retry(after: 1), .retry(after: 2), .retry(after: 4)])
        XCTAssertEqual(policy.decide(situation(failure)) { false }, .fail, "then it fails the player")
        XCTAssertEqual(policy.decide(situation(failure)) { false }, .retry(after: 1), "the count started over")
    }

    func testLocalOrPermanentFailuresAreNotRetried() {
        var policy = RetryPolicy()
        XCTAssertEqual(policy.decide(situation(library(.stream(.failed)), network: false)) { false }, .fail)
        XCTAssertEqual(policy.decide(situation(library(.resource(.notFound), 404))) { false }, .fail)
        var stopped = situation(library(.stream(.failed)))
        stopped.stopped = true
        XCTAssertEqual(policy.decide(stopped) { false }, .fail, "a stopped player is not retried")
    }

    func testWhatPlayedPlaysOut() {
        var policy = RetryPolicy()
        XCTAssertEqual(policy.decide(situation(library(.stream(.decode)), played: true)) { false }, .playOut)
        XCTAssertEqual(policy.failuresInARow, 0, "not counted as a failed item")
    }

    func testAPlaylistSkipsUntilEveryItemFailed() {
        var policy = RetryPolicy()
        let bad = library(.stream(.typeNotFound))
        var advanced = 0
        XCTAssertEqual(policy.decide(situation(bad, items: 3)) { advanced += 1; return true }, .skip)
        XCTAssertEqual(policy.decide(situation(bad, items: 3)) { advanced += 1; return true }, .skip)
        XCTAssertEqual(policy.decide(situation(bad, items: 3)) { advanced += 1; return true }, .fail, "all three failed")
        XCTAssertEqual(advanced, 2)
        policy.itemPlays()
        XCTAssertEqual(policy.decide(situation(bad, items: 3)) { false }, .fail, "the end of a once list")
        XCTAssertEqual(policy.decide(situation(bad, items: 3, playedSinceStart: true)) { false }, .end,
                       "something played: the list is over, not failed")
    }

    /// An endless stream whose origin stopped: 1 s, 2 s, 4 s … up to reconnect.max, from 1 s again once it plays.
    func testAnEndlessStreamIsRetriedOnTheBackoffUntilItPlaysAgain() {
        var policy = RetryPolicy()
        let backoff = ReconnectConfig(initial: 1, max: 5)
        XCTAssertEqual((0..<5).map { _ in backoff.delay(attempt: policy.retryEndless(), random: 0.5) }, [1, 2, 4, 5, 5])
        policy.itemPlays()
        XCTAssertEqual(policy.retryEndless(), 1)
    }
}

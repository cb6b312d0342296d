// libcurl goes through one typed wrapper (EasyHandle): every option is
// checked, a refused one is an error naming it, and each handle is freed once.
// Real server: nginx on loopback.

import CCurl
import Foundation
import XCTest
@testable import MediaPub

final class EasyHandleTests: XCTestCase {

    /// An option libcurl refuses is an error naming the option and libcurl's reason
    /// (before: curl_easy_setopt's answer was dropped and the transfer ran without it).
    func testAnOptionLibcurlRefusesIsAnErrorNamingIt() throws {
        let handle = try EasyHandle()
        XCTAssertThrowsError(try handle.set(.maxRedirects, -2)) { error in
            XCTAssertEqual(error as? CurlError, .option(name: "MAXREDIRS", CURLE_BAD_FUNCTION_ARGUMENT))
            XCTAssertEqual("\(error)", "libcurl: cannot set CURLOPT_MAXREDIRS (A libcurl function was given a bad argument)")
        }
        // libcurl takes no string of 8 MB or more.
        XCTAssertThrowsError(try handle.set(.url, "http://127.0.0.1/" + String(repeating: "a", count: 8_000_000))) { error in
            XCTAssertEqual(error as? CurlError, .option(name: "URL", CURLE_BAD_FUNCTION_ARGUMENT))
        }
        XCTAssertNoThrow(try handle.set(.maxRedirects, 5), "the handle stays usable")
    }

    /// curl_global_init's answer is checked: a failure is one line naming libcurl and its
    /// reason, and no handle is made (before: the answer was dropped, and every transfer
    /// then failed without saying why). A real run's answer is CURLE_OK: handles are made.
    func testAFailedGlobalInitIsOneClearLine() throws {
        XCTAssertNoThrow(try EasyHandle.checkInitialised(CURLE_OK))
        XCTAssertThrowsError(try EasyHandle.checkInitialised(CURLE_FAILED_INIT)) { error in
            XCTAssertEqual(error as? CurlError, .globalInit(CURLE_FAILED_INIT))
            XCTAssertEqual("\(error)", "libcurl: cannot initialise (curl_global_init: Failed initialization)")
        }
        XCTAssertNoThrow(try EasyHandle(), "libcurl initialised in this process")
    }

    /// Transfers through the wrapper: a body whole, a body cut at its limit, an
    /// HTTP error status; hundreds of handles made and dropped leave no descriptor open.
    func testTransfersAndEveryHandleFreed() throws {
        let dir = try makeTempDir()
        let body = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try body.write(to: dir.appendingPathComponent("blob.bin"))
        let server = try startHTTPServer(root: dir)
        XCTAssertEqual(try RemoteFetch().get(server.url("blob.bin")), body)
        XCTAssertThrowsError(try RemoteFetch().get(server.url("blob.bin"), limit: 1000), "past the limit, the transfer stops")
        XCTAssertThrowsError(try RemoteFetch().get(server.url("missing.bin"))) { error in
            guard case .httpStatus(404)? = (error as? RemoteFetch.Failure)?.problem else { return XCTFail("\(error)") }
        }
        let before = fdCount(getpid())
        for _ in 0..<200 {
            XCTAssertEqual(try RemoteFetch().get(server.url("blob.bin")).count, body.count)
        }
        XCTAssertLessThanOrEqual(fdCount(getpid()), before, "every handle and its connection are gone")
        XCTAssertEqual(server.accessLog.components(separatedBy: "GET /blob.bin").count - 1, 202, "each fetch reached the server")
    }
}

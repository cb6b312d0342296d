import CCurl
import Foundation

/// Fetches a whole HTTP(S) resource into memory with libcurl (`memory: true`,
/// HLS playlists), and POSTs webhook events. One easy handle, reused by every
/// request (its connections stay open between them).
final class RemoteFetch {
    private let handle: EasyHandle

    init() throws { handle = try EasyHandle() }

    /// POSTs `body` as JSON; throws on a transfer error or an HTTP error status.
    func postJSON(_ url: String, body: Data, timeout: TimeInterval = 10) throws {
        try handle.set(.url, url)
        try handle.set(.failOnError, 1)
        try handle.set(.timeoutMs, Int(timeout * 1000))
        try handle.setHeaders(["Content-Type: application/json"])
        try handle.set(.postFieldSize, body.count)
        try handle.set(.copyPostFields, String(decoding: body, as: UTF8.self))
        do {
            try handle.perform()
        } catch let error as EasyHandle.TransferError {
            // No URL in the error (webhook URLs carry their secret in the path): libcurl's general words only.
            throw MediaPubError.pipeline(SourceDiagnosis.words(for: error.code, detail: error.general, url: url) ?? error.general)
        }
    }

    /// The body of `url`; throws a one-line error naming the (masked) URL.
    func get(_ url: String, timeout: TimeInterval = 60, limit: Int = 512 << 20) throws -> Data {
        try handle.set(.url, url)
        try handle.set(.followLocation, 1)
        try handle.set(.maxRedirects, 10)
        try handle.set(.failOnError, 1)
        try handle.set(.connectTimeoutMs, 15_000)
        try handle.set(.timeoutMs, Int(timeout * 1000))
        var data = Data()
        do {
            try handle.perform { bytes in
                guard data.count + bytes.count <= limit else { return false }
                data.append(contentsOf: bytes)
                return true
            }
        } catch let error as EasyHandle.TransferError {
            let text = SourceDiagnosis.words(for: error.code, detail: error.detail, url: url) ?? error.detail
            throw Failure(reason: SecretMask.scrub(text, secretsOf: url),
                          problem: SourceDiagnosis.problem(of: error.code, httpStatus: error.httpStatus))
        }
        return data
    }

    /// A fetch that failed: one line that names no URL (the caller names the source), and what went wrong.
    struct Failure: Error, CustomStringConvertible {
        var reason: String
        var problem: SourceFailure.TransferProblem
        var description: String { reason }
    }
}

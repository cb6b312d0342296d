import CCurl
import CShim
import Foundation

/// Fetches a whole HTTP(S) resource into memory with libcurl (`memory: true`).
/// One easy handle, owned by this value and cleaned up when it goes.
final class RemoteFetch {
    private static let global: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    private let handle: UnsafeMutableRawPointer
    private final class Sink {
        var data = Data()
        let limit: Int
        init(limit: Int) { self.limit = limit }
    }

    init() throws {
        _ = RemoteFetch.global
        guard let handle = curl_easy_init() else { throw MediaPubError.pipeline("libcurl: cannot create a handle") }
        self.handle = handle
    }

    deinit { curl_easy_cleanup(handle) }

    /// POSTs `body` as JSON; throws on a transfer error or an HTTP error status.
    func postJSON(_ url: String, body: Data, timeout: TimeInterval = 10) throws {
        let headers = curl_slist_append(nil, "Content-Type: application/json")
        defer { curl_slist_free_all(headers) }
        let code: CURLcode = body.withUnsafeBytes { bytes in
            cshim_curl_setopt_string(handle, CURLOPT_URL, url)
            cshim_curl_setopt_long(handle, CURLOPT_FAILONERROR, 1)
            cshim_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
            cshim_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int(timeout * 1000))
            if let ca = TLSTrust.caFile { cshim_curl_setopt_string(handle, CURLOPT_CAINFO, ca) }
            cshim_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headers))
            cshim_curl_setopt_long(handle, CURLOPT_POSTFIELDSIZE, bytes.count)
            cshim_curl_setopt_pointer(handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
            cshim_curl_setopt_write_function(handle) { _, size, count, _ in size * count }
            return curl_easy_perform(handle)
        }
        cshim_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, nil)
        cshim_curl_setopt_pointer(handle, CURLOPT_POSTFIELDS, nil)
        guard code == CURLE_OK else {
            // No URL in the error: webhook URLs carry their secret in the path.
            throw MediaPubError.pipeline(String(cString: curl_easy_strerror(code)))
        }
    }

    /// The body of `url`; throws a one-line error naming the (masked) URL.
    func get(_ url: String, timeout: TimeInterval = 60, limit: Int = 512 << 20) throws -> Data {
        let sink = Sink(limit: limit)
        let context = Unmanaged.passUnretained(sink).toOpaque()
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { errorText in
            cshim_curl_setopt_string(handle, CURLOPT_URL, url)
            cshim_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 1)
            cshim_curl_setopt_long(handle, CURLOPT_MAXREDIRS, 10)
            cshim_curl_setopt_long(handle, CURLOPT_FAILONERROR, 1)
            cshim_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
            cshim_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, 15_000)
            cshim_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int(timeout * 1000))
            cshim_curl_setopt_string(handle, CURLOPT_USERAGENT, "mediapub")
            if let ca = TLSTrust.caFile { cshim_curl_setopt_string(handle, CURLOPT_CAINFO, ca) }
            cshim_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorText.baseAddress)
            cshim_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
            cshim_curl_setopt_write_function(handle) { data, size, count, context in
                guard let data, let context else { return 0 }
                let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
                let n = size * count
                if sink.data.count + n > sink.limit { return 0 }
                sink.data.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: n)
                return n
            }
            return curl_easy_perform(handle)
        }
        cshim_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, nil)
        guard code == CURLE_OK else {
            let detail = String(nulTerminated: errorBuffer)
            let text = SourceDiagnosis.words(for: code, detail: detail, url: url)
                ?? (detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail)
            let problem = SourceDiagnosis.problem(of: code, httpStatus: cshim_curl_response_code(handle))
            throw Failure(reason: SecretMask.scrub(text, secretsOf: url), problem: problem)
        }
        return sink.data
    }

    /// A fetch that failed: one line that names no URL (the caller names the source), and what went wrong.
    struct Failure: Error, CustomStringConvertible {
        var reason: String
        var problem: SourceFailure.TransferProblem
        var description: String { reason }
    }
}

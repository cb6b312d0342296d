import CCurl
import CShim
import Foundation

/// Says in our words why an HTTP(S) source could not be read, where GStreamer's
/// own words say little: its HTTP source reports a DNS failure, an untrusted
/// certificate and a dropped connection alike ("Internal data stream error"),
/// and a redirect loop by the last status line ("Found").
enum SourceDiagnosis {
    /// Asks `url` once with libcurl (a few seconds at most, the body not read) and
    /// names what went wrong: "host not found", "TLS certificate not trusted (…)",
    /// "too many redirects". Nil when the server answers, or fails some other way.
    static func diagnose(_ url: String) -> SourceFailure? {
        guard let handle = curl_easy_init() else { return nil }
        defer { curl_easy_cleanup(handle) }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { errorText in
            cshim_curl_setopt_string(handle, CURLOPT_URL, url)
            cshim_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 1)
            cshim_curl_setopt_long(handle, CURLOPT_MAXREDIRS, 20)  // libsoup's limit
            cshim_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
            cshim_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, 5_000)
            cshim_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, 8_000)
            cshim_curl_setopt_string(handle, CURLOPT_USERAGENT, "mediapub")
            if let ca = TLSTrust.caFile { cshim_curl_setopt_string(handle, CURLOPT_CAINFO, ca) }
            cshim_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorText.baseAddress)
            // The first byte of the body is enough: stop there.
            cshim_curl_setopt_write_function(handle) { _, _, _, _ in 0 }
            return curl_easy_perform(handle)
        }
        cshim_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, nil)
        guard let text = words(for: code, detail: String(nulTerminated: errorBuffer), url: url) else { return nil }
        return SourceFailure(text, .transfer(problem(of: code, httpStatus: 0)))
    }

    /// What a libcurl failure was, for deciding whether a retry may mend it.
    static func problem(of code: CURLcode, httpStatus: Int) -> SourceFailure.TransferProblem {
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: return .hostNotFound
        case CURLE_COULDNT_CONNECT: return .cannotConnect
        case CURLE_OPERATION_TIMEDOUT: return .timedOut
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE: return .dropped
        case CURLE_SSL_CONNECT_ERROR: return .tlsSetup
        case CURLE_PEER_FAILED_VERIFICATION: return .untrustedCertificate
        case CURLE_TOO_MANY_REDIRECTS: return .tooManyRedirects
        case CURLE_HTTP_RETURNED_ERROR: return httpStatus > 0 ? .httpStatus(httpStatus) : .other
        default: return .other
        }
    }

    /// Our words for a libcurl failure that has some, else nil.
    static func words(for code: CURLcode, detail: String, url: String) -> String? {
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST: return "host not found"
        case CURLE_PEER_FAILED_VERIFICATION:
            // curl's words: "SSL certificate problem: self-signed certificate".
            let why = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
            return "TLS certificate not trusted (\(SecretMask.scrub(why, secretsOf: url)))"
        case CURLE_TOO_MANY_REDIRECTS: return "too many redirects"
        default: return nil
        }
    }
}

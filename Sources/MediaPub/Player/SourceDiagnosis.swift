import CCurl
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
        do {
            let handle = try EasyHandle()
            try handle.set(.url, url)
            try handle.set(.followLocation, 1)
            try handle.set(.maxRedirects, 20)  // libsoup's limit
            try handle.set(.connectTimeoutMs, 5_000)
            try handle.set(.timeoutMs, 8_000)
            // The first byte of the body is enough: stop there.
            try handle.perform { _ in false }
            return nil
        } catch let error as EasyHandle.TransferError {
            guard let text = words(for: error.code, detail: error.detail, url: url) else { return nil }
            return SourceFailure(text, .transfer(problem(of: error.code, httpStatus: 0)))
        } catch {
            return nil
        }
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
            return "TLS certificate not trusted (\(SecretMask.scrub(detail, secretsOf: url)))"
        case CURLE_TOO_MANY_REDIRECTS: return "too many redirects"
        default: return nil
        }
    }
}

import CCurl
import Foundation

/// The one place libcurl is used: a typed wrapper of one easy handle (`CURL *`).
/// This value is the handle's only owner and cleans it up once, when it goes;
/// what libcurl keeps pointers to (the error buffer, the header list) lives as
/// long as the handle. Every option is set through a typed setter that checks
/// libcurl's answer and throws a `CurlError` naming the option. Every handle
/// trusts the certificate authorities of `TLSTrust` (`SSL_CERT_FILE`).
/// Not Sendable: one thread at a time uses a handle (libcurl's rule too).
final class EasyHandle {
    /// curl_global_init's answer, asked once (before the first handle).
    private static let global: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    private let raw: UnsafeMutableRawPointer
    /// CURLOPT_ERRORBUFFER: libcurl writes its detailed reason here during a transfer.
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// CURLOPT_HTTPHEADER's list, freed when replaced and with the handle.
    private var headers: UnsafeMutablePointer<curl_slist>?

    init() throws {
        try Self.checkInitialised(EasyHandle.global)
        guard let raw = curl_easy_init() else { throw CurlError.noHandle }
        self.raw = raw
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        do {
            try check(ccurl_setopt_pointer(raw, CURLOPT_ERRORBUFFER, errorBuffer), CURLOPT_ERRORBUFFER)
            try set(.noSignal, 1)
            try set(.userAgent, "mediapub")
            if let caFile = TLSTrust.caFile { try set(.caFile, caFile) }
        } catch {
            Self.release(raw, errorBuffer, nil)
            throw error
        }
    }

    deinit { Self.release(raw, errorBuffer, headers) }

    private static func release(_ raw: UnsafeMutableRawPointer, _ errorBuffer: UnsafeMutablePointer<CChar>,
                                _ headers: UnsafeMutablePointer<curl_slist>?) {
        curl_easy_cleanup(raw)
        curl_slist_free_all(headers)
        errorBuffer.deallocate()
    }

    /// An option that takes a number (a C long).
    struct LongOption: Sendable {
        let raw: CURLoption
        static let followLocation = LongOption(raw: CURLOPT_FOLLOWLOCATION)
        static let maxRedirects = LongOption(raw: CURLOPT_MAXREDIRS)
        static let failOnError = LongOption(raw: CURLOPT_FAILONERROR)
        static let noSignal = LongOption(raw: CURLOPT_NOSIGNAL)
        static let connectTimeoutMs = LongOption(raw: CURLOPT_CONNECTTIMEOUT_MS)
        static let timeoutMs = LongOption(raw: CURLOPT_TIMEOUT_MS)
        static let postFieldSize = LongOption(raw: CURLOPT_POSTFIELDSIZE)
    }

    /// An option that takes a string (libcurl copies it).
    struct StringOption: Sendable {
        let raw: CURLoption
        static let url = StringOption(raw: CURLOPT_URL)
        static let userAgent = StringOption(raw: CURLOPT_USERAGENT)
        static let caFile = StringOption(raw: CURLOPT_CAINFO)
        /// The request body, copied by libcurl (set `postFieldSize` first); makes the request a POST.
        static let copyPostFields = StringOption(raw: CURLOPT_COPYPOSTFIELDS)
    }

    func set(_ option: LongOption, _ value: Int) throws {
        try check(ccurl_setopt_long(raw, option.raw, value), option.raw)
    }

    func set(_ option: StringOption, _ value: String) throws {
        try check(ccurl_setopt_string(raw, option.raw, value), option.raw)
    }

    /// The request's header lines ("Content-Type: application/json").
    func setHeaders(_ lines: [String]) throws {
        var list: UnsafeMutablePointer<curl_slist>? = nil
        for line in lines {
            guard let longer = curl_slist_append(list, line) else {
                curl_slist_free_all(list)
                throw CurlError.option(name: Self.name(of: CURLOPT_HTTPHEADER), CURLE_OUT_OF_MEMORY)
            }
            list = longer
        }
        do {
            try check(ccurl_setopt_pointer(raw, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(list)), CURLOPT_HTTPHEADER)
        } catch {
            curl_slist_free_all(list)
            throw error
        }
        curl_slist_free_all(headers)
        headers = list
    }

    /// Where `perform` hands the body's bytes, for the time of one transfer.
    private final class Receiver {
        let body: (UnsafeRawBufferPointer) -> Bool
        init(_ body: @escaping (UnsafeRawBufferPointer) -> Bool) { self.body = body }
    }

    /// Makes the transfer. `receive` gets the body as it comes, on this thread;
    /// returning false stops the transfer there (a `TransferError` with
    /// CURLE_WRITE_ERROR follows). Throws `TransferError` when it fails.
    func perform(receive: (UnsafeRawBufferPointer) -> Bool = { _ in true }) throws {
        TimelineThread.assertOff("a libcurl transfer")
        errorBuffer[0] = 0
        let code: CURLcode = try withoutActuallyEscaping(receive) { receive in
            let receiver = Receiver(receive)
            return try withExtendedLifetime(receiver) {
                try check(ccurl_setopt_pointer(raw, CURLOPT_WRITEDATA, Unmanaged.passUnretained(receiver).toOpaque()),
                          CURLOPT_WRITEDATA)
                try check(ccurl_setopt_write_function(raw) { data, size, count, context in
                    guard let context else { return 0 }
                    let n = size * count
                    let bytes = UnsafeRawBufferPointer(start: data.map(UnsafeRawPointer.init), count: data == nil ? 0 : n)
                    return Unmanaged<Receiver>.fromOpaque(context).takeUnretainedValue().body(bytes) ? n : 0
                }, CURLOPT_WRITEFUNCTION)
                defer { _ = ccurl_setopt_pointer(raw, CURLOPT_WRITEDATA, nil) }
                return curl_easy_perform(raw)
            }
        }
        guard code == CURLE_OK else {
            let detail = String(cString: errorBuffer)
            throw TransferError(code: code, detail: detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail,
                                httpStatus: ccurl_response_code(raw))
        }
    }

    /// A transfer that failed: libcurl's code, its words (the error buffer's, else
    /// curl_easy_strerror's; they may name the URL) and the HTTP status if one came.
    struct TransferError: Error, CustomStringConvertible {
        var code: CURLcode
        var detail: String
        var httpStatus: Int
        var description: String { detail }
        /// libcurl's general words for the code, which never name the URL.
        var general: String { String(cString: curl_easy_strerror(code)) }
    }

    /// Throws when libcurl could not be initialised (`code`: curl_global_init's answer):
    /// no handle works then.
    static func checkInitialised(_ code: CURLcode) throws {
        guard code == CURLE_OK else { throw CurlError.globalInit(code) }
    }

    private func check(_ code: CURLcode, _ option: CURLoption) throws {
        guard code != CURLE_OK else { return }
        throw CurlError.option(name: Self.name(of: option), code)
    }

    /// libcurl's own name of an option ("CAINFO"), for errors.
    static func name(of option: CURLoption) -> String {
        guard let entry = curl_easy_option_by_id(option), let name = entry.pointee.name else { return "option \(option.rawValue)" }
        return String(cString: name)
    }
}

/// What went wrong setting up libcurl: one line naming the option at fault.
enum CurlError: Error, Equatable, CustomStringConvertible {
    case noHandle
    /// curl_global_init failed.
    case globalInit(CURLcode)
    case option(name: String, CURLcode)

    var description: String {
        switch self {
        case .noHandle: return "libcurl: cannot create a handle"
        case .globalInit(let code):
            return "libcurl: cannot initialise (curl_global_init: \(String(cString: curl_easy_strerror(code))))"
        case .option(let name, let code):
            return "libcurl: cannot set CURLOPT_\(name) (\(String(cString: curl_easy_strerror(code))))"
        }
    }
}

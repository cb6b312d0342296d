/// Why a source failed: the words for people, and the cause that decides what
/// the player does about it (retry, skip, fail), never read from the words.
struct SourceFailure: Sendable, Equatable, CustomStringConvertible {
    var text: String
    var cause: Cause

    init(_ text: String, _ cause: Cause) {
        self.text = text
        self.cause = cause
    }

    var description: String { text }

    enum Cause: Sendable, Equatable {
        /// An ERROR message of the decoding pipeline: domain and code, and the HTTP status an HTTP source gave.
        case library(ErrorCode, httpStatus: Int?)
        /// A transfer of our own (libcurl: `memory: true`, a second look at a vague error) that failed.
        case transfer(TransferProblem)
        /// The source gave nothing for `DecodeSession.stallSeconds`.
        case stalled
        /// Nothing prerolled within the preroll bound (a server that never answers, an empty stream).
        case prerollTimeout
        /// An HLS segment could not be fetched (its HTTP status, when the error gave one).
        case segment(httpStatus: Int?)
        /// What the source holds cannot be played, or cannot be set up: nothing a retry mends.
        case unplayable
    }

    /// What went wrong with one HTTP transfer, as libcurl tells it.
    enum TransferProblem: Sendable, Equatable {
        case hostNotFound, cannotConnect, timedOut, dropped, tlsSetup, untrustedCertificate, tooManyRedirects
        case httpStatus(Int)
        case other
    }

    /// Network trouble a retry may mend (refused, unreachable, dropped, stalled, a
    /// server error); anything else (4xx, not media, no decoder) fails at once.
    var isTransient: Bool {
        switch cause {
        case .stalled, .prerollTimeout: return true
        case .unplayable: return false
        case .segment(let status): return status.map(SourceFailure.isServerError) ?? false
        case .transfer(let problem): return SourceFailure.isTransient(problem)
        case .library(let code, let status): return SourceFailure.isTransient(code, httpStatus: status)
        }
    }

    private static func isServerError(_ status: Int) -> Bool { (500..<600).contains(status) }

    /// A transport-level status (libsoup 2's codes below 100: cannot resolve, connect, TLS), or none.
    private static func isTransport(_ status: Int?) -> Bool { status.map { $0 < 100 } ?? true }

    static func isTransient(_ problem: TransferProblem) -> Bool {
        switch problem {
        case .hostNotFound, .cannotConnect, .timedOut, .dropped, .tlsSetup: return true
        case .httpStatus(let status): return isServerError(status)
        case .untrustedCertificate, .tooManyRedirects, .other: return false
        }
    }

    static func isTransient(_ code: ErrorCode, httpStatus status: Int?) -> Bool {
        switch code {
        case .stream(.failed):
            // A streaming thread stopped on a flow error: in an HTTP source, a connection
            // refused, failed or dropped (libsoup 3 reports transport errors so).
            return true
        case .resource(.notFound), .resource(.openRead), .resource(.failed):
            // No server (cannot resolve, connect, set up TLS) or a server error; a 4xx or a redirect that leads nowhere is final.
            return isTransport(status) || isServerError(status ?? 0)
        case .resource(.read):
            // Dropped mid-way, unless the server answered with a client error.
            return !(400..<500).contains(status ?? 0)
        default:
            return false
        }
    }

    /// An error GStreamer's words explain badly, which a second look (libcurl)
    /// may name: a flow error of an HTTP source, a transport failure, a redirect that led nowhere.
    static func isVague(_ code: ErrorCode, httpStatus status: Int?) -> Bool {
        switch code {
        case .stream(.failed): return true
        case .resource(.openRead): return (300..<400).contains(status ?? 0) || (status.map { $0 < 100 } ?? false)
        case .resource(.notFound): return status.map { $0 < 100 } ?? false
        default: return false
        }
    }

    /// Our words for a cause GStreamer says nothing useful about, for a source
    /// (`isNetwork`: read over HTTP); nil to keep the failure's own text.
    func plainReason(isNetwork: Bool) -> String? {
        switch cause {
        case .library(.stream(.failed), _):
            return isNetwork ? "cannot read from the server (connection refused, failed or dropped)" : "cannot be read"
        case .library(.stream(.typeNotFound), _):
            return "not media (no decoder recognises what it holds)"
        default:
            return nil
        }
    }
}

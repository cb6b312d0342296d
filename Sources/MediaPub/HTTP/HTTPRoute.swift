/// The paths the HTTP server answers (docs/http.md, Paths): which method each takes and
/// who may use it. A pure value.
enum HTTPRoute: Equatable, Sendable, CaseIterable {
    case metrics, health, status, schedule, events, log, history, command
    /// The operator's page's files (`WebAsset`) and its thumbnail (Sources/MediaPub/Web/).
    case page, thumbnail

    init?(path: String) {
        switch path {
        case "/metrics": self = .metrics
        case "/health": self = .health
        case "/api/status": self = .status
        case "/api/schedule": self = .schedule
        case "/api/events": self = .events
        case "/api/log": self = .log
        case "/api/outputs/history": self = .history
        case "/api/command": self = .command
        case WebRoutes.thumbnailPath: self = .thumbnail
        case _ where WebAsset(rawValue: path) != nil: self = .page
        default: return nil
        }
    }

    var method: String { self == .command ? "POST" : "GET" }

    var need: HTTPAccess.Need {
        switch self {
        case .metrics, .health: return .open
        case .command: return .command
        case .status, .schedule, .events, .log, .history, .page, .thumbnail: return .read
        }
    }

    /// A number of a query (`hours`, `lines`): the default when absent, nil when out of `range` or not a number.
    static func count(_ text: String?, default value: Int, in range: ClosedRange<Int>) -> Int? {
        guard let text else { return value }
        guard let n = Int(text), range.contains(n) else { return nil }
        return n
    }
}

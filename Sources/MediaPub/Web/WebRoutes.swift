import Foundation

/// What the paths of the operator's page answer (docs/http.md, The page): its files, and the
/// thumbnail. The HTTP server has checked who may read before it asks.
enum WebRoutes {
    struct Reply: Sendable, Equatable {
        var status: UInt32
        var type: String
        var body: [UInt8]
    }

    static let thumbnailPath = "/api/thumbnail.jpg"

    /// One of the page's files; nil: `path` is none of them.
    static func asset(_ path: String) -> Reply? {
        WebAsset(rawValue: path).map { Reply(status: 200, type: $0.contentType, body: Array($0.body.utf8)) }
    }

    /// The thumbnail at `width` (the query's, nil: the default), handed to `reply` from the
    /// `thumbnail` queue (never on the caller's thread). `thumbnails` nil: the run serves none.
    static func thumbnail(_ thumbnails: Thumbnails?, width: String?, reply: @escaping @Sendable (Reply) -> Void) {
        guard let thumbnails else { return reply(error(404, "this run serves no thumbnail")) }
        thumbnails.answer(query: width.map { "width=\($0)" }) { answer in
            switch answer {
            case .jpeg(let data): reply(Reply(status: 200, type: "image/jpeg", body: Array(data)))
            case .badRequest(let why): reply(error(400, why))
            case .unavailable(let status, let why): reply(error(status, why))
            }
        }
    }

    private static func error(_ status: UInt32, _ message: String) -> Reply {
        Reply(status: status, type: "application/json", body: Array(((JSONLine.text(ControlReply.failure(message)) ?? "{\"ok\":false}") + "\n").utf8))
    }
}

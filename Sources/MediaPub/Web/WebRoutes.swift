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

    /// The thumbnail at `width` (the query's, nil: the default): returned at once when one under
    /// 1 s old is cached (or the request is refused); nil: it is being made, and is handed to
    /// `reply` from the `thumbnail` queue. `thumbnails` nil: the run serves none.
    static func thumbnail(_ thumbnails: Thumbnails?, width: String?, reply: @escaping @Sendable (Reply) -> Void) -> Reply? {
        guard let thumbnails else { return error(404, "this run serves no thumbnail") }
        return thumbnails.answer(query: width.map { "width=\($0)" }) { reply(Self.reply($0)) }.map(Self.reply)
    }

    private static func reply(_ answer: Thumbnails.Answer) -> Reply {
        switch answer {
        case .jpeg(let data): return Reply(status: 200, type: "image/jpeg", body: Array(data))
        case .badRequest(let why): return error(400, why)
        case .unavailable(let status, let why): return error(status, why)
        }
    }

    private static func error(_ status: UInt32, _ message: String) -> Reply {
        Reply(status: status, type: "application/json", body: Array(((JSONLine.text(ControlReply.failure(message)) ?? "{\"ok\":false}") + "\n").utf8))
    }
}

import Foundation

/// The paths of the operator's page (docs/http.md): the page's files and the thumbnail.
/// The HTTP server asks it first; nil: not one of its paths. Reading, so open on loopback
/// (the server checks who may read before it asks).
struct WebRoutes: Sendable {
    struct Reply: Sendable, Equatable {
        var status: UInt32
        var type: String
        var body: [UInt8]
    }

    let thumbnails: Thumbnails?

    static let thumbnailPath = "/api/thumbnail.jpg"

    /// Whether `path` is one of the page's (GET only).
    static func serves(_ path: String) -> Bool { WebAsset(rawValue: path) != nil || path == thumbnailPath }

    func answer(path: String, query: String?) -> Reply? {
        if let asset = WebAsset(rawValue: path) {
            return Reply(status: 200, type: asset.contentType, body: Array(asset.body.utf8))
        }
        guard path == Self.thumbnailPath else { return nil }
        guard let thumbnails else { return Self.error(404, "this run has no pictures") }
        switch thumbnails.answer(query: query) {
        case .jpeg(let data): return Reply(status: 200, type: "image/jpeg", body: Array(data))
        case .badRequest(let why): return Self.error(400, why)
        case .unavailable(let status, let why): return Self.error(status, why)
        }
    }

    private static func error(_ status: UInt32, _ message: String) -> Reply {
        Reply(status: status, type: "application/json", body: Array(((JSONLine.text(ControlReply.failure(message)) ?? "{\"ok\":false}") + "\n").utf8))
    }
}

/// The operator's page as the HTTP server serves it (docs/http.md, The page): each file
/// at its path, with its type. Everything is in the binary; the page asks nothing of any other host.
enum WebAsset: String, CaseIterable, Sendable {
    case page = "/"
    case script = "/app.js"
    case style = "/app.css"
    case icon = "/favicon.svg"

    var contentType: String {
        switch self {
        case .page: return "text/html; charset=utf-8"
        case .script: return "text/javascript; charset=utf-8"
        case .style: return "text/css; charset=utf-8"
        case .icon: return "image/svg+xml"
        }
    }

    var body: String {
        switch self {
        case .page: return WebPageHTML.text
        case .script: return WebPageScript.text
        case .style: return WebPageStyle.text
        case .icon: return Self.iconSVG
        }
    }

    private static let iconSVG = ##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="6" fill="#2fbf5b"/></svg>"##
}

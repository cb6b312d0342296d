// The operator's page's files (docs/http.md, The page): served at their paths, to readers,
// with nothing inline (the Content-Security-Policy is default-src 'self') and no other host.

import Foundation
import XCTest
@testable import MediaPub

final class WebPageTests: XCTestCase {
    func testEachFileIsAPageRouteForReadersWithItsType() throws {
        let types = ["/": "text/html; charset=utf-8", "/app.js": "text/javascript; charset=utf-8",
                     "/app.css": "text/css; charset=utf-8", "/favicon.svg": "image/svg+xml"]
        XCTAssertEqual(Set(WebAsset.allCases.map(\.rawValue)), Set(types.keys))
        for (path, type) in types {
            XCTAssertEqual(HTTPRoute(path: path), .page, path)
            XCTAssertEqual(HTTPRoute(path: path)?.need, .read, path)
            XCTAssertEqual(HTTPRoute(path: path)?.method, "GET", path)
            let reply = try XCTUnwrap(WebRoutes.asset(path), path)
            XCTAssertEqual(reply.status, 200)
            XCTAssertEqual(reply.type, type)
            XCTAssertFalse(reply.body.isEmpty)
        }
        XCTAssertEqual(HTTPRoute(path: "/api/thumbnail.jpg"), .thumbnail)
        XCTAssertEqual(HTTPRoute(path: "/api/thumbnail.jpg")?.need, .read)
        XCTAssertNil(WebRoutes.asset("/index.html"))
        XCTAssertNil(HTTPRoute(path: "/app.js.map"))
    }

    func testThePageHasNothingInlineAndNamesNoOtherHost() throws {
        let html = WebPageHTML.text
        // Every script and style sheet is a file of this server.
        XCTAssertEqual(matches(#"<script\b[^>]*>"#, in: html), [#"<script src="/app.js" defer>"#])
        XCTAssertEqual(matches(#"<style\b"#, in: html), [])
        XCTAssertEqual(matches(#"\sstyle="#, in: html), [])
        XCTAssertEqual(matches(#"\son[a-z]+="#, in: html), [], "no inline event handlers")
        for asset in WebAsset.allCases {
            let urls = matches(#"(https?:)?//[A-Za-z0-9.-]+\.[a-z]{2,}[^"' )]*"#, in: asset.body)
                .filter { $0 != "http://www.w3.org/2000/svg" }  // SVG's namespace, never fetched
            XCTAssertEqual(urls, [], "\(asset.rawValue) names another host")
        }
        // The token is kept for the tab only, never in a cookie or localStorage.
        XCTAssertTrue(WebPageScript.text.contains("sessionStorage"))
        XCTAssertFalse(WebPageScript.text.contains("document.cookie"))
        XCTAssertFalse(WebPageScript.text.contains("localStorage"))
    }

    private func matches(_ pattern: String, in text: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: pattern)
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { Range($0.range, in: text).map { String(text[$0]) } }
    }
}

import Foundation
import XCTest

/// docs/design.md names files to guide whoever changes the code: each one must be
/// there, so that a file renamed or removed fails here until the page follows.
extension DocsTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The files and folders `text` names: paths from the repository's root (`Sources/…`,
    /// `Tests/…`, `docs/…`, `scripts/…`, `deploy/…`, `presets/…`) and bare file names (`Output.swift`).
    static func namedFiles(in text: String) -> (paths: Set<String>, names: Set<String>) {
        let pattern = #"(?:Sources|Tests|docs|scripts|deploy|presets)/[A-Za-z0-9_+./-]*|[A-Za-z0-9_+-]+\.(?:swift|md|py|sh|c|h|yaml|liq)\b"#
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return ([], []) }
        var paths = Set<String>(), names = Set<String>()
        for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            guard let range = Range(match.range, in: text) else { continue }
            var token = String(text[range])
            while let last = token.last, ".,;:".contains(last) { token.removeLast() }
            if token.contains("/") { paths.insert(token) } else { names.insert(token) }
        }
        return (paths, names)
    }

    /// What of `text`'s named files the repository lacks: a path that is not there, a bare
    /// name that no file under Sources, Tests, docs or scripts has.
    static func missingFiles(in text: String) -> [String] {
        let (paths, names) = namedFiles(in: text)
        let fm = FileManager.default
        var everyName = Set<String>()
        for top in ["Sources", "Tests", "docs", "scripts"] {
            let walker = fm.enumerator(atPath: repository.appendingPathComponent(top).path)
            while let path = walker?.nextObject() as? String { everyName.insert((path as NSString).lastPathComponent) }
        }
        let missingPaths = paths.filter { !fm.fileExists(atPath: repository.appendingPathComponent($0).path) }
        return (missingPaths + names.filter { !everyName.contains($0) }).sorted()
    }

    func testEveryFileTheDesignPageNamesExists() throws {
        let text = try String(contentsOf: Self.repository.appendingPathComponent("docs/design.md"), encoding: .utf8)
        let (paths, names) = Self.namedFiles(in: text)
        XCTAssertGreaterThan(paths.count, 40, "the page names files by their paths")
        XCTAssertTrue(paths.contains("Sources/MediaPub/Publisher/OutputConnection.swift"), "\(paths.sorted())")
        XCTAssertTrue(names.contains("main.swift"), "\(names.sorted())")
        XCTAssertEqual(Self.missingFiles(in: text), [], "docs/design.md names files the repository does not have")
    }

    /// The check itself: a stale path and a stale bare name are both caught, a folder is found.
    func testAStaleFileNameOnTheDesignPageIsCaught() {
        let stale = "`Sources/MediaPub/Publisher/Gone.swift`, then `Vanished.swift`; `Sources/MediaPub/Player/` and `Output.swift`."
        XCTAssertEqual(Self.missingFiles(in: stale), ["Sources/MediaPub/Publisher/Gone.swift", "Vanished.swift"])
    }
}

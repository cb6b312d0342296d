import Foundation
import XCTest

/// The repository stands alone: comments and docs cite its own pages (docs/…, the
/// README), never a contract document that is not in it, nor the tracker's issues.
extension DocsTests {
    /// The words that cite the outside document, spelled here in parts so that this file passes its own check.
    static let outsideCitations = ["SPEC" + ".md", "SPEC" + " §"]
    /// A tracker's issue by its number, which a reader of the repository cannot open.
    static let issueCitation = "[Ii]ssue #?[0-9]"

    static func citesOutside(_ line: Substring) -> Bool {
        outsideCitations.contains(where: { line.contains($0) }) || line.range(of: issueCitation, options: .regularExpression) != nil
    }

    /// The files under `Sources/`, `Tests/`, `scripts/`, `deploy/` and `docs/` that cite
    /// a document outside the repository, with the line: `path:line`.
    static func outsideCitations(under tops: [String] = ["Sources", "Tests", "scripts", "deploy", "docs"]) -> [String] {
        var found: [String] = []
        for top in tops {
            let walker = FileManager.default.enumerator(atPath: repository.appendingPathComponent(top).path)
            while let path = walker?.nextObject() as? String {
                let file = repository.appendingPathComponent(top).appendingPathComponent(path)
                guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }  // folders, binary media
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                where citesOutside(line) {
                    found.append("\(top)/\(path):\(number + 1)")
                }
            }
        }
        return found
    }

    func testNoFileCitesADocumentOutsideTheRepository() {
        XCTAssertEqual(Self.outsideCitations(), [], "cite docs/… or the README instead, or say the rule in place")
    }

    /// The check itself finds a citation planted in a file of its tree.
    func testACitationOfAnOutsideDocumentIsFound() throws {
        let dir = Self.repository.appendingPathComponent(".build/docs-citation-check-\(getpid())")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("Sub"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try "a\n// as SPEC \u{00A7}5 says\n".write(to: dir.appendingPathComponent("Sub/A.swift"), atomically: true, encoding: .utf8)
        try "// Players (is\u{73}ue 3): taps\n".write(to: dir.appendingPathComponent("Sub/C.swift"), atomically: true, encoding: .utf8)
        try "// docs/presets.md, Outputs\n".write(to: dir.appendingPathComponent("B.swift"), atomically: true, encoding: .utf8)
        XCTAssertEqual(Self.outsideCitations(under: [".build/" + dir.lastPathComponent]).sorted(),
                       [".build/\(dir.lastPathComponent)/Sub/A.swift:2", ".build/\(dir.lastPathComponent)/Sub/C.swift:1"])
    }
}

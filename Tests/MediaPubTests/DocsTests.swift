import Foundation
import XCTest
@testable import MediaPub

/// docs/ says what the program does: every event and its fields, every status
/// field, every metric with its type and labels, every control command and
/// reply field, every exit code — no more, no fewer. A change to the typed
/// models that the docs do not follow fails here.
final class DocsTests: XCTestCase {
    private static let docs = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs")

    private func page(_ name: String) throws -> String {
        try String(contentsOf: Self.docs.appendingPathComponent(name), encoding: .utf8)
    }

    /// The page's sections: the text under each `## `x`` heading, by x.
    private func sections(_ text: String, level: String = "## ") -> [String: String] {
        var out: [String: String] = [:]
        var current: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(level + "`"), line.hasSuffix("`") {
                current = String(line.dropFirst(level.count + 1).dropLast())
                out[current!] = ""
            } else if line.hasPrefix("## ") || line.hasPrefix("# ") {
                current = nil
            } else if let c = current {
                out[c, default: ""] += line + "\n"
            }
        }
        return out
    }

    /// The first cells of a section's table rows, without their backquotes.
    private func rows(_ text: String) -> [String] {
        text.split(separator: "\n").compactMap { line -> String? in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count > 2, cells[1].hasPrefix("`"), cells[1].hasSuffix("`") else { return nil }
            return String(cells[1].dropFirst().dropLast())
        }
    }

    private func cells(_ text: String) -> [[String]] {
        text.split(separator: "\n").map { line in
            line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        }.filter { $0.count > 2 && $0[1].hasPrefix("`") }
    }

    func testEveryEventAndItsFieldsAreDocumented() throws {
        let text = try page("events.md")
        let documented = sections(text)
        XCTAssertEqual(Set(documented.keys), Set(Event.names), "one section per event")
        let common = Set(rows(text.components(separatedBy: "\n## ")[0]))
        XCTAssertEqual(common, ["ts", "event"])
        for event in TypedSamples.events {
            let fields = TypedSamples.keys(try TypedSamples.json(StampedEvent(ts: "T", event: event))).subtracting(common)
            XCTAssertEqual(Set(rows(documented[event.name] ?? "")), fields, "docs/events.md, \(event.name)")
        }
        for tag in NowPlaying.CodingKeys.allCases {
            XCTAssertTrue(documented["player.track"]?.contains("`\(tag.rawValue)`") == true, "tags.\(tag.rawValue)")
        }
    }

    func testEveryStatusFieldIsDocumented() throws {
        let documented = sections(try page("status.md"))
        let status = try TypedSamples.json(TypedSamples.status)
        let output = status["outputs"].flatMap { o -> JSONValue? in
            if case .array(let all) = o { return all.last } else { return nil }
        }
        let objects: [String: JSONValue?] = [
            "status": status, "players[]": TypedSamples.first(status["players"]),
            "now_playing": TypedSamples.first(status["players"])?["now_playing"],
            "outputs[]": output, "srt": output?["srt"],
            "schedule": status["schedule"], "live": status["live"], "schedule.next[]": TypedSamples.first(status["schedule"]?["next"]),
            "alerts": status["alerts"], "alerts.active[]": TypedSamples.first(status["alerts"]?["active"]),
            "overlays[]": TypedSamples.first(status["overlays"]),
            "loudness": status["loudness"], "timeline": status["timeline"],
        ]
        XCTAssertEqual(Set(documented.keys), Set(objects.keys))
        for (name, object) in objects {
            XCTAssertFalse(TypedSamples.keys(object).isEmpty, name)
            XCTAssertEqual(Set(rows(documented[name] ?? "")), TypedSamples.keys(object), "docs/status.md, \(name)")
        }
    }

    func testEveryMetricIsDocumentedWithItsTypeAndLabels() throws {
        let exposition = MetricsExposition.render(TypedSamples.status, drops: TypedSamples.drops).split(separator: "\n")
        var emitted: [String: (type: String, labels: Set<String>)] = [:]
        for line in exposition where line.hasPrefix("# TYPE ") {
            let parts = line.split(separator: " ")
            emitted[String(parts[2])] = (String(parts[3]), [])
        }
        for line in exposition where !line.hasPrefix("#") {
            let name = String(line.prefix { $0 != "{" && $0 != " " })
            let labels = line.drop { $0 != "{" }.prefix { $0 != "}" }.dropFirst()
                .split(separator: ",").map { String($0.prefix { $0 != "=" }) }
            emitted[name]?.labels.formUnion(labels)
        }
        let table = sections(try page("metrics.md").replacingOccurrences(of: "## Metrics", with: "## `metrics`"))["metrics"] ?? ""
        var documented: [String: (type: String, labels: Set<String>)] = [:]
        for row in cells(table) {
            let labels = row[3].split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " `")) }
            documented[String(row[1].dropFirst().dropLast())] = (row[2], Set(labels))
        }
        XCTAssertEqual(Set(documented.keys), Set(emitted.keys), "docs/metrics.md lists exactly the metrics /metrics has")
        for (name, metric) in emitted {
            XCTAssertEqual(documented[name]?.type, metric.type, name)
            XCTAssertEqual(documented[name]?.labels, metric.labels, name)
        }
    }

    func testEveryControlCommandAndReplyFieldIsDocumented() throws {
        let text = try page("control.md")
        let commands = sections(text, level: "### ")
        XCTAssertEqual(Set(commands.keys), Set(ControlCommand.names.map { $0[0] }), "one section per command")
        for spellings in ControlCommand.names {
            for other in spellings.dropFirst() {
                XCTAssertTrue(commands[spellings[0]]?.contains("`\(other)`") == true, "\(spellings[0]) also answers to \(other)")
            }
        }
        let replies = sections(text.replacingOccurrences(of: "## Requests and answers", with: "## `answers`"))["answers"] ?? ""
        XCTAssertEqual(Set(rows(replies)), Set(ControlReply.Key.allCases.map(\.rawValue)))
    }

    func testEveryExitCodeIsDocumented() throws {
        let codes = rows(try page("exit-codes.md"))
        XCTAssertEqual(codes, ExitCode.allCases.map { String($0.rawValue) })
    }

    func testTheIndexLinksEveryPageAndNothingOutside() throws {
        let pages = try FileManager.default.contentsOfDirectory(atPath: Self.docs.path).filter { $0.hasSuffix(".md") && $0 != "README.md" }
        let index = try page("README.md")
        for name in pages + ["presets.md"] {
            XCTAssertTrue(index.contains("](\(name))"), "docs/README.md links \(name)")
        }
        for name in pages + ["README.md"] {
            let text = try page(name)
            // An outside link is a URL (`](http://`, `](https://`); `](http.md)` is a page of docs/.
            XCTAssertFalse(text.contains("](http://") || text.contains("](https://"), "\(name) links only within the repository")
        }
        let readme = try String(contentsOf: Self.docs.deletingLastPathComponent().appendingPathComponent("README.md"), encoding: .utf8)
        XCTAssertTrue(readme.contains("](docs/README.md)"), "the README links docs/")
    }
}

import Foundation
import XCTest
@testable import MediaPub

/// Shared helpers for the preset tests.
enum PresetTestKit {
    static let file = "presets/t.yaml"
    static let base = "/srv/mp"

    static func load(_ yaml: String, env: [String: String] = [:], overrides: [String] = [],
                     base: String = base) throws -> Preset {
        try PresetLoader.parse(yaml: yaml, file: file, baseDirectory: base, environment: env, overrides: overrides)
    }

    /// The problems the preset gives (fails the test when it loads).
    static func problems(_ yaml: String, env: [String: String] = [:], overrides: [String] = [],
                         base: String = base, line: UInt = #line) -> [PresetProblem] {
        do {
            _ = try load(yaml, env: env, overrides: overrides, base: base)
            XCTFail("preset loaded but should not have", line: line)
            return []
        } catch let e as PresetError {
            return e.problems
        } catch {
            XCTFail("unexpected error \(error)", line: line)
            return []
        }
    }

    static func tempDir() throws -> String {
        let dir = NSTemporaryDirectory() + "mediapub-preset-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return PathResolution.normalise(dir)
    }

    static func touch(_ path: String, _ text: String = "") {
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)), path)
    }
}

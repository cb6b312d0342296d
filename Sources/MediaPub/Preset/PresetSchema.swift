import Foundation

/// The keys a preset may hold, section by section (made from each section's
/// `PresetField`s). The loader refuses any other key, and `--set` may only name
/// (or create) keys listed here.
indirect enum PresetSchema: Sendable {
    case leaf
    case map([(String, PresetSchema)])
    /// A list of items; `byID` lists can be addressed by an item's `id`.
    case list(PresetSchema, byID: Bool)

    func child(_ key: String) -> PresetSchema? {
        if case .map(let entries) = self { return entries.first(where: { $0.0 == key })?.1 }
        return nil
    }

    var keys: [String] {
        if case .map(let entries) = self { return entries.map(\.0) }
        return []
    }

    /// Every key a preset may hold, made from the sections' fields.
    static let root = Preset.schema

    /// " (did you mean fps?)" when a known key is one or two edits away.
    static func suggestion(for key: String, among known: [String]) -> String {
        let best = known.map { ($0, editDistance($0, key)) }.min(by: { $0.1 < $1.1 })
        if let best, best.1 <= 2, best.1 < key.count { return " (did you mean \(best.0)?)" }
        return ""
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var prev = Array(0...b.count)
        for i in 1...a.count {
            var cur = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            prev = cur
        }
        return prev[b.count]
    }
}

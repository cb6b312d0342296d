import Foundation

/// The keys a preset may hold, section by section. The loader refuses any
/// other key, and `--set` may only name (or create) keys listed here.
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

    static let playlist = PresetSchema.map([("items", .leaf), ("file", .leaf), ("dir", .leaf), ("mode", .leaf)])

    static let player = PresetSchema.map([
        ("id", .leaf), ("source", .leaf), ("playlist", playlist), ("repeat", .leaf), ("video", .leaf),
        ("aux", .leaf), ("publish_volume", .leaf), ("play_volume", .leaf), ("mute_local", .leaf),
        ("speed", .leaf), ("pitch", .leaf), ("start_at", .leaf), ("progress_interval", .leaf),
        ("memory", .leaf),
    ])

    static let output = PresetSchema.map([("id", .leaf), ("url", .leaf)])

    static let root = PresetSchema.map([
        ("name", .leaf),
        ("video", .map([("size", .leaf), ("width", .leaf), ("height", .leaf), ("fps", .leaf), ("bitrate", .leaf),
                        ("keyframe_interval", .leaf), ("encoder", .leaf), ("encoder_preset", .leaf)])),
        ("audio", .map([("sample_rate", .leaf), ("channels", .leaf), ("bitrate", .leaf)])),
        ("players", .list(player, byID: true)),
        ("standby", .map([("image", .leaf), ("color", .leaf), ("audio", .leaf)])),
        ("publishing", .leaf),
        ("outputs", .list(output, byID: false)),
        ("reconnect", .map([("initial", .leaf), ("max", .leaf), ("give_up_after", .leaf), ("stall", .leaf)])),
        ("stop", .map([("after", .leaf), ("at_end", .leaf)])),
        ("monitor", .leaf),
        ("events", .map([("webhook", .leaf)])),
    ])

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

import Foundation

/// What was found out about items (a duration, a loudness), kept by item and by the
/// version it was found of (`FileVersion`, a local file's; nil for anything else, known
/// by its name): a file that changed since is not known any more. At `maxKept` items it
/// starts over, so a run whose folders keep changing never grows without bound. A value
/// type, kept inside its owner's lock (ItemDurations, ItemLoudness).
struct ItemCache<Value: Sendable>: Sendable {
    private var entries: [String: (version: FileVersion?, value: Value)] = [:]

    static var maxKept: Int { 100_000 }

    /// What was found of `item` as it is now (`version`); nil when nothing was, or it changed since.
    func value(of item: String, version: FileVersion?) -> Value? {
        guard let entry = entries[item], entry.version == version else { return nil }
        return entry.value
    }

    /// Keeps `value` for `item` at `version`.
    mutating func keep(_ value: Value, for item: String, version: FileVersion?) {
        if entries[item] == nil, entries.count >= Self.maxKept { entries.removeAll() }
        entries[item] = (version, value)
    }
}

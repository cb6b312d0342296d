import Foundation
import Synchronization

/// Items' integrated loudness for a run with `audio.loudness` (docs/presets.md): each
/// local file measured once (`LoudnessMeasure`) on a thread of its own at low priority,
/// one at a time, ahead of its turn, and kept by path, size and modification time
/// (`ItemCache`, as `ItemDurations` keeps durations: a file that changed is measured again).
/// A file over HTTP(S) is measured too, read once more for it, and kept by its URL for the
/// run; an HLS item, a FIFO or a stream is not measured. `known(_:)` never waits.
final class ItemLoudness: Sendable {
    let config: LoudnessConfig
    let channels: Int

    private struct State: HasWaiters {
        /// LUFS; nil: nothing to measure (silence) or it could not be measured.
        var entries = ItemCache<Double?>()
        /// Items waiting for their measure, in order, and the one being measured.
        var queue: [String] = []
        var measuring: String?
        var waiters = Waiters()
    }

    private let state = Mutex(State())

    /// The most items waiting to be measured.
    static let maxQueued = 16
    /// The measuring thread's niceness: it takes what the run leaves over.
    static let niceness: Int32 = 15

    init(config: LoudnessConfig, channels: Int) {
        self.config = config
        self.channels = channels
    }

    /// With `loudness` (nil: none), `players`' items each get a gain to its target, from
    /// one measure of each item for them all; `monitored`: the run plays them on the local monitor.
    static func share(_ loudness: LoudnessConfig?, channels: Int, among players: [MediaPlayer], monitored: Bool = false) {
        let shared = loudness.map { ItemLoudness(config: $0, channels: channels) }
        for player in players { player.useLoudness(shared, monitored: monitored) }
    }

    /// What is known of `item` without waiting: nil when it has not been measured (or it
    /// changed since), `.some(nil)` when it has no loudness to go by. Only a regular file is
    /// measured: a FIFO's data is the player's alone.
    func known(_ item: String) -> Double?? {
        guard let (_, version) = ItemLoudness.measurable(item) else { return .some(nil) }
        return state.withLock { $0.entries.value(of: item, version: version) }
    }

    /// What of `item` is measured: the URI it is read from and its version (a local regular
    /// file's; nil for one over HTTP(S), known by its URL); nil when it is not measured.
    static func measurable(_ item: String) -> (uri: String, version: FileVersion?)? {
        guard case .uri(let uri, let isImage)? = try? SourceSpec(item), !isImage else { return nil }
        if let version = FileVersion(item: item) { return version.isRegularFile ? (uri, version) : nil }
        let scheme = PathResolution.sourceScheme(of: uri) ?? ""
        return ["http", "https"].contains(scheme) && !HLSPlaylist.isPlaylist(uri) ? (uri, nil) : nil
    }

    /// Has the items not known yet measured, in this order, after those asked for before.
    func request(_ items: [String]) {
        let wanted = items.filter { known($0) == nil }
        guard !wanted.isEmpty else { return }
        let start = state.withLock { s -> Bool in
            for item in wanted where s.measuring != item && !s.queue.contains(item) && s.queue.count < ItemLoudness.maxQueued {
                s.queue.append(item)
            }
            guard s.measuring == nil, let first = s.queue.first else { return false }
            s.measuring = first
            s.queue.removeFirst()
            return true
        }
        if start {
            let thread = Thread { [weak self] in self?.work() }
            thread.name = "loudness"
            thread.start()
        }
    }

    /// Waits until every one of `items` is known (or cannot be measured), up to `deadline`.
    func wait(for items: [String], until deadline: MonotonicInstant) {
        request(items)
        let pending = items.filter { ItemLoudness.measurable($0) != nil }
        state.wait(until: deadline) { s in
            pending.contains { item in s.measuring == item || s.queue.contains(item) }
        }
    }

    /// The measuring thread: one item after another until none is left.
    private func work() {
        // On Linux, the calling thread's own niceness (a per-thread attribute there).
        setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, ItemLoudness.niceness)
        var item = state.withLock { $0.measuring }
        while let current = item {
            let target = ItemLoudness.measurable(current)
            let outcome = target.map { LoudnessMeasure.measure(uri: $0.uri, channels: channels, remote: $0.version == nil) }
            let lufs: Double? = if case .loudness(let v)? = outcome { v } else { nil }
            item = state.withLock { s -> String? in
                // Changed while it was measured: the answer may be of neither version.
                if let target, target.version == nil || FileVersion(item: current) == target.version {
                    s.entries.keep(lufs, for: current, version: target.version)
                }
                s.measuring = s.queue.isEmpty ? nil : s.queue.removeFirst()
                s.waiters.wakeAll()
                return s.measuring
            }
        }
    }
}

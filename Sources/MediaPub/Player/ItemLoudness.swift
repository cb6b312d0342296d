import Foundation
import Synchronization

/// Items' integrated loudness for a run with `audio.loudness` (docs/presets.md): each
/// local file measured once (`LoudnessMeasure`) on a thread of its own at low priority,
/// one at a time, ahead of its turn, and kept by path, size and modification time
/// (`ItemCache`, as `ItemDurations` keeps durations: a file that changed is measured again).
/// A file over HTTP(S) is measured too, read once more for it, and kept by its URL for the
/// run; an HLS item, a FIFO or a stream is not measured. `known(_:)` never waits;
/// `looked(_:)` does not touch the file system either (the timeline thread asks it, docs/design.md).
final class ItemLoudness: Sendable {
    let config: LoudnessConfig
    let channels: Int

    private struct State: HasWaiters {
        /// LUFS; nil: nothing to measure (silence) or it could not be measured.
        var entries = ItemCache<Double?>()
        /// What each item's measure was when the measuring thread last looked at its file (`looked`).
        var verdicts: [String: Double?] = [:]
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

    /// What is known of `item` as the measuring thread last looked at it (asked for with
    /// `request`), as `known` says, without looking at its file: nil until then.
    func looked(_ item: String) -> Double?? {
        state.withLock { $0.verdicts[item] }
    }

    /// What of `item` is measured: the URI it is read from and its version (a local regular
    /// file's; nil for one over HTTP(S), known by its URL); nil when it is not measured.
    static func measurable(_ item: String) -> (uri: String, version: FileVersion?)? {
        guard case .uri(let uri, let isImage)? = try? SourceSpec(item), !isImage else { return nil }
        if let version = FileVersion(item: item) { return version.isRegularFile ? (uri, version) : nil }
        let scheme = PathResolution.sourceScheme(of: uri) ?? ""
        return ["http", "https"].contains(scheme) && !HLSPlaylist.isPlaylist(uri) ? (uri, nil) : nil
    }

    /// Has the items measured that are not known yet, in this order, after those asked for
    /// before; each is looked at on the measuring thread (nothing here touches its file).
    func request(_ items: [String]) {
        guard !items.isEmpty else { return }
        let start = state.withLock { s -> Bool in
            for item in items where s.measuring != item && !s.queue.contains(item) && s.queue.count < ItemLoudness.maxQueued {
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
        state.wait(until: deadline) { s in
            items.contains { item in s.measuring == item || s.queue.contains(item) }
        }
    }

    /// The measuring thread: one item after another until none is left.
    private func work() {
        // On Linux, the calling thread's own niceness (a per-thread attribute there).
        setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, ItemLoudness.niceness)
        var item = state.withLock { $0.measuring }
        while let current = item {
            let target = ItemLoudness.measurable(current)
            let kept = target.flatMap { t in state.withLock { $0.entries.value(of: current, version: t.version) } }
            if kept == nil { state.withLock { s in s.verdicts[current] = nil } }  // not known until measured again
            let outcome = kept != nil ? nil
                : target.map { LoudnessMeasure.measure(uri: $0.uri, channels: channels, remote: $0.version == nil) }
            let lufs: Double? = if case .loudness(let v)? = outcome { v } else { nil }
            // Changed while it was measured: the answer may be of neither version.
            let unchanged = target.map { $0.version == nil || FileVersion(item: current) == $0.version } ?? false
            item = state.withLock { s -> String? in
                if s.verdicts[current] == nil, s.verdicts.count >= ItemCache<Double?>.maxKept { s.verdicts.removeAll() }
                if let target, let kept {
                    s.verdicts[current] = .some(kept)
                } else if let target, unchanged {
                    s.entries.keep(lufs, for: current, version: target.version)
                    s.verdicts[current] = .some(lufs)
                } else if target == nil {
                    s.verdicts[current] = .some(nil)  // nothing to measure
                }
                s.measuring = s.queue.isEmpty ? nil : s.queue.removeFirst()
                s.waiters.wakeAll()
                return s.measuring
            }
        }
    }
}

import Foundation
import Synchronization

/// Items' durations, for joining a programme's block in progress (which item is on
/// air, and how far into it) and for a run's length: probed (`Probe`), each within
/// `deadline`, and kept for the run. A local file is known by its path, size and
/// modification time (one that changed is probed again); anything else by its name.
/// An item whose duration cannot be known (missing, unreadable, not media, an endless
/// stream, no answer within the deadline) is nil. Probing waits for GStreamer:
/// never call `durations(of:)` on the timeline thread; `known(_:)` never probes, but
/// looks at a local file's version (a stat): never on the timeline thread either.
final class ItemDurations: Sendable {
    private struct Entry {
        let version: FileVersion?
        /// nil: the item has no duration (an endless stream, a still picture with none).
        let seconds: TimeInterval?
    }

    private struct State {
        var entries = ItemCache<TimeInterval?>()
        /// Items whose last probe failed (no answer within the deadline, or not media), with why
        /// and when (`uptime`): forgotten after `failureKept`.
        var failed: [String: (why: String, at: MonotonicInstant)] = [:]
        /// Probes made so far (tests tell a cached answer by it).
        var probes = 0
    }

    /// How long one item's probe may take.
    let deadline: TimeInterval
    /// How long a failed probe counts (the item skipped, not probed again): a server down for a
    /// while is asked again after it, and its items play again once it answers.
    static let failureKept: TimeInterval = 60
    /// The monotonic clock, in seconds (tests give one they can move).
    private let uptime: @Sendable () -> MonotonicInstant
    private let state = Mutex(State())

    init(deadline: TimeInterval = 10,
         uptime: @escaping @Sendable () -> MonotonicInstant = { .now }) {
        self.deadline = deadline.isFinite ? min(max(0.1, deadline), 300) : 10
        self.uptime = uptime
    }

    /// The duration of each of `items`, in seconds, nil where it cannot be known. Items
    /// not known yet are probed, a few at a time; waits up to about `deadline` each.
    func durations(of items: [String]) -> [TimeInterval?] {
        assert(!TimelineThread.isCurrent, "ItemDurations.durations(of:) waits for probes: never on the timeline thread")
        let wanted = Array(Set(items.filter { known($0) == nil }))
        let found = Mutex<[String: Entry]>([:])
        DispatchQueue.concurrentPerform(iterations: wanted.count) { i in
            let outcome = probe(wanted[i])
            state.withLock { s in
                s.probes += 1
                switch outcome {
                case .success(let entry):
                    s.failed[wanted[i]] = nil
                    if let entry { s.entries.keep(entry.seconds, for: wanted[i], version: entry.version) }
                case .failure(let why): s.failed[wanted[i]] = (why.message, uptime())
                }
            }
            if case .success(let entry?) = outcome { found.withLock { $0[wanted[i]] = entry } }
        }
        let probed = found.withLock { $0 }
        return items.map { item in
            if let entry = probed[item] { return entry.seconds }
            return known(item) ?? nil
        }
    }

    /// The duration of `item` in seconds (nil when it cannot be known), probed if need be.
    func duration(of item: String) -> TimeInterval? {
        durations(of: [item])[0]
    }

    /// What is known of `item` without probing: nil when it has not been probed (or it
    /// changed since), `.some(nil)` when it has no duration.
    func known(_ item: String) -> TimeInterval?? {
        let version = ItemDurations.version(of: item)
        return state.withLock { $0.entries.value(of: item, version: version) }
    }

    /// Probes made so far.
    var probes: Int { state.withLock { $0.probes } }

    /// Why `item`'s last probe failed (it could not be opened within the deadline: a server
    /// that never answers, not media); nil when it has not failed, or failed more than
    /// `failureKept` ago (then it is forgotten: probed again when its length is wanted, played
    /// when its turn comes).
    func failure(_ item: String) -> String? {
        let now = uptime()
        return state.withLock { s in
            guard let failed = s.failed[item] else { return nil }
            guard now.timeIntervalSince(failed.at) < Self.failureKept else {
                s.failed[item] = nil
                return nil
            }
            return failed.why
        }
    }

    /// Why a probe failed.
    private struct ProbeFailure: Error {
        let message: String
    }

    /// Probes `item`: an entry to keep; nil when it changed while probed; a failure when it
    /// could not be probed (each tried again next time: a file may be written meanwhile, a
    /// server may answer).
    private func probe(_ item: String) -> Result<Entry?, ProbeFailure> {
        let before = ItemDurations.version(of: item)
        // A FIFO (or a device) is endless and its data the player's alone: no length, never read here.
        if let before, !before.isRegularFile { return .success(Entry(version: before, seconds: nil)) }
        let result: ProbeResult
        do { result = try Probe.run(source: item, timeout: deadline, diagnose: false) } catch {
            let text = SecretMask.scrub("\(error)", secretsOf: item)
            return .failure(ProbeFailure(message: "\(SecretMask.mask(url: item)) could not be probed: \(text)"))
        }
        // Changed while it was probed: the answer may be of neither version.
        guard ItemDurations.version(of: item) == before else { return .success(nil) }
        return .success(Entry(version: before, seconds: result.durationMs.map { Double($0) / 1000 }))
    }

    /// A local file's version; nil for anything else (or a file not there).
    private static func version(of item: String) -> FileVersion? { FileVersion(item: item) }
}

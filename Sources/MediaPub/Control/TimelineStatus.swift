import Foundation

/// The output timeline in `status` (docs/status.md, `timeline`), in a realtime run once it runs.
public struct TimelineStatus: Codable, Sendable, Equatable {
    /// How far the tick in progress is behind its time, in ms of the monotonic clock (0: on time).
    public var lagMs: Int

    enum CodingKeys: String, CodingKey, CaseIterable {
        case lagMs = "lag_ms"
    }
}

extension TimelineStatus {
    /// Its metric in `/metrics` (docs/metrics.md), through `metric(name, help, type, samples)`; no sample without it.
    static func metrics(_ t: TimelineStatus?,
                        _ metric: (String, String, String, [(labels: String, value: Double)]) -> Void) {
        metric("timeline_lag_seconds", "How far the realtime output timeline is behind its time (0: on time).", "gauge",
               t.map { [("", Double($0.lagMs) / 1000)] } ?? [])
    }
}

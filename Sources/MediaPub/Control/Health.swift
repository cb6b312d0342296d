import Foundation

/// `GET /health` on the metrics server (docs/metrics.md): whether the channel is
/// on air, for an orchestrator's probe. Healthy (200) while the run is running, its
/// output timeline advances, and at least one output is `publishing` (a recording:
/// writing); else 503 with why. One line of JSON: `{"ok":true}` or
/// `{"ok":false,"reason":"…"}`, URLs and errors masked.
public struct Health: Codable, Sendable, Equatable {
    public var ok: Bool
    public var reason: String?

    /// The timeline counts as stalled once it has not moved for this many seconds.
    public static let timelineStall = 5.0

    public static let healthy = Health(ok: true, reason: nil)

    static func failing(_ reason: String) -> Health { Health(ok: false, reason: reason) }

    /// The health of a run as `status` shows it, its timeline last moved `secondsSinceLastTick` ago (nil: not yet).
    public static func of(_ status: RunStatus, secondsSinceLastTick: Double?) -> Health {
        guard status.state == .running else { return failing("the run is \(status.state.rawValue)") }
        guard let since = secondsSinceLastTick else { return failing("the output timeline has not started") }
        if since > timelineStall {
            return failing("the output timeline has not advanced for \(String(format: "%.0f", since)) s")
        }
        if status.outputs.contains(where: { $0.state == .publishing }) { return healthy }
        if status.outputs.isEmpty { return failing("no outputs") }
        let outputs = status.outputs.map { o in "\(o.id) (\(o.url)) is \(o.state.rawValue)" + (o.error.map { ": \($0)" } ?? "") }
        return failing("no output is publishing: " + outputs.joined(separator: "; "))
    }

    /// The HTTP status it is served with.
    var httpStatus: UInt32 { ok ? 200 : 503 }

    /// The body: one line of JSON.
    var body: String { (JSONLine.text(self) ?? #"{"ok":false}"#) + "\n" }
}

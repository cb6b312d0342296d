import Foundation

/// What the HTTP server serves, as the run gives it (docs/http.md): each a closure
/// that answers from the run's own state (the same as `ctl` and `/metrics`), called on
/// the server's thread; none waits for the output timeline.
struct HTTPSite: Sendable {
    var health: @Sendable () -> Health = { .healthy }
    var metrics: @Sendable () -> String = { "" }
    /// A read of the control commands (`status`, `schedule`): the reply `ctl` gets.
    var read: @Sendable ([String]) -> ControlReply = { _ in .failure("stopping") }
    /// The programme's listing for the next N hours, as `mediapub schedule --hours N` (nil: no programme).
    var scheduleLines: @Sendable (Int) -> [String]? = { _ in nil }
    /// The last N lines of the log.
    var log: @Sendable (Int) -> [String] = { _ in [] }
    /// The run's uptime and each output's bitrate now, for the history.
    var bitrates: @Sendable () -> (uptimeMs: Int, outputs: [(id: String, kbps: Int)]) = { (0, []) }
    /// Commands, in the control socket's lanes; nil: none over HTTP.
    var commands: CommandEndpoint?
    /// The event stream; nil: `/api/events` answers 404.
    var events: EventStream?
    /// The token (nil: none configured: commands are refused).
    var token: HTTPToken?
    /// The page's thumbnail (nil: `/api/thumbnail.jpg` answers 404).
    var thumbnails: Thumbnails?
    /// `http.public_read`.
    var publicRead = false
}

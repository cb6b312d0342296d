import Foundation

/// The deadline of an RTMP output's connect, stage by stage, as a value (no clock of
/// its own): a stage that makes no progress for `limit` (`reconnect.stall`) fails the
/// connect, which is retried like any failure (docs/presets.md, `reconnect`). Without
/// it, a server that answered garbage, or the handshake and then nothing, left the
/// output connecting for ever.
struct ConnectDeadline: Equatable {
    /// How far a connect has got.
    enum Stage: Equatable {
        /// No TCP connection to the server yet.
        case tcp
        /// Connected; no RTMP session yet: the server has not answered the handshake
        /// and the `connect` command as an RTMP server does.
        case rtmp
        /// The RTMP session is up; the server has acknowledged none of the stream.
        case media

        /// Why a connect that stayed at this stage for `limit` failed.
        func failure(after limit: TimeInterval) -> String {
            let d = MediaTime.formatDuration(limit)
            switch self {
            case .tcp: return "connect: no TCP connection to the server for \(d)"
            case .rtmp: return "connect: the server answered nothing in RTMP for \(d)"
            case .media: return "connect: the server acknowledged none of the stream for \(d)"
            }
        }
    }

    /// `reconnect.stall`.
    let limit: TimeInterval
    private(set) var stage = Stage.tcp
    /// When the connect reached `stage` (or began).
    private(set) var since: MonotonicInstant

    init(limit: TimeInterval, now: MonotonicInstant = .now) {
        self.limit = limit
        since = now
    }

    /// A new connect begins.
    mutating func restart(at now: MonotonicInstant = .now) {
        stage = .tcp
        since = now
    }

    /// One look at a connect under way, which has reached `stage`: true when it has
    /// made no progress for its stage's deadline (`allowed`).
    mutating func observe(_ reached: Stage, at now: MonotonicInstant = .now) -> Bool {
        if reached != stage {
            stage = reached
            since = now
        }
        return now.timeIntervalSince(since) >= allowed(stage)
    }

    /// A stage's deadline: `limit`; for the TCP connect, no less than twice rtmp2sink's
    /// own (it gives up on a TCP connect itself: stopped before, it could keep the
    /// socket of a connect that completed meanwhile).
    func allowed(_ stage: Stage) -> TimeInterval {
        stage == .tcp ? max(limit, 2 * Self.sinkTimeout) : limit
    }

    /// Why the connect failed, once `observe` said so.
    var failure: String { stage.failure(after: allowed(stage)) }

    /// rtmp2sink's own deadline for each read and write of a connect (its `timeout`, 5 s).
    static let sinkTimeout: TimeInterval = 5

    /// rtmp2sink's failure when that deadline passed ("Failed to connect: Socket I/O
    /// timed out"), in our words; nil for any other failure.
    static func sinkTimedOut(_ text: String) -> String? {
        text.contains("Socket I/O timed out")
            ? "connect: the server answered nothing for \(MediaTime.formatDuration(sinkTimeout))" : nil
    }
}

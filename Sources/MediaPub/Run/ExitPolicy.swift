import Foundation
import Synchronization

/// When a run ends before its time, and with which exit code (SPEC §2):
/// 0 when it finished (content ended, duration reached, `quit`, a signal
/// handled), 1 when it failed (every output lost, the encoder failed, nothing
/// playable), 2 when another instance owns its control path.
final class ExitPolicy: Sendable {
    /// What made the run fail, when something did (the latest failure said).
    private let failure = Mutex<String?>(nil)

    /// The run fails with `why`: the caller stops the timeline.
    func fail(_ why: String) { failure.withLock { $0 = why } }

    var hasFailed: Bool { failure.withLock { $0 != nil } }

    /// Whether an output's new state ends the run: the last output standing failed.
    /// `allOutputsFailed` is asked only for a failure: it takes every output's
    /// lock, which a state callback must not do otherwise (see `Broadcast.outputState`).
    static func endsRun(_ state: OutputState, allOutputsFailed: @autoclosure () -> Bool) -> Bool {
        state == .failed && allOutputsFailed()
    }

    /// How a run that reached its end ends: the failure, if any, else why the timeline stopped.
    func result(stop: CaptureStop, encoderError: String?) -> RunResult {
        if let failure = failure.withLock({ $0 }) { return RunResult(.failed, failure) }
        if stop == .nothingPlayable { return RunResult(.failed, "nothing playable") }
        if let encoderError { return RunResult(.failed, "encoder failed: \(encoderError)") }
        switch stop {
        case .duration: return RunResult(.finished, "duration reached")
        case .contentEnded: return RunResult(.finished, "content ended")
        case .encoderFailed: return RunResult(.finished, "encoder failed")
        case .requested, .nothingPlayable: return RunResult(.finished, "stopped")
        }
    }

    /// A run that could not be set up (`message` already masked).
    static func failedToStart(_ message: String) -> RunResult { RunResult(.failed, message) }

    /// Nothing has started: another instance owns the control path.
    static func pathInUse(_ inUse: ControlPathInUse) -> RunResult { RunResult(.usage, "\(inUse)") }
}

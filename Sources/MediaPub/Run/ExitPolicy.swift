import Foundation
import Synchronization

/// When a run ends before its time, and with which exit code (docs/exit-codes.md):
/// 0 when it finished (content ended, duration reached, `quit`, a signal
/// handled), 1 when it failed (every output lost, the encoder failed, nothing
/// playable, no output ever published), 2 when another instance owns its control path.
final class ExitPolicy: Sendable {
    /// What an output last said, for a run that never aired.
    private struct Heard {
        var id: String
        var shown: String       // `id (masked URL)`
        var error: String?      // its latest error (masked), if it had one
    }

    private struct State {
        /// What made the run fail, when something did (the latest failure said).
        var failure: String?
        /// Whether any output ever published (a recording: wrote its first data).
        var aired = false
        /// Each output, in the run's order, with its latest error.
        var heard: [Heard] = []
    }
    private let state = Mutex(State())

    /// The run fails with `why`: the caller stops the timeline.
    func fail(_ why: String) { state.withLock { $0.failure = why } }

    var hasFailed: Bool { state.withLock { $0.failure != nil } }

    /// The run's outputs, before any says anything.
    func expect(_ outputs: [Output]) {
        let heard = outputs.map { Heard(id: $0.id, shown: "\($0.id) (\($0.maskedURL))") }
        state.withLock { $0.heard = heard }
    }

    /// An output's new state (its error masked already). Takes no other lock and calls
    /// no one: it may be told while the output holds its own.
    func output(_ id: String, _ outputState: OutputState, _ error: String?) {
        state.withLock { s in
            if outputState == .publishing { s.aired = true }
            guard let error, let i = s.heard.firstIndex(where: { $0.id == id }) else { return }
            s.heard[i].error = error
        }
    }

    /// Whether an output's new state ends the run: the last output standing failed.
    /// `allOutputsFailed` is asked only for a failure: it takes every output's
    /// lock, which a state callback must not do otherwise (see `Broadcast.outputState`).
    static func endsRun(_ state: OutputState, allOutputsFailed: @autoclosure () -> Bool) -> Bool {
        state == .failed && allOutputsFailed()
    }

    /// How a run that reached its end ends: the failure, if any, else why the timeline stopped.
    /// A show that never aired is a failure: no output ever published, and the run ran its
    /// course (duration, content) or an output failed or was refused. A stop asked for
    /// (signal, `quit`) while the outputs were still connecting, none refused, is not.
    func result(stop: CaptureStop, encoderError: String?) -> RunResult {
        let (failure, aired, heard) = state.withLock { ($0.failure, $0.aired, $0.heard) }
        if let failure { return RunResult(.failed, failure) }
        if stop == .nothingPlayable { return RunResult(.failed, "nothing playable") }
        if let encoderError { return RunResult(.failed, "encoder failed: \(encoderError)") }
        if !aired, stop != .requested || heard.contains(where: { $0.error != nil }) {
            let outputs = heard.map { $0.shown + ($0.error.map { ": \($0)" } ?? ": never connected") }
            return RunResult(.failed, "no output ever published: " + outputs.joined(separator: "; "))
        }
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

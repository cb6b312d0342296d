/// The process's exit codes (docs/exit-codes.md).
public enum ExitCode: Int32, Sendable, CaseIterable {
    /// Finished: content ended, duration reached, `quit`, a signal handled.
    case finished = 0
    /// The run failed (every output lost, the encoder failed, nothing playable).
    case failed = 1
    /// A usage or preset error, or another instance on the control path: nothing started.
    case usage = 2
    /// `--lock` is held by another instance: nothing started.
    case locked = 3
}

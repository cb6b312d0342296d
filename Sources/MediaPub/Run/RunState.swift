/// The state of the run as a whole (`status.state`, the `run.state` event):
/// starting until the timeline runs, running, then stopping while outputs finish.
public enum RunState: String, Codable, Sendable, CaseIterable {
    case starting, running, stopping
}

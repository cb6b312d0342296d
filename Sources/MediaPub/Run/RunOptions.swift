import Foundation

/// How a run is set up beyond the preset (README, run options).
public struct RunOptions: Sendable {
    /// Replaces the preset's outputs when not empty.
    public var outputs: [OutputURL] = []
    public var duration: TimeInterval?
    /// nil: realtime when any network output exists.
    public var realtime: Bool?
    /// The control socket's path; nil: no control socket.
    public var controlPath: String?
    /// `--http ADDR:PORT` (alias `--metrics`): the HTTP server (docs/http.md); nil: none.
    public var http: String?
    /// The option `http` was given as (`--http`, `--metrics`), for its errors.
    public var httpFlag = "--http"
    /// The token commands over HTTP need (`--http-token-env`, `http.token_file`); nil: none.
    public var httpToken: HTTPToken?
    /// `--from`: a run as fast as possible plays the programme as from this wall time of
    /// its zone (docs/presets.md, Schedule); nil: from now.
    public var programmeFrom: String?
    public init() {}

    /// The run's outputs: `outputs` (named by index), else the preset's.
    func outputConfigs(of preset: Preset) -> [OutputConfig] {
        outputs.isEmpty ? preset.outputs : outputs.map { OutputConfig(url: $0) }
    }
}

/// The outcome of a run and its exit code (docs/exit-codes.md).
public struct RunResult: Sendable {
    public var exitCode: Int32
    public var reason: String

    init(_ code: ExitCode, _ reason: String) {
        exitCode = code.rawValue
        self.reason = reason
    }
}

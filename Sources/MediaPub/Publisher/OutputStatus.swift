import Foundation

/// The state of one output (docs/status.md, `outputs[]`).
public enum OutputState: String, Sendable {
    case connecting, publishing, reconnecting, failed, stopped
}

/// A snapshot of an output for status and metrics.
public struct OutputStatus: Sendable, Codable {
    /// Its `id:`, else its index.
    public var id: String
    public var url: String        // masked; a recording's file as written
    public var state: OutputState
    public var bytesSent: UInt64
    public var reconnects: Int
    public var bitrateKbps: Int
    public var error: String?
    /// An SRT caller's acknowledgements, round trip and losses (nil for other outputs).
    public var srt: SRTStats?
    /// An RTMP output's bytes the server's TCP stack acknowledged on this connection (nil when unknown).
    public var bytesAcked: Int?
    /// An SRT listener's callers (viewers) connected now, as srtsink tells them (nil for other outputs).
    public var callers: Int?

    /// As `status.outputs[]` shows it (`error`, `bytes_acked`, `srt` and `callers` only when set).
    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, url, state, reconnects, error, srt, callers
        case bytesSent = "bytes_sent", bitrateKbps = "bitrate_kbps", bytesAcked = "bytes_acked"
    }
}

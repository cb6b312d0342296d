import Foundation

/// What an SRT caller's socket says of its peer (srtsink's `stats`): how many
/// packets the peer acknowledged, round-trip time, losses, retransmissions, drops.
public struct SRTStats: Sendable, Equatable, Codable {
    public var packetsSent: Int64 = 0
    public var acksReceived: Int64 = 0
    public var packetsLost: Int64 = 0
    public var retransmitted: Int64 = 0
    public var dropped: Int64 = 0
    public var rttMs: Double = 0

    public init() {}

    /// As `status.outputs[].srt` shows it.
    enum CodingKeys: String, CodingKey, CaseIterable {
        case retransmitted, dropped
        case rttMs = "rtt_ms", packetsSent = "packets_sent", acksReceived = "acks_received", packetsLost = "packets_lost"
    }

    /// The statistics of an srtsink in caller mode, or nil when it has none (yet).
    static func read(from sink: Element) -> SRTStats? {
        guard let stats = sink.structure("stats"), let sent = stats.int("packets-sent"),
              let acks = stats.int("packet-ack-received") else { return nil }
        var out = SRTStats()
        out.packetsSent = Int64(sent)
        out.acksReceived = Int64(acks)
        out.packetsLost = Int64(stats.int("packets-sent-lost") ?? 0)
        out.retransmitted = Int64(stats.int("packets-retransmitted") ?? 0)
        out.dropped = Int64(stats.int("packets-sent-dropped") ?? 0)
        out.rttMs = stats.double("rtt-ms") ?? 0
        return out
    }
}

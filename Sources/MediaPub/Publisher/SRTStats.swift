import CGStreamer
import CShim
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
        guard let structure = cshim_object_get_structure(UnsafeMutableRawPointer(sink.raw), "stats") else { return nil }
        defer { gst_structure_free(structure) }
        func int(_ name: String) -> Int64? {
            var i64: gint64 = 0
            if gst_structure_get_int64(structure, name, &i64) != 0 { return Int64(i64) }
            var i32: gint = 0
            if gst_structure_get_int(structure, name, &i32) != 0 { return Int64(i32) }
            return nil
        }
        guard let sent = int("packets-sent"), let acks = int("packet-ack-received") else { return nil }
        var stats = SRTStats()
        stats.packetsSent = sent
        stats.acksReceived = acks
        stats.packetsLost = int("packets-sent-lost") ?? 0
        stats.retransmitted = int("packets-retransmitted") ?? 0
        stats.dropped = int("packets-sent-dropped") ?? 0
        var rtt: gdouble = 0
        if gst_structure_get_double(structure, "rtt-ms", &rtt) != 0 { stats.rttMs = rtt }
        return stats
    }
}

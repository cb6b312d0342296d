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

    /// Holds a stopping caller's socket open once everything was handed to libsrt:
    /// live mode drops what is unsent or unacknowledged when the socket closes. A packet
    /// the peer has not got within its latency is of no use to it (it plays out in time
    /// or not at all), so the wait is the negotiated latency and two round trips, plus
    /// 20 ms for libsrt's 10 ms ACK period (a second when the sink has no statistics),
    /// and then for as long as libsrt is still sending (a busy machine), a second at most.
    static func waitForDrain(_ sink: Element) {
        let began = MonotonicInstant.now
        var least: TimeInterval = 1
        if let stats = sink.structure("stats"), let latency = stats.int("negotiated-latency-ms"), latency > 0 {
            least = min(1, (Double(latency) + 2 * max(0, stats.double("rtt-ms") ?? 0) + 20) / 1000)
        }
        var sent = read(from: sink)?.packetsSent
        while MonotonicInstant.now.timeIntervalSince(began) < 1 {
            Thread.sleep(forTimeInterval: 0.02)
            let now = read(from: sink)?.packetsSent
            if MonotonicInstant.now.timeIntervalSince(began) >= least, now == sent { return }
            sent = now
        }
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

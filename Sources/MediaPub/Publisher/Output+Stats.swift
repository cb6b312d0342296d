import Foundation

extension Output {
    /// What an output's status and metrics count (docs/status.md, docs/metrics.md),
    /// inside `Output.state`.
    ///
    /// `sent` is what reached a connection: a recording's, an HLS or SRT output's encoded
    /// bytes while it publishes; an RTMP output's bytes rtmp2sink wrote on each
    /// connection whose server took the stream (the FLV stream in RTMP chunks, with its
    /// commands); an Icecast output's encoded bytes shout2send took on each connection
    /// whose server accepted the login. `acked` is, of that, what the server acknowledged. Both add up
    /// over connections, so that neither goes down at a reconnect, and `acked` never
    /// exceeds `sent`. An output that never connected counts 0 and 0.
    struct Stats {
        /// The encoded bytes handed to the output's connections, whether or not they got anywhere.
        var handed: UInt64 = 0
        /// What the connections before the current one counted.
        private var before = (sent: UInt64(0), acked: UInt64(0))
        /// What the current RTMP or Icecast connection counts so far.
        private var current = (sent: UInt64(0), acked: UInt64(0))
        private var rateMark: (at: MonotonicInstant, bytes: UInt64) = (.now, 0)
        private var rateKbps = 0

        /// `bytes_sent`.
        var sent: UInt64 { before.sent + current.sent }
        /// `bytes_acked`.
        var acked: UInt64 { before.acked + current.acked }

        /// A sample went out on a connection that publishes (recordings, HLS, SRT).
        mutating func delivered(_ bytes: Int) {
            before.sent += UInt64(max(0, bytes))
        }

        /// A look at the current RTMP (or Icecast) connection, whose server took the stream:
        /// all the sink `written` on it, and what the server `acknowledged` of that.
        mutating func connection(written: Int, acknowledged: Int) {
            let written = UInt64(max(0, written))
            current.sent = max(current.sent, written)
            current.acked = min(current.sent, max(current.acked, UInt64(max(0, acknowledged))))
        }

        /// The current connection is over: what it counted stays counted.
        mutating func connectionEnded() {
            before.sent += current.sent
            before.acked += current.acked
            current = (0, 0)
        }

        /// The bitrate of `sent` over the last few seconds (measured again every 2 s).
        mutating func bitrateKbps(at now: MonotonicInstant) -> Int {
            let elapsed = now.timeIntervalSince(rateMark.at)
            if elapsed >= 2 {
                let bytes = sent
                rateKbps = Int(Double(bytes > rateMark.bytes ? bytes - rateMark.bytes : 0) * 8 / elapsed / 1000)
                rateMark = (now, bytes)
            }
            return rateKbps
        }
    }
}

extension Output {
    /// An RTMP output counts what rtmp2sink wrote and the server acknowledged, an Icecast
    /// output what shout2send took and the server acknowledged; the others, the samples they publish.
    var countsWrittenBytes: Bool {
        switch target {
        case .rtmp, .icecast: return true
        default: return false
        }
    }
}

import Foundation

extension Output {
    /// What an output's status and metrics count (docs/status.md, docs/metrics.md),
    /// inside `Output.state`; the link's own figures are its probe's (`LinkProbe`).
    struct Stats {
        /// The encoded bytes handed to the output.
        var bytes: UInt64 = 0
        private var rateMark: (at: Date, bytes: UInt64) = (Date(), 0)
        private var rateKbps = 0

        /// The bitrate over the last few seconds (measured again every 2 s).
        mutating func bitrateKbps(at now: Date) -> Int {
            let elapsed = now.timeIntervalSince(rateMark.at)
            if elapsed >= 2 {
                rateKbps = Int(Double(bytes - rateMark.bytes) * 8 / elapsed / 1000)
                rateMark = (now, bytes)
            }
            return rateKbps
        }
    }
}

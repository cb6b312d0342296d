/// Each output's bitrate over the last 5 minutes, one sample a second, for the
/// page's sparklines (docs/http.md, `GET /api/outputs/history`). A pure value; the
/// server samples it from status once a second.
struct BitrateHistory: Sendable, Encodable {
    static let interval = 1.0
    static let samples = 300

    struct Output: Sendable, Encodable, Equatable {
        let id: String
        var kbps: [Int]
    }

    private var rings: [(id: String, ring: Ring<Int>)] = []
    /// The run's uptime at the newest sample.
    private(set) var uptimeMs = 0

    /// Adds one sample of each output (in status' order; an output new here starts its ring).
    mutating func sample(_ outputs: [(id: String, kbps: Int)], uptimeMs: Int) {
        self.uptimeMs = uptimeMs
        for (id, kbps) in outputs {
            if let i = rings.firstIndex(where: { $0.id == id }) {
                rings[i].ring.append(kbps)
            } else {
                var ring = Ring<Int>(capacity: BitrateHistory.samples)
                ring.append(kbps)
                rings.append((id, ring))
            }
        }
        // An output gone from status (none is, in a run) is forgotten: nothing grows.
        rings.removeAll { r in !outputs.contains { $0.id == r.id } }
    }

    var outputs: [Output] { rings.map { Output(id: $0.id, kbps: $0.ring.elements) } }

    enum CodingKeys: String, CodingKey {
        case outputs
        case intervalMs = "interval_ms"
        case uptimeMs = "uptime_ms"
    }

    func encode(to encoder: Swift.Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(outputs, forKey: .outputs)
        try c.encode(Int(BitrateHistory.interval * 1000), forKey: .intervalMs)
        try c.encode(uptimeMs, forKey: .uptimeMs)
    }
}

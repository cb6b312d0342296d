/// Where an RTMP or SRT output connects, as its URL was parsed: the URL as written
/// (what the sink is given), the host, the port (RTMP's default when not written)
/// and the query's parameters (names lowercased, values percent-decoded).
struct NetworkEndpoint: Equatable, Sendable {
    var url: String
    /// Without brackets or user info; empty for an SRT listener on every address.
    var host: String
    var port: Int
    var parameters: [String: String] = [:]

    /// An SRT output that waits for callers (`mode=listener`) rather than calling.
    var isListener: Bool { parameters["mode"]?.lowercased() == "listener" }
}

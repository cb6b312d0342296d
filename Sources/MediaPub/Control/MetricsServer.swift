import Foundation

/// `--metrics ADDR:PORT`: Prometheus text metrics over HTTP at `/metrics`
/// (loopback unless an address is given).
public final class MetricsServer: @unchecked Sendable {
    private let listener: UnixSocket
    /// Where it listens, `ADDR:PORT` (the address filled in when `spec` had none).
    public let address: String
    private let render: () -> String
    private let lock = NSLock()
    private var running = true

    /// `spec` is `PORT`, `:PORT` or `ADDR:PORT`.
    public init(spec: String, render: @escaping () -> String) throws {
        let parts = spec.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let host = parts.count > 1 && !parts[0].isEmpty ? parts[0] : "127.0.0.1"
        guard let port = UInt16(parts.last ?? ""), port > 0 else {
            throw MediaPubError.usage("--metrics \(spec): expected ADDR:PORT, e.g. 127.0.0.1:9300")
        }
        address = "\(host):\(port)"
        do { listener = try UnixSocket.listen(tcpHost: host, port: port) } catch {
            throw MediaPubError.usage("--metrics \(spec): \(error)")
        }
        self.render = render
        let thread = Thread { [weak self] in self?.serve() }
        thread.name = "metrics"
        thread.start()
    }

    deinit { stop() }

    public func stop() { lock.lock(); running = false; lock.unlock() }
    private var isRunning: Bool { lock.lock(); defer { lock.unlock() }; return running }

    private func serve() {
        while isRunning {
            guard listener.readable(timeout: 0.2), isRunning, let client = try? listener.accept() else { continue }
            // One short request at a time: read the request head, answer, close.
            // A client that stalls or floods gets 2 s and 8 KB, never the server.
            client.setReceiveTimeout(2)
            var head = ""
            try? client.readLines { line in
                head += line + "\n"
                if line.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty || head.utf8.count > 8192 {
                    throw CancellationError()
                }
            }
            let path = head.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
            let (status, body) = path == "/metrics" ? ("200 OK", render()) : ("404 Not Found", "try /metrics\n")
            try? client.write("HTTP/1.1 \(status)\r\nContent-Type: text/plain; version=0.0.4\r\n"
                + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
        }
    }

    /// The Prometheus exposition of a broadcast's status.
    static func exposition(_ status: [String: Any]) -> String {
        var out = ""
        func metric(_ name: String, _ help: String, _ type: String, _ samples: [(labels: String, value: Double)]) {
            out += "# HELP mediapub_\(name) \(help)\n# TYPE mediapub_\(name) \(type)\n"
            for s in samples { out += "mediapub_\(name)\(s.labels.isEmpty ? "" : "{\(s.labels)}") \(s.value)\n" }
        }
        func label(_ s: Any?) -> String {
            "\(s ?? "")".replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        }
        metric("uptime_seconds", "Seconds since the run started.", "gauge", [("", Double(status["uptime_ms"] as? Int ?? 0) / 1000)])
        metric("output_time_seconds", "Seconds of output timeline produced.", "counter", [("", Double(status["output_time_ms"] as? Int ?? 0) / 1000)])
        metric("publishing", "The publishing flag (1 on, 0 standby).", "gauge", [("", (status["publishing"] as? Bool ?? false) ? 1 : 0)])
        let players = status["players"] as? [[String: Any]] ?? []
        metric("player_position_seconds", "Position in the current item.", "gauge", players.map {
            ("player=\"\(label($0["id"]))\"", Double($0["position_ms"] as? Int ?? 0) / 1000) })
        metric("player_state", "1 for the player's current state.", "gauge", players.map {
            ("player=\"\(label($0["id"]))\",state=\"\(label($0["state"]))\"", 1) })
        let outputs = status["outputs"] as? [[String: Any]] ?? []
        func o(_ key: String) -> [(String, Double)] {
            outputs.map { ("url=\"\(label($0["url"]))\"", Double("\($0[key] ?? 0)") ?? 0) }
        }
        metric("output_bytes_sent_total", "Encoded bytes handed to the output.", "counter", o("bytes_sent"))
        metric("output_bitrate_kbps", "Recent bitrate of the output.", "gauge", o("bitrate_kbps"))
        metric("output_reconnects_total", "Reconnections of the output.", "counter", o("reconnects"))
        metric("output_state", "1 for the output's current state.", "gauge", outputs.map {
            ("url=\"\(label($0["url"]))\",state=\"\(label($0["state"]))\"", 1) })
        return out
    }
}

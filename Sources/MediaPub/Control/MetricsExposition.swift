import Foundation

/// The Prometheus text exposition of a run's status (`/metrics`): every metric
/// is named `mediapub_*`, with `# HELP` and `# TYPE` lines even when it has no
/// sample yet. `drops`: what each consumer of the events and the log lost by
/// falling behind.
enum MetricsExposition {
    static func render(_ status: RunStatus, drops: [ConsumerDrops] = []) -> String {
        var out = ""
        func metric(_ name: String, _ help: String, _ type: String, _ samples: [(labels: String, value: Double)]) {
            out += "# HELP mediapub_\(name) \(help)\n# TYPE mediapub_\(name) \(type)\n"
            for s in samples { out += "mediapub_\(name)\(s.labels.isEmpty ? "" : "{\(s.labels)}") \(s.value)\n" }
        }
        metric("uptime_seconds", "Seconds since the run started.", "gauge", [("", Double(status.uptimeMs) / 1000)])
        metric("output_time_seconds", "Seconds of output timeline produced.", "counter", [("", Double(status.outputTimeMs) / 1000)])
        metric("publishing", "The publishing flag (1 on, 0 standby).", "gauge", [("", status.publishing ? 1 : 0)])
        let players = status.players
        metric("player_position_seconds", "Position in the current item.", "gauge", players.map {
            ("player=\"\(label($0.id))\"", Double($0.positionMs) / 1000) })
        metric("player_state", "1 for the player's current state.", "gauge", players.map {
            ("player=\"\(label($0.id))\",state=\"\(label($0.state.rawValue))\"", 1) })
        let outputs = status.outputs
        func o(_ value: (OutputStatus) -> Double) -> [(String, Double)] { outputs.map { (outputLabels($0), value($0)) } }
        metric("output_bytes_sent_total", "Bytes that reached a connection of the output (docs/status.md, bytes_sent).", "counter", o { Double($0.bytesSent) })
        metric("output_bitrate_kbps", "Recent bitrate of the output.", "gauge", o { Double($0.bitrateKbps) })
        metric("output_reconnects_total", "Reconnections of the output.", "counter", o { Double($0.reconnects) })
        metric("output_state", "1 for the output's current state.", "gauge", outputs.map {
            (outputLabels($0) + ",state=\"\(label($0.state.rawValue))\"", 1) })
        metric("output_bytes_acked_total", "Of the bytes sent, those the server acknowledged (RTMP, Icecast).", "counter",
               outputs.compactMap { o in o.bytesAcked.map { (outputLabels(o), Double($0)) } })
        metric("output_error_info", "1, with the output's last error, while it is reconnecting or failed.", "gauge",
               outputs.compactMap { o in o.error.map { (outputLabels(o) + ",error=\"\(label($0))\"", 1) } })
        // SRT callers: what the peer acknowledges, and how the link fares.
        func s(_ value: (SRTStats) -> Double) -> [(String, Double)] {
            outputs.compactMap { o in o.srt.map { (outputLabels(o), value($0)) } }
        }
        metric("output_srt_rtt_milliseconds", "Round-trip time to the SRT peer.", "gauge", s { $0.rttMs })
        metric("output_srt_acks_total", "Acknowledgements the SRT peer sent.", "counter", s { Double($0.acksReceived) })
        metric("output_srt_packets_lost_total", "Packets the SRT peer reported lost.", "counter", s { Double($0.packetsLost) })
        metric("output_srt_packets_retransmitted_total", "Packets sent again.", "counter", s { Double($0.retransmitted) })
        metric("output_srt_packets_dropped_total", "Packets dropped as too late to send.", "counter", s { Double($0.dropped) })
        metric("output_srt_callers", "The callers (viewers) an SRT listener has connected now.", "gauge",
               outputs.compactMap { o in o.callers.map { (outputLabels(o), Double($0)) } })
        // The programme (docs/presets.md, Schedule), when the run has one.
        let schedule = status.schedule
        metric("schedule_block_info", "1 for the programme's block on air; none while filler plays.", "gauge",
               schedule?.block.map { [("block=\"\(label($0))\"", 1)] } ?? [])
        metric("schedule_late_seconds", "How late the programme's block on air went on air.", "gauge",
               schedule.map { [("", Double($0.lateMs) / 1000)] } ?? [])
        metric("schedule_next_start_seconds", "Seconds until the programme's next block starts.", "gauge",
               schedule?.next.first.map { [("block=\"\(label($0.block))\"", Double($0.inMs) / 1000)] } ?? [])
        // The live feed (docs/presets.md, live), when the run has one.
        metric("live_state", "1 for the live feed's current state.", "gauge",
               status.live.map { [("state=\"\(label($0.state.rawValue))\"", 1)] } ?? [])
        metric("live_on_air_seconds", "How long the live feed has been on air in its current (or last) spell.", "gauge",
               status.live.map { [("", Double($0.onAirMs) / 1000)] } ?? [])
        metric("live_delay_seconds", "The live feed's delay through its jitter buffer.", "gauge",
               status.live.map { [("", Double($0.delayMs) / 1000)] } ?? [])
        metric("live_frames_dropped_total", "The live feed's pictures dropped on air to follow its sound.", "counter",
               status.live.map { [("", Double($0.framesDropped))] } ?? [])
        metric("live_frames_repeated_total", "The live feed's pictures repeated on air to follow its sound.", "counter",
               status.live.map { [("", Double($0.framesRepeated))] } ?? [])
        metric("live_bitrate_bits_per_second", "What the live feed's source gave over the last second.", "gauge",
               status.live.map { [("", Double($0.bitrateKbps) * 1000)] } ?? [])
        // The checks of `monitor:` (docs/presets.md, monitor), when the run has one.
        let kinds = status.alerts.map { a in ContentAlert.Kind.allCases.map { k in (k, a) } } ?? []
        metric("alerts_total", "Alerts raised by the checks of monitor.", "counter",
               kinds.map { k, a in ("kind=\"\(k.rawValue)\"", Double(a.count(k))) })
        metric("alert_active", "1 while an alert of the kind is in progress.", "gauge",
               kinds.map { k, a in ("kind=\"\(k.rawValue)\"", a.active.contains { $0.kind == k } ? 1 : 0) })
        LoudnessStatus.metrics(status.loudness, metric)
        TimelineStatus.metrics(status.timeline, metric)
        metric("events_dropped_total", "Lines a consumer (an events file, stdout, the webhook, the log) lost by falling behind.",
               "counter", drops.map { ("consumer=\"\(label($0.consumer))\"", Double($0.dropped)) })
        return out
    }

    private static func outputLabels(_ o: OutputStatus) -> String {
        "output=\"\(label(o.id))\",url=\"\(label(o.url))\""
    }

    /// A label value with `\` and `"` escaped.
    private static func label(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}

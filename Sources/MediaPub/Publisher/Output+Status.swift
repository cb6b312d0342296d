import Foundation

/// What an output shows: its name, status (docs/status.md) and the URL its events carry.
extension Output {
    /// What people are shown: the masked URL, or the file actually written.
    var displayName: String {
        if case .file(let path, _) = target {
            let (written, openedAt) = state.withLock { ($0.recording?.path, $0.openedAt) }
            return "recording to " + (written ?? OutputTarget.expand(path, at: openedAt))
        }
        if isSRTListener { return "\(maskedURL) (viewers connect here)" }
        return maskedURL
    }

    var status: OutputStatus {
        state.withLock { s in
            let rate = s.stats.bitrateKbps(at: .now)
            let current = s.supervision.state
            return OutputStatus(id: id, url: s.recording.map { "file://" + $0.path } ?? maskedURL, state: current,
                                bytesSent: s.stats.sent, reconnects: s.supervision.reconnects,
                                bitrateKbps: current == .publishing ? rate : 0, error: s.supervision.lastError,
                                srt: s.link.srtStats, bytesAcked: countsWrittenBytes ? Int(clamping: s.stats.acked) : nil,
                                callers: s.link.callers)
        }
    }

    /// The URL shown: masked, and for a recording the file being written (strftime
    /// patterns expanded). Read by state callbacks: takes only the leaf `shown`.
    var shownURL: String {
        shown.withLock { $0 }.map { "file://" + $0 } ?? maskedURL
    }

    /// When the recording went beside a file (or folder) that was already at its
    /// path: what was asked for and what is written instead.
    var renamedRecording: (requested: String, written: String)? {
        guard let recording = state.withLock({ $0.recording }), recording.renamed else { return nil }
        return (recording.requested, recording.path)
    }

    /// An SRT output listening for viewers.
    var isSRTListener: Bool {
        if case .srt(let endpoint) = target { return endpoint.isListener }
        return false
    }
}

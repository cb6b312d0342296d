import Foundation

/// A recording or HLS output on a disk that fills (docs/presets.md, Outputs): what
/// was written stays and plays; the output is `reconnecting` with the reconnect
/// backoff, and once the disk has room again it starts again (`publishing`): a
/// recording in a new file beside the last one (never over it), HLS with segments
/// named for the new start under the same playlist. HLS keeps its playlist whole
/// (HLSPlaylistStaging).
extension Output {
    /// The folder a recording or HLS output writes in; nil for a network output.
    var diskFolder: String? {
        switch target {
        case .file(let path, _):
            let written = state.withLock { $0.recording?.path } ?? OutputTarget.expand(path)
            return (written as NSString).deletingLastPathComponent
        case .hls(let hls): return (hls.playlist as NSString).deletingLastPathComponent
        default: return nil
        }
    }

    /// A recording or HLS output that connects again (after a failure) needs room on its disk first.
    func requireSpaceToReconnect() throws(DiskSpace) {
        guard let folder = diskFolder, state.withLock({ $0.supervision.state == .reconnecting }) else { return }
        try DiskSpace.require(in: folder)
    }

    /// The disk filled while `connection` wrote: retried with the backoff; the file it wrote is
    /// finished as it stands (the next one is made beside it), HLS segments get the new start's names.
    func diskFilled(_ failure: OutputFailure, connection: Int) {
        let file = state.withLock { s -> RecordingFile? in
            guard s.supervision.isCurrent(connection) else { return nil }
            let file = s.recording
            s.recording = nil
            s.openedAt = Date()
            return file
        }
        fail(failure, connection: connection)
        if let file { finished(file.path) }
    }

    /// hlssink2 wrote the playlist (beside it): it replaces the playlist if whole. `last`:
    /// the run ends, what is left beside it goes.
    func publishPlaylist(last: Bool = false) {
        guard case .hls(let hls) = target else { return }
        if HLSPlaylistStaging.publish(hls.playlist) { removeEarlierSegments(hls.playlist) }
        if last { HLSPlaylistStaging.discard(hls.playlist) }
    }

    /// Once HLS started again (its segments named for the new start) and its playlist lists
    /// only those, the segments of this run's earlier starts go: hlssink2 removes only its own.
    /// A segment of another run (named for a start before this run's) is never touched.
    private func removeEarlierSegments(_ playlist: String) {
        let first = OutputTarget.expand(OutputTarget.hlsRunStamp, at: madeAt)
        let current = OutputTarget.expand(OutputTarget.hlsRunStamp, at: state.withLock { $0.openedAt })
        guard current > first else { return }
        let folder = (playlist as NSString).deletingLastPathComponent
        let stem = ((playlist as NSString).lastPathComponent as NSString).deletingPathExtension
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []
        for name in names where name.hasPrefix(stem + "-") && name.hasSuffix(".ts") {
            // stem-YYYYmmdd-HHMMSS-NNNNN.ts
            let stamp = String(name.dropFirst(stem.count + 1).prefix(first.count))
            let tail = name.dropFirst(stem.count + 1 + first.count)
            guard stamp.count == first.count, stamp.allSatisfy({ $0.isNumber || $0 == "-" }), stamp >= first, stamp < current,
                  tail.count == 9, tail.hasPrefix("-"), tail.dropFirst().dropLast(3).allSatisfy(\.isNumber) else { continue }
            unlink((folder as NSString).appendingPathComponent(name))
        }
    }
}

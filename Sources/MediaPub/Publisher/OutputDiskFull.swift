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
    func diskFilled(_ why: String, connection: Int) {
        let file = state.withLock { s -> RecordingFile? in
            guard s.supervision.isCurrent(connection) else { return nil }
            let file = s.recording
            s.recording = nil
            s.openedAt = Date()
            return file
        }
        fail(why, diskFull: true, connection: connection)
        if let file { finished(file.path) }
    }

    /// hlssink2 wrote the playlist (beside it): it replaces the playlist if whole. `last`:
    /// the run ends, what is left beside it goes.
    func publishPlaylist(last: Bool = false) {
        guard case .hls(let hls) = target else { return }
        HLSPlaylistStaging.publish(hls.playlist)
        if last { HLSPlaylistStaging.discard(hls.playlist) }
    }
}

import Foundation

/// What a recording tells besides its state: a new file of a segmented recording
/// (`recording: new file …`), or a file `keep`/`max_age` could not remove (a warning).
enum RecordingNotice: Sendable, Equatable {
    /// `first`: the file the output opened with, already in its `publishing` event.
    case newFile(String, first: Bool)
    case notRemoved(path: String, why: String)
}

/// A file output cut into segments (`segment:`) and its retention (`keep:`,
/// `max_age:`). splitmuxsink cuts at a keyframe and asks for each file's name on
/// its streaming thread; the name is made here, a new file of this run's own
/// (RecordingFile: never over anything), and retention runs on the output's queue.
extension Output {
    /// The file a recording now writes: shown in status and events (`shown`, a
    /// leaf lock), counted by retention, and the output's older files pruned.
    func recordTo(_ file: RecordingFile) {
        let done = state.withLock { s -> [RecordingFile] in
            s.recording = file
            s.written.append(file.path)
            s.held.append(file)
            // splitmuxsink tells each file it closed; were one never told, its lock goes all the same.
            defer { s.held.removeFirst(max(0, s.held.count - Self.maxHeld)) }
            return Array(s.held.prefix(max(0, s.held.count - Self.maxHeld)))
        }
        done.forEach { $0.lock.release() }
        shown.withLock { $0 = file.path }
        if retention != nil { queue.async { [weak self] in self?.prune() } }
    }

    /// How many files a recording holds locked at most: the one written, and those
    /// splitmuxsink still finishes in the background.
    static let maxHeld = 3

    /// A file is finished (splitmuxsink closed it, or it was removed): its lock goes,
    /// and retention, which left it alone while it was written, looks again.
    func finished(_ path: String) {
        let done = state.withLock { s -> RecordingFile? in
            guard let i = s.held.firstIndex(where: { $0.path == path }) else { return nil }
            return s.held.remove(at: i)
        }
        done?.lock.release()
        if done != nil, retention != nil { queue.async { [weak self] in self?.prune() } }
    }

    /// The run ends: every file's lock goes.
    func releaseFiles() {
        let files = state.withLock { s -> [RecordingFile] in
            defer { s.held = [] }
            return s.held
        }
        files.forEach { $0.lock.release() }
    }

    /// Names the files of a segmented recording: the first is the file `connect`
    /// made (`first`), each next one is made when splitmuxsink opens it.
    func nameSegments(of connection: OutputConnection, first: String) {
        guard segment != nil, case .file(let pattern, _) = target, let mux = connection.muxer else { return }
        Signals.onFormatLocation(mux) { [weak self] fragment, pts in
            guard let self else { return "/dev/null" }
            let path = fragment == 0 ? first : self.nextFile(pattern, at: pts)
            if let path { self.onRecording(self, .newFile(path, first: fragment == 0)) }
            return path ?? "/dev/null"   // the output has failed already: nothing is kept
        }
    }

    /// Makes the next file: the pattern expanded at the file's start (the output's
    /// opening plus the output time of its first picture). Nil when it cannot be made
    /// (the output fails, naming the file).
    private func nextFile(_ pattern: String, at pts: ClockTime?) -> String? {
        let start = state.withLock { $0.openedAt }.addingTimeInterval(pts.map { Double($0.nanoseconds) / 1e9 } ?? 0)
        do {
            let file = try RecordingFile.create(OutputTarget.expand(pattern, at: start))
            recordTo(file)
            return file.path
        } catch {
            fail(OutputFailure(MediaPubError.reason(of: error), .setup))
            return nil
        }
    }

    /// Removes this output's files beyond `keep` or older than `max_age` (on the
    /// output's queue); a file that cannot be removed is told, never fatal.
    func prune() {
        guard let retention, case .file(let pattern, _) = target else { return }
        let (written, current) = state.withLock { ($0.written, $0.recording?.path) }
        guard let current else { return }
        for failure in retention.apply(pattern: pattern, thisRun: written, current: current) {
            onRecording(self, .notRemoved(path: failure.path, why: failure.why))
        }
    }
}

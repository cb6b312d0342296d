import Foundation

/// HLS sources: the media playlist read once more beside hlsdemux (endless or not,
/// where its segments lie), a VOD start past the beginning, segments that fail,
/// and an endless origin that starts over.
extension DecodeSession {
    /// An HLS segment that could not be fetched, as an error's text names it.
    struct SegmentFailure {
        /// 1-based, of `count`.
        var number: Int
        var count: Int
        /// `404 Not Found`, or nil when the text gives no HTTP status.
        var status: String?
        /// Media time (ms) where the segment ends: where playing goes on without it.
        var resumeMs: Int
        var isEndless: Bool

        var httpStatus: Int? { status.flatMap { Int($0.prefix(3)) } }

        var description: String {
            "segment \(number) of \(count) could not be fetched" + (status.map { " (\($0))" } ?? "")
        }
    }

    /// The segment an error of this session's HLS playlist names, if it names one.
    func segmentFailure(in message: String) -> SegmentFailure? {
        guard let playlist = state.withLock({ $0.hlsPlaylist }), let index = playlist.segmentIndex(namedIn: message) else { return nil }
        return SegmentFailure(number: index + 1, count: playlist.segments.count, status: HLSPlaylist.httpStatus(in: message),
                              resumeMs: playlist.segments[index].endMs, isEndless: playlist.isEndless)
    }

    /// An endless playlist's last segment listed so far (by media sequence number): played,
    /// or queued to play, by this session. nil for anything else.
    var endlessLastSequence: Int? { state.withLock { $0.endlessLastSequence } }

    /// An endless playlist that has not grown for three target durations (two seconds at
    /// least): its origin stopped. What is queued plays out; then the source is stalled.
    var isEndlessStale: Bool {
        state.withLock { s in
            guard let playlist = s.hlsPlaylist, playlist.isEndless else { return false }
            return MonotonicInstant.now.timeIntervalSince(s.endlessMovedAt) >= max(2, 3 * playlist.targetDuration)
        }
    }

    /// At load: reads the playlist; an endless one is watched, a VOD one started past
    /// its beginning is read from the segment that holds the start.
    func readPlaylist(_ uri: String) {
        guard let playlist = try? HLSPlaylist.fetch(uri, timeout: 5) else { return }
        state.withLock { s in
            s.hlsPlaylist = playlist
            if playlist.isEndless { s.endlessLastSequence = playlist.lastSequence; s.endlessMovedAt = MonotonicInstant.now }
        }
        if playlist.isEndless { watchEndless(playlist) }
        guard !isClosed, let (text, startMs) = playlist.trimmed(fromMs: mediaStartMs),
              let dec = pipeline.element(named: "dec") else { return }
        // The ones before it are never fetched.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("mediapub-\(UUID().uuidString).m3u8")
        guard (try? text.write(to: file, atomically: true, encoding: .utf8)) != nil else { return }
        // Owned by the session from here: `close` removes it (or it goes now, if closed meanwhile).
        let late = state.withLock { s in
            if !s.closed { s.trimmedPlaylist = file; s.seekOffsetMs = startMs }
            return s.closed
        }
        if late { try? FileManager.default.removeItem(at: file) } else { dec.set("uri", string: file.absoluteString) }
    }

    /// Re-reads an endless playlist every target duration: an origin that starts over
    /// (a restarted encoder: its media sequence back at the start) is reported, so
    /// the player joins the new stream at once rather than wait out hlsdemux, which
    /// sits on the old sequence numbers (and replays the old window when it gives up).
    private func watchEndless(_ first: HLSPlaylist) {
        let interval = min(10, max(0.5, first.targetDuration > 0 ? first.targetDuration : 2))
        let url = first.url
        let stop = watchStop
        let thread = Thread { [weak self] in
            var highest = first.mediaSequence
            while stop.wait(timeout: .now() + interval) == .timedOut {
                guard let playlist = try? HLSPlaylist.fetch(url, timeout: max(2, interval * 2)) else { continue }
                if playlist.mediaSequence < highest, !playlist.segments.isEmpty {
                    guard let self else { return }
                    self.onEvent(self, .restarted("media sequence \(highest) -> \(playlist.mediaSequence)"))
                    return
                }
                highest = max(highest, playlist.mediaSequence)
                self?.state.withLock { s in
                    guard playlist.lastSequence > s.endlessLastSequence ?? Int.min else { return }
                    s.endlessLastSequence = playlist.lastSequence
                    s.endlessMovedAt = MonotonicInstant.now
                }
            }
        }
        thread.name = "hls-watch"
        thread.start()
    }
}

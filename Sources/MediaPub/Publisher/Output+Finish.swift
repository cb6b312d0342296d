import Foundation

/// The end of an output: end of stream, a bounded drain, its files finished.
extension Output {
    /// Sends EOS and waits (bounded) for the muxer to finish the file or stream: a
    /// recording up to `timeout`, a network output that is publishing up to 3 s (what
    /// is still on its way), one that is not (a dead, refusing or stalled peer) not at
    /// all. Every wait has a deadline, whatever the peer or the disk does.
    func finish(timeout: TimeInterval) {
        let (before, connection) = state.withLock { s in
            let before = s.supervision.beginFinishing()
            s.watch?.cancel()
            s.watch = nil
            return (before, s.connection)
        }
        if let connection {
            let wait = target.isNetwork ? (before == .publishing ? min(timeout, Self.networkDrain) : 0) : timeout
            if wait > 0 {
                connection.endOfStream()
                _ = eos.wait(timeout: .now() + wait)
                if case .srt = target, let sink = connection.sink {
                    // SRT live mode drops what is still unsent when the socket closes: let it drain.
                    SRTStats.waitForDrain(sink)
                }
            }
        }
        // After whatever the queue is doing (a connect), but not forever. A network output
        // does not wait long: its queue may be in a connect that blocks for seconds (srtsink
        // calling nobody) or asking a listener why it refused; a connect that lands from now
        // on is dropped (`connect`), and the pipeline it is starting stops within its deadline.
        let drained = DispatchSemaphore(value: 0)
        queue.async { [self] in
            teardown()
            drained.signal()
        }
        let queueWait = target.isNetwork ? Self.networkQueueWait : OutputConnection.stopDeadline + 1
        if drained.wait(timeout: .now() + queueWait) == .timedOut { teardown() }
        publishPlaylist(last: true)   // what hlssink2 wrote as it stopped (#EXT-X-ENDLIST)
        let (final, why, wroteNothing, recording) = state.withLock { s in
            let (final, why) = s.supervision.stop()
            return (final, why, s.stats.handed == 0, s.recording)
        }
        if wroteNothing {
            // A recording that never got a picture or a sound is no file at all; only
            // the file this run created goes, never what stood at the path before.
            recording?.removeIfStillOurs()
        }
        releaseFiles()   // every file is finished: their locks go
        if final != before { onState(self, final, why) }   // a failed output was reported failed once
        srtLibrary?.release()
    }
}

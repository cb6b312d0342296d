import Foundation

/// Where a live feed's sound and picture are in the feed's own time (docs/design.md,
/// A live feed): what `LiveFeedBuffer` lines its pictures up with its sound by; and
/// what its source has given (its bitrate, docs/status.md, `live`).
extension MediaPlayer {
    /// The current item's playhead (the running time at the end of the sound taken so
    /// far) less the running time of the picture last taken, in seconds; nil without
    /// either.
    var pictureLead: Double? {
        guard let session = state.withLock({ $0.current }) else { return nil }
        return session.state.withLock { s in
            s.reading.lastVideoTime.map { (Double(s.reading.playhead.nanoseconds) - Double($0.nanoseconds)) / 1e9 }
        }
    }

    /// Pictures the current item passed over so far, never shown (a faster frame rate
    /// than the output's, or pictures come late); nil without an item.
    var picturesPassedOver: Int? {
        state.withLock { $0.current }?.state.withLock { $0.reading.passedOver }
    }

    /// Bytes the current item's source has given so far (nil without one).
    var sourceBytes: UInt64? {
        state.withLock { $0.current }?.state.withLock { $0.sourceBytes }
    }
}

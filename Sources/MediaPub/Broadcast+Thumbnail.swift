import Foundation

/// The page's thumbnail (docs/http.md): the output picture, taken from the encoder when asked.
extension Broadcast {
    /// The encoder's picture grab, once the publisher is made; nil before, and in a run without pictures.
    var pictureGrab: FrameGrab? {
        guard format.video != nil else { return nil }
        return state.withLock { $0.phase.publisher }?.encoder.frames
    }

    /// The output picture's size; nil in a run without pictures.
    var pictureSize: (width: Int, height: Int)? { format.video.map { ($0.width, $0.height) } }
}

import Foundation
import Synchronization

/// A text's picture being rendered off the output's timeline (docs/presets.md, overlays),
/// on the overlays' `overlay-text` queue (OverlayChain). It lands on the frame it was worked
/// out for when that frame reaches the overlays, the overlays' probe waiting up to
/// `OverlayChain.textWait` for it on the encoder's streaming thread (a text of 4096
/// characters at most renders in far less); one not ready by then lands on the first frame
/// after it is, the text before it drawn until then. Each is landed exactly once.
final class PendingText: Sendable {
    private enum Stage { case rendering, rendered(BlendPicture?), givenUp, landed }

    private struct State: HasWaiters {
        var stage = Stage.rendering
        var waiters = Waiters()
    }

    private let state = Mutex(State())
    /// Sets the picture on its blend (LogoBlend.set): from the next frame that reaches it.
    private let land: @Sendable (BlendPicture?) -> Void

    init(land: @escaping @Sendable (BlendPicture?) -> Void) {
        self.land = land
    }

    /// On the `overlay-text` queue: the picture is rendered. Landed now when its frame
    /// has gone by without it; else kept for that frame.
    func rendered(_ picture: BlendPicture?) {
        let late = state.withLock { s -> Bool in
            guard case .givenUp = s.stage else {
                s.stage = .rendered(picture)
                s.waiters.wakeAll()
                return false
            }
            s.stage = .landed
            return true
        }
        if late { land(picture) }
    }

    /// Its frame reaches the overlays: lands the picture, waiting up to `wait` for it
    /// (0 on the timeline thread); not rendered by then, it lands once it is.
    func frameArrives(waiting wait: TimeInterval) {
        if wait > 0 {
            state.wait(until: MonotonicInstant.now.addingTimeInterval(wait)) { if case .rendering = $0.stage { true } else { false } }
        }
        let picture = state.withLock { s -> BlendPicture?? in
            switch s.stage {
            case .rendered(let picture): s.stage = .landed; return .some(picture)
            case .rendering: s.stage = .givenUp; return nil
            case .givenUp, .landed: return nil
            }
        }
        if let picture { land(picture) }
    }
}

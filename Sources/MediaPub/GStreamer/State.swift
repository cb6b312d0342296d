import CGStreamer
import CGStreamerShim

/// An element's state (GstState).
enum State: Sendable, CustomStringConvertible {
    case null, ready, paused, playing

    var raw: GstState {
        switch self {
        case .null: return GST_STATE_NULL
        case .ready: return GST_STATE_READY
        case .paused: return GST_STATE_PAUSED
        case .playing: return GST_STATE_PLAYING
        }
    }

    init?(_ raw: GstState) {
        switch raw {
        case GST_STATE_NULL: self = .null
        case GST_STATE_READY: self = .ready
        case GST_STATE_PAUSED: self = .paused
        case GST_STATE_PLAYING: self = .playing
        default: return nil
        }
    }

    var description: String {
        switch self {
        case .null: return "NULL"
        case .ready: return "READY"
        case .paused: return "PAUSED"
        case .playing: return "PLAYING"
        }
    }
}

/// How a state change that did not fail went (GstStateChangeReturn other than FAILURE).
enum StateChange: Sendable {
    case success
    /// Under way: the element finishes it in the background (a preroll).
    case async
    /// A live source: done, but it cannot preroll in PAUSED.
    case noPreroll

    /// Nil for GST_STATE_CHANGE_FAILURE.
    init?(_ raw: GstStateChangeReturn) {
        switch raw {
        case GST_STATE_CHANGE_SUCCESS: self = .success
        case GST_STATE_CHANGE_ASYNC: self = .async
        case GST_STATE_CHANGE_NO_PREROLL: self = .noPreroll
        default: return nil
        }
    }
}

/// A state change GStreamer refused (GST_STATE_CHANGE_FAILURE); the reason is on the bus.
struct StateChangeError: Error, CustomStringConvertible {
    let target: State
    var description: String { "cannot change state to \(target)" }
}

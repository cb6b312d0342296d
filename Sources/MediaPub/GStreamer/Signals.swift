import CGStreamer
import CShim
import Foundation

/// The one place where GObject signals reach Swift: each handler is boxed,
/// passed to C as an Unmanaged pointer, and released by the closure's destroy notify.
enum Signals {
    private final class PadHandler {
        let body: (Pad) -> Void
        init(_ body: @escaping (Pad) -> Void) { self.body = body }
    }

    private static let padAdded: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GstPad>?, UnsafeMutableRawPointer?) -> Void = { _, pad, data in
        guard let pad, let data else { return }
        Unmanaged<PadHandler>.fromOpaque(data).takeUnretainedValue().body(Pad(borrowing: pad))
    }

    private static let release: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GClosure>?) -> Void = { data, _ in
        guard let data else { return }
        Unmanaged<PadHandler>.fromOpaque(data).release()
    }

    /// Calls `body` on the streaming thread for each pad the element adds.
    static func onPadAdded(_ element: Element, _ body: @escaping (Pad) -> Void) {
        let box = Unmanaged.passRetained(PadHandler(body)).toOpaque()
        cshim_signal_connect(UnsafeMutableRawPointer(element.raw), "pad-added",
                             unsafeBitCast(padAdded, to: GCallback.self), box, release)
    }
}

import CSoup

/// One request being read (docs/http.md, bounds): a deadline, and the signals that end
/// the wait. Holds a reference on the message so that its signals can be disconnected.
// @unchecked: wraps a SoupServerMessage and its GSource timer (C objects), touched on the soup thread only.
final class PendingRequest: @unchecked Sendable {
    let msg: OpaquePointer
    let socket: Socket
    private unowned let owner: SoupLoop
    private var handlers: [gulong] = []
    private var timer: UnsafeMutablePointer<GSource>?

    init(msg: OpaquePointer, socket: Socket, owner: SoupLoop) {
        self.msg = msg
        self.socket = socket
        self.owner = owner
        g_object_ref(UnsafeMutableRawPointer(msg))
    }

    func arm(seconds: Double) {
        let me = Unmanaged.passUnretained(self).toOpaque()
        let done: csoup_message_cb = { _, me in
            guard let me else { return }
            let request = Unmanaged<PendingRequest>.fromOpaque(me).takeUnretainedValue()
            request.owner.requestRead(request)
        }
        for signal in ["got-body", "finished", "disconnected"] {
            handlers.append(csoup_connect_message(msg, signal, done, me))
        }
        let timer = g_timeout_source_new(guint(max(1, seconds * 1000)))
        g_source_set_callback(timer, { me in
            guard let me else { return 0 }
            let request = Unmanaged<PendingRequest>.fromOpaque(me).takeUnretainedValue()
            request.owner.requestTimedOut(request)
            return 0
        }, me, nil)
        g_source_attach(timer, g_main_context_get_thread_default())
        self.timer = timer
    }

    /// Idempotent: disconnects the signals, drops the timer and the message.
    func cancel() {
        guard let timer else { return }
        self.timer = nil
        g_source_destroy(timer)
        g_source_unref(timer)
        for id in handlers { g_signal_handler_disconnect(UnsafeMutableRawPointer(msg), id) }
        handlers.removeAll()
        g_object_unref(UnsafeMutableRawPointer(msg))
    }
}

import Foundation
import CSoup
import Synchronization

/// `--metrics ADDR:PORT`: Prometheus text metrics over HTTP at `/metrics`, and
/// `/health` for probes (loopback unless an address is given), served by libsoup on a thread of
/// its own (one GMainContext): clients are served side by side, never one at
/// a time. Bounded: a request must be read within `requestTimeout` of its
/// start, a connection idle for `idleTimeout` is closed, at most
/// `maxConnections` are open (a new one closes the oldest that is still
/// sending its request), and soup caps a request head at 64 KiB.
public final class MetricsServer: Sendable {
    /// Where it listens, `ADDR:PORT` (the address filled in when `spec` had none).
    public let address: String
    private let loop: SoupLoop

    /// `spec` is `PORT`, `:PORT` or `ADDR:PORT`; `health` answers `/health`, `render` `/metrics`.
    public convenience init(spec: String, health: @escaping @Sendable () -> Health,
                            render: @escaping @Sendable () -> String) throws {
        try self.init(spec: spec, limits: .standard, health: health, render: render)
    }

    struct Limits: Sendable {
        var requestTimeout: Double
        var idleTimeout: UInt32
        var maxConnections: Int
        static let standard = Limits(requestTimeout: 5, idleTimeout: 30, maxConnections: 64)
    }

    init(spec: String, limits: Limits, health: @escaping @Sendable () -> Health = { .healthy },
         render: @escaping @Sendable () -> String) throws {
        let parts = spec.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let host = parts.count > 1 && !parts[0].isEmpty ? parts[0] : "127.0.0.1"
        guard let port = UInt16(parts.last ?? ""), port > 0 else {
            throw MediaPubError.usage("--metrics \(spec): expected ADDR:PORT, e.g. 127.0.0.1:9300")
        }
        address = "\(host):\(port)"
        loop = SoupLoop(limits: limits, health: health, render: render)
        if let failure = loop.start(host: host, port: port) {
            throw MediaPubError.usage("--metrics \(spec): \(failure)")
        }
    }

    deinit { stop() }

    /// Stops serving: open connections are closed, the thread is joined.
    public func stop() { loop.stop() }
}

/// The libsoup side of the metrics endpoint. Everything but `start`/`stop`
/// runs on its own thread, inside the GMainContext that thread iterates.
private typealias Socket = UnsafeMutablePointer<GSocket>

private final class SoupLoop: Sendable {
    private let limits: MetricsServer.Limits
    private let health: @Sendable () -> Health
    private let render: @Sendable () -> String
    private let finished = DispatchSemaphore(value: 0)

    private struct State {
        /// Set while the loop runs.
        var running: RunningLoop?
        var startFailure: String?
        /// Requests still being read, oldest first (touched on the soup thread only): at most
        /// `maxConnections` (each holds its message, and so its connection; a connection is no
        /// longer counted once its request was read: soup does not free a closed connection's
        /// GSocket, so counting sockets refused every other scrape after 64 connections).
        /// Soup is never called with the lock held (its signals may call back in).
        var pending: [PendingRequest] = []
    }
    private let state = Mutex(State())

    init(limits: MetricsServer.Limits, health: @escaping @Sendable () -> Health, render: @escaping @Sendable () -> String) {
        self.limits = limits
        self.health = health
        self.render = render
    }

    /// Listens and starts serving; the error text when it cannot listen.
    func start(host: String, port: UInt16) -> String? {
        let ready = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            let context = g_main_context_new()
            g_main_context_push_thread_default(context)
            let mainLoop = g_main_loop_new(context, 0)
            let server = csoup_server_new()
            let failure = listen(server, host: host, port: port)
            if failure == nil, let server {
                let me = Unmanaged.passUnretained(self).toOpaque()
                soup_server_add_handler(server, nil, { _, msg, path, _, me in
                    guard let msg, let me else { return }
                    Unmanaged<SoupLoop>.fromOpaque(me).takeUnretainedValue().answer(msg, path: path.map { String(cString: $0) } ?? "")
                }, me, nil)
                csoup_connect_server(server, "request-started", { _, msg, me in
                    guard let msg, let me else { return }
                    Unmanaged<SoupLoop>.fromOpaque(me).takeUnretainedValue().started(msg)
                }, me)
            }
            let running = RunningLoop(context: context, mainLoop: mainLoop)
            state.withLock { $0.running = running; $0.startFailure = failure }
            ready.signal()
            if failure == nil { g_main_loop_run(mainLoop) }
            if let server {
                soup_server_disconnect(server)
                for request in state.withLock({ s in defer { s.pending.removeAll() }; return s.pending }) { request.cancel() }
                g_object_unref(UnsafeMutableRawPointer(server))
            }
            // Let the disconnected connections finish closing before the context goes.
            while g_main_context_iteration(context, 0) != 0 {}
            g_main_loop_unref(mainLoop)
            g_main_context_pop_thread_default(context)
            g_main_context_unref(context)
            finished.signal()
        }
        thread.name = "metrics"
        thread.start()
        ready.wait()
        let failure = state.withLock { $0.startFailure }
        if failure != nil { finished.wait(); state.withLock { $0.running = nil } }
        return failure
    }

    /// Binds and listens with a backlog that takes a burst of connections (GSocket's default is 10), then hands the socket to soup.
    private func listen(_ server: UnsafeMutablePointer<SoupServer>?, host: String, port: UInt16) -> String? {
        guard let server else { return "cannot create the HTTP server" }
        guard let address = g_inet_socket_address_new_from_string(host, guint(port)) else {
            return "not an IP address: \(host)"
        }
        defer { g_object_unref(UnsafeMutableRawPointer(address)) }
        var error: UnsafeMutablePointer<GError>?
        func failed(_ fallback: String) -> String {
            let text = error.flatMap { $0.pointee.message.map { String(cString: $0) } } ?? fallback
            if error != nil { g_error_free(error) }
            return text
        }
        guard let socket = g_socket_new(g_socket_address_get_family(address), G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error) else {
            return failed("cannot create a socket")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(socket)) }
        g_socket_set_listen_backlog(socket, SOMAXCONN)
        guard g_socket_bind(socket, address, 1, &error) != 0, g_socket_listen(socket, &error) != 0,
              soup_server_listen_socket(server, socket, SoupServerListenOptions(rawValue: 0), &error) != 0 else {
            return failed("cannot listen")
        }
        return nil
    }

    /// Quits the loop from inside it (an idle source on its context) and joins the thread.
    func stop() {
        guard let running = state.withLock({ s in defer { s.running = nil }; return s.running }),
              let context = running.context, let mainLoop = running.mainLoop else { return }
        let source = g_idle_source_new()
        g_source_set_callback(source, { loop in
            if let loop { g_main_loop_quit(OpaquePointer(loop)) }
            return 0
        }, UnsafeMutableRawPointer(mainLoop), nil)
        g_source_attach(source, context)
        g_source_unref(source)
        finished.wait()
    }

    // MARK: on the soup thread

    private func answer(_ msg: OpaquePointer, path: String) {
        let (status, type, body): (UInt32, String, String)
        switch path {
        case "/metrics": (status, type, body) = (200, "text/plain; version=0.0.4", render())
        case "/health":
            let health = health()
            (status, type, body) = (health.httpStatus, "application/json", health.body)
        default: (status, type, body) = (404, "text/plain", "try /metrics or /health\n")
        }
        soup_server_message_set_status(msg, status, nil)
        // One request a connection: soup would otherwise keep a connection the client has
        // closed (CLOSE-WAIT) open for good, one descriptor per scrape.
        if let headers = soup_server_message_get_response_headers(msg) {
            soup_message_headers_replace(headers, "Connection", "close")
        }
        var bytes = Array(body.utf8)
        bytes.withUnsafeMutableBufferPointer { buffer in
            soup_server_message_set_response(msg, type, SOUP_MEMORY_COPY,
                                             buffer.baseAddress, gsize(buffer.count))
        }
    }

    /// A request starts: on a new connection (accepted just now), or the next
    /// one on a kept-alive connection. Its head and body must arrive in time.
    private func started(_ msg: OpaquePointer) {
        // Never keep a request body in memory (no handler reads one).
        if let body = soup_server_message_get_request_body(msg) { soup_message_body_set_accumulate(body, 0) }
        guard let socket = soup_server_message_get_socket(msg) else { return }
        g_socket_set_timeout(socket, limits.idleTimeout)
        let maxConnections = limits.maxConnections
        if let oldest = state.withLock({ $0.pending.count >= maxConnections ? $0.pending.first : nil }) {
            // Full: make room by closing the connection that has been sending its request longest.
            requestTimedOut(oldest)
        }
        let request = PendingRequest(msg: msg, socket: socket, owner: self)
        state.withLock { $0.pending.append(request) }
        request.arm(seconds: limits.requestTimeout)
    }

    /// Called while the request (and so its message and connection) is still held.
    private func shutDown(_ socket: Socket) {
        g_socket_shutdown(socket, 1, 1, nil)
    }

    fileprivate func requestRead(_ request: PendingRequest) {
        request.cancel()
        state.withLock { $0.pending.removeAll { $0 === request } }
    }

    fileprivate func requestTimedOut(_ request: PendingRequest) {
        shutDown(request.socket)
        requestRead(request)
    }
}

/// The GMainContext and GMainLoop of the soup thread, as `stop` reaches them.
// @unchecked: wraps GLib pointers; from other threads only g_source_attach (thread-safe) touches them.
private struct RunningLoop: @unchecked Sendable {
    let context: OpaquePointer?      // GMainContext*
    let mainLoop: OpaquePointer?     // GMainLoop*
}

/// One request being read: a deadline, and the signals that end the wait.
/// Holds a reference on the message so that its signals can be disconnected.
// @unchecked: wraps a SoupServerMessage and its GSource timer (C objects), touched on the soup thread only.
private final class PendingRequest: @unchecked Sendable {
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

import Foundation
import CSoup
import Synchronization

/// The libsoup side of the HTTP server (docs/http.md). Everything but `start`, `stop`
/// and `invoke` runs on its own thread, inside the GMainContext that thread iterates.
typealias Socket = UnsafeMutablePointer<GSocket>

final class SoupLoop: Sendable {
    let limits: HTTPServer.Limits
    let site: HTTPSite
    /// The server listens on a loopback address (docs/http.md, who may do what).
    let loopback: Bool
    private let finished = DispatchSemaphore(value: 0)
    /// The event streams' connections (touched on the soup thread only).
    let streams: EventStreamClients
    /// Wrong tokens per address (docs/http.md, 429).
    let failures = Mutex(FailureLimiter())
    /// Each output's bitrate, sampled once a second on the soup thread.
    let history = Mutex(BitrateHistory())

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
        /// Messages paused for their answer (a thumbnail being made, a command running),
        /// touched on the soup thread only: at most `maxConnections`; one more is answered 503.
        var waiting = 0
    }
    private let state = Mutex(State())

    init(limits: HTTPServer.Limits, site: HTTPSite, loopback: Bool) {
        self.limits = limits
        self.site = site
        self.loopback = loopback
        streams = EventStreamClients(hub: site.events, maxStreams: limits.maxStreams)
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
            var timers: [UnsafeMutablePointer<GSource>] = []
            if failure == nil, let server {
                let me = Unmanaged.passUnretained(self).toOpaque()
                soup_server_add_early_handler(server, nil, { _, msg, path, query, me in
                    guard let msg, let me else { return }
                    Unmanaged<SoupLoop>.fromOpaque(me).takeUnretainedValue()
                        .early(msg, path: path.map { String(cString: $0) } ?? "", query: query)
                }, me, nil)
                soup_server_add_handler(server, nil, { _, msg, path, query, me in
                    guard let msg, let me else { return }
                    Unmanaged<SoupLoop>.fromOpaque(me).takeUnretainedValue()
                        .answer(msg, path: path.map { String(cString: $0) } ?? "", query: query)
                }, me, nil)
                csoup_connect_server(server, "request-started", { _, msg, me in
                    guard let msg, let me else { return }
                    Unmanaged<SoupLoop>.fromOpaque(me).takeUnretainedValue().started(msg)
                }, me)
                streams.attach { [weak self] in
                    guard let self else { return }
                    invoke { [weak self] in self?.streams.sendAll() }
                }
                timers.append(every(seconds: BitrateHistory.interval, context: context) { [self] in sampleHistory() })
                timers.append(every(seconds: limits.heartbeat, context: context) { [self] in streams.heartbeat() })
                sampleHistory()
            }
            let running = RunningLoop(context: context, mainLoop: mainLoop)
            state.withLock { $0.running = running; $0.startFailure = failure }
            ready.signal()
            if failure == nil { g_main_loop_run(mainLoop) }
            for timer in timers {
                g_source_destroy(timer)
                g_source_unref(timer)
            }
            streams.closeAll()
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
        thread.name = "http"
        thread.start()
        ready.wait()
        let failure = state.withLock { $0.startFailure }
        if failure != nil { finished.wait(); state.withLock { $0.running = nil } }
        return failure
    }

    /// Binds and listens with a backlog that takes a burst of connections (GSocket's default is 10), then hands the socket to soup.
    private func listen(_ server: UnsafeMutablePointer<SoupServer>?, host: String, port: UInt16) -> String? {
        guard let server else { return "cannot create the HTTP server" }
        guard let address = g_inet_socket_address_new_from_string(host == "localhost" ? "127.0.0.1" : host, guint(port)) else {
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

    /// Quits the loop from inside it and joins the thread.
    func stop() {
        guard let running = state.withLock({ s in defer { s.running = nil }; return s.running }),
              running.context != nil, let mainLoop = running.mainLoop else { return }
        running.invoke { g_main_loop_quit(mainLoop) }
        finished.wait()
    }

    /// Runs `block` on the soup thread (from any thread); dropped once the loop is stopped.
    /// The source is attached holding the lock (GLib calls nothing back there), so that the
    /// context cannot go between the look and the attach.
    func invoke(_ block: @escaping @Sendable () -> Void) {
        state.withLock { $0.running?.invoke(block) }
    }

    /// A timer on the soup thread's context: `tick` every `seconds`.
    private func every(seconds: Double, context: OpaquePointer?, _ tick: @escaping () -> Void) -> UnsafeMutablePointer<GSource> {
        let timer = g_timeout_source_new(guint(seconds * 1000))!
        Box(tick, repeating: true).attach(timer, to: context)
        return timer
    }

    func sampleHistory() {
        let now = site.bitrates()
        history.withLock { $0.sample(now.outputs, uptimeMs: now.uptimeMs) }
    }

    // MARK: on the soup thread

    /// A request starts: on a new connection (accepted just now), or the next
    /// one on a kept-alive connection. Its head and body must arrive in time.
    private func started(_ msg: OpaquePointer) {
        // No request body is kept in memory unless a handler reads it (the command's, up to
        // `maxBody`, turned on once its head is read: `early`).
        if let body = soup_server_message_get_request_body(msg) { soup_message_body_set_accumulate(body, 0) }
        HTTPReply.secure(msg)
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

    /// Pauses `msg` for its answer (`WaitingReply`), unless `maxConnections` are paused already:
    /// then it is answered 503 now and nil is returned. On the soup thread.
    func pauseForAnswer(_ msg: OpaquePointer) -> WaitingReply? {
        let limit = limits.maxConnections
        guard state.withLock({ s in
            guard s.waiting < limit else { return false }
            s.waiting += 1
            return true
        }) else {
            HTTPReply.error(503, "busy: \(limit) requests are waiting for their answer; ask again").send(msg)
            return nil
        }
        return WaitingReply(msg) { [weak self] in self?.state.withLock { $0.waiting -= 1 } }
    }

    func requestRead(_ request: PendingRequest) {
        request.cancel()
        state.withLock { $0.pending.removeAll { $0 === request } }
    }

    func requestTimedOut(_ request: PendingRequest) {
        // Called while the request (and so its message and connection) is still held.
        g_socket_shutdown(request.socket, 1, 1, nil)
        requestRead(request)
    }
}

/// A closure kept by a GLib source, run once or each time the source fires.
final class Box: @unchecked Sendable {
    let block: () -> Void
    let repeating: Bool
    init(_ block: @escaping () -> Void, repeating: Bool) {
        self.block = block
        self.repeating = repeating
    }

    /// Attaches `source` to `context`, calling the block when it fires; the source keeps the box.
    func attach(_ source: UnsafeMutablePointer<GSource>?, to context: OpaquePointer?) {
        g_source_set_callback(source, { box in
            guard let box else { return 0 }
            let me = Unmanaged<Box>.fromOpaque(box).takeUnretainedValue()
            me.block()
            return me.repeating ? 1 : 0
        }, Unmanaged.passRetained(self).toOpaque(), { box in if let box { Unmanaged<Box>.fromOpaque(box).release() } })
        g_source_attach(source, context)
    }
}

/// The GMainContext and GMainLoop of the soup thread, as other threads reach them.
// @unchecked: wraps GLib pointers; from other threads only g_source_attach (thread-safe) touches them.
struct RunningLoop: @unchecked Sendable {
    let context: OpaquePointer?      // GMainContext*
    let mainLoop: OpaquePointer?     // GMainLoop*

    /// Runs `block` once on the loop's thread (an idle source on its context).
    func invoke(_ block: @escaping () -> Void) {
        let source = g_idle_source_new()
        Box(block, repeating: false).attach(source, to: context)
        g_source_unref(source)
    }
}

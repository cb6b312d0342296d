import Foundation
import CSoup

/// The open `GET /api/events` responses, on the server's thread (docs/http.md): each a
/// chunked `text/event-stream` whose next chunk is handed to soup only once the one
/// before is written, so what a slow client has not taken waits in its bounded
/// `StreamQueue` (dropping the oldest), never in soup's buffers. A client that takes
/// nothing for the idle time is closed by its socket's timeout.
// @unchecked: its state is touched on the soup thread only.
final class EventStreamClients: @unchecked Sendable {
    private let hub: EventStream?
    private let maxStreams: Int
    private var open: [Int: Connection] = [:]

    /// One open stream.
    private final class Connection {
        let msg: OpaquePointer
        let client: Int
        unowned let owner: EventStreamClients
        /// A chunk handed to soup is not yet written.
        var writing = false
        var handlers: [gulong] = []
        init(msg: OpaquePointer, client: Int, owner: EventStreamClients) {
            self.msg = msg
            self.client = client
            self.owner = owner
        }
    }

    init(hub: EventStream?, maxStreams: Int) {
        self.hub = hub
        self.maxStreams = maxStreams
    }

    /// `wake` runs `sendAll` on the soup thread: the hub calls it once an event is queued.
    func attach(wake: @escaping @Sendable () -> Void) {
        hub?.onQueued(wake)
    }

    var count: Int { open.count }

    /// Answers `msg` with a stream from `lastEventID` on; false when there is no stream to
    /// give. Full, the oldest stream is closed to make room (as the oldest request being read
    /// is): streams held open by clients that read nothing never lock a page out.
    func start(_ msg: OpaquePointer, lastEventID: UInt64?) -> Bool {
        guard let hub else { return false }
        if open.count >= maxStreams, let oldest = open.keys.min(), let connection = open[oldest] {
            if let socket = soup_server_message_get_socket(connection.msg) { g_socket_shutdown(socket, 1, 1, nil) }
            ended(oldest)
        }
        let client = hub.open(lastEventID: lastEventID)
        let connection = Connection(msg: msg, client: client, owner: self)
        g_object_ref(UnsafeMutableRawPointer(msg))
        open[client] = connection
        soup_server_message_set_status(msg, 200, nil)
        if let out = soup_server_message_get_response_headers(msg) {
            soup_message_headers_replace(out, "Content-Type", "text/event-stream")
            soup_message_headers_replace(out, "Cache-Control", "no-store")
            soup_message_headers_replace(out, "Connection", "close")
            soup_message_headers_set_encoding(out, SOUP_ENCODING_CHUNKED)
        }
        // Written chunks are let go at once: nothing of a stream accumulates.
        if let body = soup_server_message_get_response_body(msg) { soup_message_body_set_accumulate(body, 0) }
        // The connection is kept in `open` until `ended` has disconnected these.
        let me = Unmanaged.passUnretained(connection).toOpaque()
        connection.handlers.append(csoup_connect_message(msg, "wrote-chunk", { _, me in
            guard let me else { return }
            let connection = Unmanaged<Connection>.fromOpaque(me).takeUnretainedValue()
            connection.owner.wrote(connection.client)
        }, me))
        for signal in ["finished", "disconnected"] {
            connection.handlers.append(csoup_connect_message(msg, signal, { _, me in
                guard let me else { return }
                let connection = Unmanaged<Connection>.fromOpaque(me).takeUnretainedValue()
                connection.owner.ended(connection.client)
            }, me))
        }
        // The head goes out with a first comment; what the client missed follows.
        write(connection, Array(": mediapub events\n\n".utf8))
        return true
    }

    /// Sends every client what it has queued, where nothing is being written.
    func sendAll() {
        hub?.woken()
        for connection in open.values where !connection.writing { send(connection) }
    }

    /// A comment to every stream that is not busy writing: it keeps the connection (and
    /// any proxy on the way) from taking it for idle.
    func heartbeat() {
        for connection in open.values where !connection.writing { write(connection, Array(": heartbeat\n\n".utf8)) }
    }

    private func send(_ connection: Connection) {
        guard let hub, let (dropped, entries) = hub.take(connection.client) else { return }
        guard dropped != nil || !entries.isEmpty else { return }
        write(connection, EventStream.text(dropped: dropped, entries: entries))
    }

    private func write(_ connection: Connection, _ bytes: [UInt8]) {
        guard let body = soup_server_message_get_response_body(connection.msg) else { return }
        connection.writing = true
        bytes.withUnsafeBufferPointer { soup_message_body_append(body, SOUP_MEMORY_COPY, $0.baseAddress, gsize($0.count)) }
        soup_server_message_unpause(connection.msg)
    }

    private func wrote(_ client: Int) {
        guard let connection = open[client] else { return }
        connection.writing = false
        send(connection)
    }

    private func ended(_ client: Int) {
        guard let connection = open[client] else { return }
        hub?.close(client)
        for id in connection.handlers { g_signal_handler_disconnect(UnsafeMutableRawPointer(connection.msg), id) }
        g_object_unref(UnsafeMutableRawPointer(connection.msg))
        open[client] = nil
    }

    /// At stop: every stream let go (soup closes their connections).
    func closeAll() {
        for client in Array(open.keys) { ended(client) }
    }
}

import Foundation
import CSoup

/// What each path answers (docs/http.md, Paths), on the soup thread. `early` runs once
/// a request's head is read, before its body: the path, the method, who may use it, the
/// `Origin` and the body's size; a refusal answers there and the body is never read.
/// `answer` runs once the body is read.
extension SoupLoop {
    func early(_ msg: OpaquePointer, path: String, query: OpaquePointer?) {
        guard let route = HTTPRoute(path: path) else {
            return HTTPReply.error(404, "no such path: try /api/status, /api/events, /metrics or /health (docs/http.md)").send(msg)
        }
        let method = soup_server_message_get_method(msg).map { String(cString: $0) } ?? ""
        guard method == route.method || (method == "HEAD" && route.method == "GET") else {
            return HTTPReply.error(405, "\(path) takes \(route.method)", headers: [("Allow", route.method)]).send(msg)
        }
        let headers = soup_server_message_get_request_headers(msg)
        func header(_ name: String) -> String? { soup_message_headers_get_one(headers, name).map { String(cString: $0) } }
        let address = soup_server_message_get_remote_host(msg).map { String(cString: $0) } ?? ""
        let now = ProcessInfo.processInfo.systemUptime
        // A GET may carry the token as ?token= where a browser cannot set a header (EventSource, img).
        var presented = site.token?.matches(authorization: header("Authorization")) ?? .none
        if presented == .none, route.method == "GET", let given = SoupLoop.query(query, "token") {
            presented = site.token?.matches(given) == true ? .right : .wrong
        }
        guard route.need == .open || HTTPAccess.hostAllowed(header("Host"), loopback: loopback) else {
            return HTTPReply.error(403, "this server listens on loopback: name it as localhost or 127.0.0.1 in Host, not \(header("Host")?.clipped() ?? "nothing")").send(msg)
        }
        let blocked = failures.withLock { $0.isBlocked(address, now: now) }
        let policy = HTTPAccess.Policy(loopback: loopback, publicRead: site.publicRead, hasToken: site.token != nil)
        switch HTTPAccess.decide(route.need, policy: policy, presented: presented, blocked: blocked) {
        case .allowed: break
        case .forbidden(let why): return HTTPReply.error(403, why).send(msg)
        case .tooManyFailures:
            return HTTPReply.error(429, "too many wrong tokens from \(address): wait a minute", headers: [("Retry-After", "60")]).send(msg)
        case .unauthorized(let failure):
            if failure { failures.withLock { $0.recordFailure(address, now: now) } }
            return HTTPReply.error(401, "a missing or wrong token: give Authorization: Bearer TOKEN (docs/http.md)",
                                   headers: [("WWW-Authenticate", "Bearer")]).send(msg)
        }
        guard route == .command else { return }
        guard HTTPAccess.originAllowed(origin: header("Origin"), host: header("Host")) else {
            return HTTPReply.error(403, "a command from another site (Origin \(header("Origin")?.clipped() ?? "")) is refused").send(msg)
        }
        switch soup_message_headers_get_encoding(headers) {
        case SOUP_ENCODING_CONTENT_LENGTH, SOUP_ENCODING_NONE:
            guard soup_message_headers_get_content_length(headers) <= goffset(limits.maxBody) else {
                return HTTPReply.error(413, "a body over \(limits.maxBody / 1024) KiB").send(msg)
            }
        default:
            return HTTPReply.error(411, "give the body's Content-Length").send(msg)
        }
        if let body = soup_server_message_get_request_body(msg) { soup_message_body_set_accumulate(body, 1) }
    }

    func answer(_ msg: OpaquePointer, path: String, query: OpaquePointer?) {
        guard let route = HTTPRoute(path: path) else { return }
        switch route {
        case .metrics:
            HTTPReply(200, type: "text/plain; version=0.0.4", body: site.metrics()).send(msg)
        case .health:
            let health = site.health()
            HTTPReply(health.httpStatus, type: "application/json", body: health.body).send(msg)
        case .status:
            HTTPReply.json(200, site.read(["status"])).send(msg)
        case .schedule:
            guard let hours = HTTPRoute.count(SoupLoop.query(query, "hours"), default: 24, in: 1...168) else {
                return HTTPReply.error(400, "hours: a whole number of hours, 1..168").send(msg)
            }
            schedule(msg, hours: hours)
        case .log:
            guard let lines = HTTPRoute.count(SoupLoop.query(query, "lines"), default: 200, in: 1...LogRing.capacity) else {
                return HTTPReply.error(400, "lines: a whole number, 1..\(LogRing.capacity)").send(msg)
            }
            HTTPReply.json(200, ["lines": site.log(lines)]).send(msg)
        case .history:
            // Asked before the outputs were up at the server's first sample: one taken now lists them.
            if history.withLock({ $0.outputs.isEmpty }) { sampleHistory() }
            HTTPReply.json(200, history.withLock { $0 }).send(msg)
        case .events:
            if soup_server_message_get_method(msg).map({ String(cString: $0) }) == "HEAD" {
                return HTTPReply(200, type: "text/event-stream", body: "").send(msg)
            }
            let headers = soup_server_message_get_request_headers(msg)
            let last = soup_message_headers_get_one(headers, "Last-Event-ID").flatMap { UInt64(String(cString: $0)) }
            if !streams.start(msg, lastEventID: last) { HTTPReply.error(404, "this run has no event stream").send(msg) }
        case .command:
            command(msg)
        case .page:
            WebRoutes.asset(path).map { HTTPReply(200, type: $0.type, bytes: $0.body) }?.send(msg)
        case .thumbnail:
            // From the cache at once; else made on the thumbnail's own queue while the message
            // waits (paused): the soup thread never does.
            let box = WaitingBox()
            if let r = WebRoutes.thumbnail(site.thumbnails, width: SoupLoop.query(query, "width"), reply: { [weak self] r in
                self?.invoke { box.reply?.answer(HTTPReply(r.status, type: r.type, bytes: r.body)) }
            }) {
                HTTPReply(r.status, type: r.type, bytes: r.body).send(msg)
            } else {
                box.reply = pauseForAnswer(msg)
            }
        }
    }

    /// `ctl schedule`'s reply, with the programme's lines for `hours`.
    private func schedule(_ msg: OpaquePointer, hours: Int) {
        let reply = site.read(["schedule"])
        guard case .schedule = reply, let lines = site.scheduleLines(hours),
              let data = JSONLine.encode(reply), case .object(var object)? = try? JSONDecoder().decode(JSONValue.self, from: data) else {
            return HTTPReply.json(404, reply).send(msg)
        }
        object["lines"] = .array(lines.map(JSONValue.string))
        HTTPReply.json(200, JSONValue.object(object)).send(msg)
    }

    /// Runs the body's command in its lane; the message waits (paused) for the reply.
    private func command(_ msg: OpaquePointer) {
        guard let commands = site.commands else { return HTTPReply.error(403, HTTPAccess.noTokenForCommands).send(msg) }
        var body = Data()
        if let bytes = soup_message_body_flatten(soup_server_message_get_request_body(msg)) {
            var size: gsize = 0
            if let start = g_bytes_get_data(bytes, &size) { body = Data(bytes: start, count: Int(size)) }
            g_bytes_unref(bytes)
        }
        let request: ControlRequest?
        switch CommandEndpoint.request(from: body) {
        case .failure(let why): return HTTPReply.error(400, why.message).send(msg)
        case .success(let read): request = read
        }
        guard let waiting = pauseForAnswer(msg) else { return }
        commands.run(request) { [weak self] ok, line in
            self?.invoke { waiting.answer(HTTPReply(ok ? 200 : 400, type: "application/json", body: line + "\n")) }
        }
    }

    /// A query's value (nil when absent).
    static func query(_ query: OpaquePointer?, _ key: String) -> String? {
        guard let query else { return nil }
        return key.withCString { g_hash_table_lookup(query, $0) }.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) }
    }
}

/// The paused message of a thumbnail being made, set on the soup thread once it is known to
/// wait (before the reply, which comes back to the soup thread through `invoke`, can read it).
// @unchecked: touched on the soup thread only.
final class WaitingBox: @unchecked Sendable {
    var reply: WaitingReply?
}

/// A message paused while its command runs: answered and resumed on the soup thread,
/// unless its client went away meanwhile.
// @unchecked: touched on the soup thread only (made there, answered through `invoke`).
final class WaitingReply: @unchecked Sendable {
    private let msg: OpaquePointer
    private var gone = false
    private var handler: gulong = 0
    /// Told once answered (the server's count of paused messages).
    private let answered: () -> Void

    init(_ msg: OpaquePointer, answered: @escaping () -> Void) {
        self.msg = msg
        self.answered = answered
        g_object_ref(UnsafeMutableRawPointer(msg))
        handler = csoup_connect_message(msg, "finished", { _, me in
            guard let me else { return }
            Unmanaged<WaitingReply>.fromOpaque(me).takeUnretainedValue().gone = true
        }, Unmanaged.passUnretained(self).toOpaque())
        soup_server_message_pause(msg)
    }

    func answer(_ reply: HTTPReply) {
        g_signal_handler_disconnect(UnsafeMutableRawPointer(msg), handler)
        if !gone {
            reply.send(msg)
            soup_server_message_unpause(msg)
        }
        g_object_unref(UnsafeMutableRawPointer(msg))
        answered()
    }
}

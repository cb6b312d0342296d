import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The poll(2) loop of the control socket, confined to the loop's thread (it
/// is made and run there, and nothing else touches it): the listener, the
/// clients with what they sent and what they are sent, idle timeouts and caps.
final class ControlPoller {
    private final class Client {
        let socket: UnixSocket
        var input: [UInt8] = []
        var output: [UInt8] = []
        /// Inside a line that was too long: bytes are dropped up to its newline.
        var discarding = false
        /// A command of this client is in its lane; no other line is taken meanwhile.
        var busy = false
        var lastActivity: MonotonicInstant
        init(socket: UnixSocket, now: MonotonicInstant) { self.socket = socket; lastActivity = now }
    }

    private let loop: ControlLoop
    private var listener: UnixSocket?
    private var limits: ControlServer.Limits { loop.limits }
    private var clients: [Int: Client] = [:]
    private var nextID = 0
    private var drainDeadline: MonotonicInstant?

    init(loop: ControlLoop, listener: UnixSocket) {
        self.loop = loop
        self.listener = listener
    }

    static func now() -> MonotonicInstant { .now }

    func run() {
        while step() {}
        for id in Array(clients.keys) { drop(id) }
        if listener != nil {
            listener = nil
            ControlLoop.unlinkIfOurs(loop.path, loop.bound)
        }
    }

    /// One round of poll; false when the loop is done.
    private func step() -> Bool {
        let now = ControlPoller.now()
        if loop.stopRequested, drainDeadline == nil {
            // No new clients from here on; the path is free for the next run at once.
            drainDeadline = now + loop.drainTime
            listener = nil
            ControlLoop.unlinkIfOurs(loop.path, loop.bound)
        }
        if let deadline = drainDeadline {
            for (id, client) in clients where !client.busy && client.output.isEmpty { drop(id) }
            if clients.isEmpty || now >= deadline { return false }
        }

        var fds = [pollfd(fd: loop.wakeRead, events: Int16(POLLIN), revents: 0)]
        if let listener { fds.append(pollfd(fd: listener.fd, events: Int16(POLLIN), revents: 0)) }
        let ids = Array(clients.keys)
        var nearest = drainDeadline
        for id in ids {
            guard let client = clients[id] else { continue }
            var events: Int32 = 0
            if !client.output.isEmpty { events |= Int32(POLLOUT) }
            // One line at a time: read on only when the last one is answered.
            else if !client.busy { events |= Int32(POLLIN) }
            fds.append(pollfd(fd: client.socket.fd, events: Int16(events), revents: 0))
            if !client.busy {
                let due = client.lastActivity + limits.idleTimeout
                nearest = min(nearest ?? due, due)
            }
        }
        let timeout = nearest.map { Int32(max(0, min(60_000, $0.timeIntervalSince(now) * 1000 + 1))) } ?? -1
        let ready = poll(&fds, nfds_t(fds.count), timeout)
        if ready < 0 && errno != EINTR { return false }
        let after = ControlPoller.now()

        if fds[0].revents != 0 { takeCompletions(now: after) }
        var index = 1
        if listener != nil {
            if fds[index].revents != 0 { acceptClients(now: after) }
            index += 1
        }
        for id in ids {
            let revents = Int32(fds[index].revents)
            index += 1
            guard let client = clients[id], revents != 0 else { continue }
            if revents & Int32(POLLOUT) != 0 { flush(id, client, now: after) }
            if clients[id] != nil, revents & Int32(POLLIN | POLLHUP | POLLERR) != 0 { receive(id, client, now: after) }
            if revents & Int32(POLLNVAL) != 0 { drop(id) }
        }
        for (id, client) in clients where !client.busy && after.timeIntervalSince(client.lastActivity) >= limits.idleTimeout { drop(id) }
        return true
    }

    private func acceptClients(now: MonotonicInstant) {
        while let listener {
            let socket: UnixSocket?
            do { socket = try listener.acceptNonBlocking() } catch { return }
            guard let socket else { return }
            if clients.count >= limits.maxClients {
                // Full: the client idle the longest makes room; if every one is under way, the new one is refused.
                let idle = clients.filter { !$0.value.busy }.min { $0.value.lastActivity < $1.value.lastActivity }
                let notice = "{\"ok\":false,\"error\":\"too many control connections (max \(limits.maxClients))\"}\n"
                guard let (oldest, client) = idle else {
                    sendBestEffort(socket, notice)
                    continue
                }
                sendBestEffort(client.socket, notice)
                drop(oldest)
            }
            nextID += 1
            clients[nextID] = Client(socket: socket, now: now)
        }
    }

    private func sendBestEffort(_ socket: UnixSocket, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { send(socket.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
    }

    private func drop(_ id: Int) {
        clients.removeValue(forKey: id)  // closes the descriptor
    }

    private func receive(_ id: Int, _ client: Client, now: MonotonicInstant) {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        // A bounded amount per round, so that one flooding client cannot starve the others.
        for _ in 0..<8 {
            let n = chunk.withUnsafeMutableBytes { recv(client.socket.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n == 0 { drop(id); return }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { break }
                drop(id); return
            }
            client.lastActivity = now
            append(client, chunk[0..<n])
            process(id, client)
            guard clients[id] != nil, !client.busy, client.output.isEmpty else { return }
        }
    }

    /// Takes in bytes, dropping the rest of a line that was too long.
    private func append(_ client: Client, _ bytes: ArraySlice<UInt8>) {
        var bytes = bytes
        if client.discarding {
            guard let newline = bytes.firstIndex(of: 10) else { return }
            client.discarding = false
            bytes = bytes[(newline + 1)...]
        }
        client.input += bytes
    }

    private var tooLong: String { "{\"ok\":false,\"error\":\"line too long (max \(limits.maxLine) bytes)\"}\n" }

    /// Hands the next complete line to its lane (one at a time per client).
    private func process(_ id: Int, _ client: Client) {
        while !client.busy, let newline = client.input.firstIndex(of: 10) {
            let raw = client.input[..<newline]
            client.input.removeSubrange(...newline)
            if raw.count > limits.maxLine {
                client.output += Array(tooLong.utf8)
                continue
            }
            let line = String(decoding: raw, as: UTF8.self).trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            client.busy = true
            loop.dispatch(client: id, line: line)
        }
        // A line over the cap is answered once; the rest of it is dropped up to its newline.
        if client.input.count > limits.maxLine, client.input.firstIndex(of: 10) == nil {
            client.input.removeAll()
            client.discarding = true
            client.output += Array(tooLong.utf8)
        }
        if !client.output.isEmpty { flush(id, client, now: client.lastActivity) }
    }

    private func takeCompletions(now: MonotonicInstant) {
        for (id, line) in loop.takeCompletions() {
            guard let client = clients[id] else { continue }
            client.busy = false
            client.lastActivity = now
            client.output += Array(line.utf8)
            flush(id, client, now: now)
            if clients[id] != nil { process(id, client) }
        }
    }

    private func flush(_ id: Int, _ client: Client, now: MonotonicInstant) {
        while !client.output.isEmpty {
            let n = client.output.withUnsafeBytes { send(client.socket.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { return }
                drop(id); return
            }
            client.output.removeFirst(n)
            client.lastActivity = now
        }
    }
}

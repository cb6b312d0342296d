import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The control socket (SPEC §6), in the spirit of mpv's JSON IPC: one JSON
/// object a line in, one JSON object a line out. One thread serves every
/// client with poll(2) over non-blocking descriptors; commands run one at a
/// time on a serial queue (a seek may take a while) and their answers are
/// written back by that thread. Bounded: at most `maxClients` connections (a
/// new one closes the longest idle), a client idle for `idleTimeout` is
/// closed, a line longer than `maxLine` bytes is answered with an error and
/// discarded up to its newline.
public final class ControlServer: @unchecked Sendable {
    public let path: String
    private let loop: ControlLoop

    struct Limits {
        var idleTimeout: Double
        var maxClients: Int
        var maxLine: Int
        static let standard = Limits(idleTimeout: 60, maxClients: 64, maxLine: 64 * 1024)
    }

    /// Where default sockets live: `$XDG_RUNTIME_DIR/mediapub/NAME.sock`, else
    /// (unset or empty) `/tmp/mediapub-NAME.sock`.
    private static func defaultFolder(_ environment: [String: String]) -> (folder: String, prefix: String) {
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty { return (runtime + "/mediapub", "") }
        return ("/tmp", "mediapub-")
    }

    /// The default path of instance `name`.
    public static func defaultPath(name: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let (folder, prefix) = defaultFolder(environment)
        return "\(folder)/\(prefix)\(name).sock"
    }

    /// `mediapub ctl` without `--socket`: the one socket at a default path that a
    /// running instance answers on (sockets left by crashed runs are passed over).
    /// None or several: an error that says to give `--socket PATH`.
    public static func discover(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        let (folder, prefix) = defaultFolder(environment)
        let found = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.hasPrefix(prefix) && $0.hasSuffix(".sock") }.sorted().map { "\(folder)/\($0)" }
            .filter { (try? UnixSocket.connect(to: $0)) != nil }
        guard found.count == 1 else {
            throw MediaPubError.usage(found.isEmpty ? "no running instance found; give --socket PATH"
                                      : "several instances (\(found.joined(separator: ", "))); give --socket PATH")
        }
        return found[0]
    }

    public convenience init(path: String, handle: @escaping @Sendable ([String: Any]) -> [String: Any]) throws {
        try self.init(path: path, limits: .standard, handle: handle)
    }

    init(path: String, limits: Limits, handle: @escaping @Sendable ([String: Any]) -> [String: Any]) throws {
        self.path = path
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty {
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                     attributes: [.posixPermissions: 0o700])
        }
        let listener: (socket: UnixSocket, bound: UnixSocket.Identity?)
        do {
            listener = try UnixSocket.listen(at: path)
        } catch let inUse as ControlPathInUse {
            throw inUse
        } catch {
            throw MediaPubError.usage("control socket \(path): \(error)")
        }
        do {
            loop = try ControlLoop(path: path, listener: listener.socket, bound: listener.bound, limits: limits, handle: handle)
        } catch {
            ControlLoop.unlinkIfOurs(path, listener.bound)
            throw MediaPubError.usage("control socket \(path): \(error)")
        }
    }

    deinit { stop() }

    /// Stops accepting, lets a command under way answer (briefly), closes every
    /// client and removes the socket file if it is still the one bound here.
    public func stop() { loop.stop() }

    /// The answer line (JSON, no newline) to one request line.
    static func answer(_ line: String, handle: ([String: Any]) -> [String: Any]) -> String {
        var reply: [String: Any]
        if let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] {
            reply = handle(object)
            if let id = object["request_id"] { reply["request_id"] = id }
        } else {
            reply = ["ok": false, "error": "not a JSON object: send one object a line, e.g. {\"command\":[\"status\"]}"]
        }
        let data = (try? JSONSerialization.data(withJSONObject: reply, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{\"ok\":false}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// `mediapub ctl`: sends one command, returns the reply line.
    public static func send(_ command: [String], to path: String, timeout: Double = 10) throws -> [String: Any] {
        let socket: UnixSocket
        do { socket = try UnixSocket.connect(to: path) } catch {
            // No socket file, or one nobody answers on: no instance there.
            let notRunning = (error as? SystemError).map { [ENOENT, ECONNREFUSED].contains($0.code) } ?? false
            throw MediaPubError.usage("cannot reach \(path): \(error)" + (notRunning ? " (is mediapub running?)" : ""))
        }
        let request = try JSONSerialization.data(withJSONObject: ["command": command])
        try socket.write(String(decoding: request, as: UTF8.self) + "\n")
        guard socket.readable(timeout: timeout) else { throw MediaPubError.usage("\(path): no answer within \(Int(timeout))s") }
        var reply: [String: Any]?
        try? socket.readLines { line in
            reply = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            throw CancellationError()
        }
        guard let reply else { throw MediaPubError.usage("\(path): no answer") }
        return reply
    }
}

/// The event loop of the control socket: its own thread, poll(2) over the
/// listener, a wake-up pipe and the clients.
private final class ControlLoop: @unchecked Sendable {
    private final class Client {
        let socket: UnixSocket
        var input: [UInt8] = []
        var output: [UInt8] = []
        /// Inside a line that was too long: bytes are dropped up to its newline.
        var discarding = false
        /// A command of this client is on the queue; no other line is taken meanwhile.
        var busy = false
        var lastActivity: Double
        init(socket: UnixSocket, now: Double) { self.socket = socket; lastActivity = now }
    }

    private let path: String
    private var listener: UnixSocket?
    private let bound: UnixSocket.Identity?
    private let limits: ControlServer.Limits
    private let handle: @Sendable ([String: Any]) -> [String: Any]
    private let commands = DispatchQueue(label: "mediapub.control.commands")
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let finished = DispatchSemaphore(value: 0)
    /// How long a command under way at stop may take to answer.
    private let drainTime = 2.0

    private let lock = NSLock()
    private var stopRequested = false
    private var completions: [(client: Int, line: String)] = []

    // Touched only on the loop thread.
    private var clients: [Int: Client] = [:]
    private var nextID = 0
    private var drainDeadline: Double?

    init(path: String, listener: UnixSocket, bound: UnixSocket.Identity?, limits: ControlServer.Limits,
         handle: @escaping @Sendable ([String: Any]) -> [String: Any]) throws {
        self.path = path
        self.listener = listener
        self.bound = bound
        self.limits = limits
        self.handle = handle
        var fds: [Int32] = [-1, -1]
        try syscall("pipe") { pipe(&fds) }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        let thread = Thread { [self] in run() }
        thread.name = "control"
        thread.start()
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    /// Removes the socket file only if it is still the socket bound in this run.
    static func unlinkIfOurs(_ path: String, _ bound: UnixSocket.Identity?) {
        guard let bound, let now = UnixSocket.Identity.of(path), now == bound else { return }
        unlink(path)
    }

    func stop() {
        lock.lock()
        let first = !stopRequested
        stopRequested = true
        lock.unlock()
        guard first else { return }
        wake()
        finished.wait()
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = Glibc.write(wakeWrite, &byte, 1)
    }

    private static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    private func run() {
        while step() {}
        for id in Array(clients.keys) { drop(id) }
        if listener != nil {
            listener = nil
            ControlLoop.unlinkIfOurs(path, bound)
        }
        finished.signal()
    }

    /// One round of poll; false when the loop is done.
    private func step() -> Bool {
        let now = ControlLoop.now()
        lock.lock(); let stopping = stopRequested; lock.unlock()
        if stopping, drainDeadline == nil {
            // No new clients from here on; the path is free for the next run at once.
            drainDeadline = now + drainTime
            listener = nil
            ControlLoop.unlinkIfOurs(path, bound)
        }
        if let deadline = drainDeadline {
            for (id, client) in clients where !client.busy && client.output.isEmpty { drop(id) }
            if clients.isEmpty || now >= deadline { return false }
        }

        var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
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
        let timeout = nearest.map { Int32(max(0, min(60_000, ($0 - now) * 1000 + 1))) } ?? -1
        let ready = poll(&fds, nfds_t(fds.count), timeout)
        if ready < 0 && errno != EINTR { return false }
        let after = ControlLoop.now()

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
        for (id, client) in clients where !client.busy && after - client.lastActivity >= limits.idleTimeout { drop(id) }
        return true
    }

    private func acceptClients(now: Double) {
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

    private func receive(_ id: Int, _ client: Client, now: Double) {
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

    /// Hands the next complete line to the command queue (one at a time per client).
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
            dispatch(id, client, line)
        }
        // A line over the cap is answered once; the rest of it is dropped up to its newline.
        if client.input.count > limits.maxLine, client.input.firstIndex(of: 10) == nil {
            client.input.removeAll()
            client.discarding = true
            client.output += Array(tooLong.utf8)
        }
        if !client.output.isEmpty { flush(id, client, now: client.lastActivity) }
    }

    /// Runs the command on the queue; its answer comes back through `completions`.
    private func dispatch(_ id: Int, _ client: Client, _ line: String) {
        client.busy = true
        let handle = self.handle
        commands.async { [weak self] in
            let answer = ControlServer.answer(line, handle: handle)
            guard let self else { return }
            self.lock.lock(); self.completions.append((id, answer + "\n")); self.lock.unlock()
            self.wake()
        }
    }

    private func takeCompletions(now: Double) {
        var sink = [UInt8](repeating: 0, count: 256)
        while Glibc.read(wakeRead, &sink, sink.count) > 0 {}
        lock.lock(); let done = completions; completions.removeAll(); lock.unlock()
        for (id, line) in done {
            guard let client = clients[id] else { continue }
            client.busy = false
            client.lastActivity = now
            client.output += Array(line.utf8)
            flush(id, client, now: now)
            if clients[id] != nil { process(id, client) }
        }
    }

    private func flush(_ id: Int, _ client: Client, now: Double) {
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

/// The control path is where a running instance answers: this run would take
/// it over, so it does not start (exit 2).
public struct ControlPathInUse: Error, CustomStringConvertible {
    public let path: String
    public var description: String {
        "control socket \(path): in use by another running instance (give this one --control PATH, or use --lock)"
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The control socket (SPEC §6), in the spirit of mpv's JSON IPC: one JSON
/// object a line in, one JSON object a line out. Each client has a thread.
public final class ControlServer: @unchecked Sendable {
    public let path: String
    private let listener: UnixSocket
    private let handle: ([String: Any]) -> [String: Any]
    private let lock = NSLock()
    private var running = true

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

    /// `mediapub ctl` without `--socket`: the one socket at a default path.
    /// None or several: an error that says to give `--socket PATH`.
    public static func discover(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        let (folder, prefix) = defaultFolder(environment)
        let found = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.hasPrefix(prefix) && $0.hasSuffix(".sock") }.sorted().map { "\(folder)/\($0)" }
        guard found.count == 1 else {
            throw MediaPubError.usage(found.isEmpty ? "no running instance found; give --socket PATH"
                                      : "several instances (\(found.joined(separator: ", "))); give --socket PATH")
        }
        return found[0]
    }

    public init(path: String, handle: @escaping ([String: Any]) -> [String: Any]) throws {
        self.path = path
        self.handle = handle
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty {
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                     attributes: [.posixPermissions: 0o700])
        }
        do {
            listener = try UnixSocket.listen(at: path)
        } catch {
            throw MediaPubError.usage("control socket \(path): \(error)")
        }
        let thread = Thread { [weak self] in self?.acceptLoop() }
        thread.name = "control"
        thread.start()
    }

    deinit { stop() }

    public func stop() {
        lock.lock()
        let was = running
        running = false
        lock.unlock()
        if was { unlink(path) }
    }

    private var isRunning: Bool { lock.lock(); defer { lock.unlock() }; return running }

    private func acceptLoop() {
        while isRunning {
            guard listener.readable(timeout: 0.2), isRunning, let client = try? listener.accept() else { continue }
            let thread = Thread { [weak self] in self?.serve(client) }
            thread.name = "control-client"
            thread.start()
        }
    }

    private func serve(_ client: UnixSocket) {
        try? client.readLines { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { return }
            var reply: [String: Any]
            if let object = (try? JSONSerialization.jsonObject(with: Data(trimmed.utf8))) as? [String: Any] {
                reply = handle(object)
                if let id = object["request_id"] { reply["request_id"] = id }
            } else {
                reply = ["ok": false, "error": "not a JSON object: send one object a line, e.g. {\"command\":[\"status\"]}"]
            }
            let data = (try? JSONSerialization.data(withJSONObject: reply, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{\"ok\":false}".utf8)
            try client.write(String(decoding: data, as: UTF8.self) + "\n")
        }
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

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The control socket (docs/control.md), in the spirit of mpv's JSON IPC: one JSON
/// object a line in, one JSON object a line out. One thread serves every
/// client with poll(2) over non-blocking descriptors; commands run in lanes
/// (`ControlLane`: a player's commands one at a time, `status` behind none of
/// them; a load or a seek may take a while) and their answers are written back
/// by that thread. A request nested deeper than `ControlRequest.maxDepth` is
/// refused unread. Bounded: at most `maxClients` connections (a
/// new one closes the longest idle), a client idle for `idleTimeout` is
/// closed, a line longer than `maxLine` bytes is answered with an error and
/// discarded up to its newline.
public final class ControlServer: Sendable {
    public let path: String
    private let loop: ControlLoop

    struct Limits: Sendable {
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

    public convenience init(path: String, handle: @escaping @Sendable ([String]) -> ControlReply) throws {
        try self.init(path: path, limits: .standard, handle: handle)
    }

    /// `lanes`: where its commands run, shared with the HTTP server's `POST /api/command`
    /// so that both keep one order (docs/control.md, Ordering).
    init(path: String, limits: Limits, lanes: ControlLanes = ControlLanes(), handle: @escaping @Sendable ([String]) -> ControlReply) throws {
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
            loop = try ControlLoop(path: path, listener: listener.socket, bound: listener.bound, limits: limits, lanes: lanes, handle: handle)
        } catch {
            ControlLoop.unlinkIfOurs(path, listener.bound)
            throw MediaPubError.usage("control socket \(path): \(error)")
        }
    }

    deinit { stop() }

    /// Stops accepting, lets a command under way answer (briefly), closes every
    /// client and removes the socket file if it is still the one bound here.
    public func stop() { loop.stop() }

    /// How long `load` waits for the new source before it answers `"state":"loading"` (docs/control.md).
    static let loadWait: TimeInterval = 10

    /// How long `mediapub ctl` waits for the answer to `command`: 10 s, and for `load` its
    /// own wait and 5 s more, so that a slow load reads `"state":"loading"`, not "no answer".
    static func answerWait(for command: [String]) -> TimeInterval {
        command.first == "load" ? loadWait + 5 : 10
    }

    /// `mediapub ctl`: sends one command, returns the reply.
    public static func send(_ command: [String], to path: String, timeout: Double? = nil) throws -> JSONValue {
        let timeout = timeout ?? answerWait(for: command)
        let socket: UnixSocket
        do { socket = try UnixSocket.connect(to: path) } catch {
            // No socket file, or one nobody answers on: no instance there.
            let notRunning = (error as? SystemError).map { [ENOENT, ECONNREFUSED].contains($0.code) } ?? false
            throw MediaPubError.usage("cannot reach \(path): \(error)" + (notRunning ? " (is mediapub running?)" : ""))
        }
        try socket.write((JSONLine.text(["command": command]) ?? "") + "\n")
        guard socket.readable(timeout: timeout) else { throw MediaPubError.usage("\(path): no answer within \(Int(timeout))s") }
        var reply: JSONValue?
        try? socket.readLines { line in
            // Only an object is an answer.
            if case .object? = JSONLine.decode(JSONValue.self, from: line) { reply = JSONLine.decode(JSONValue.self, from: line) }
            throw CancellationError()
        }
        guard let reply else { throw MediaPubError.usage("\(path): no answer") }
        return reply
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

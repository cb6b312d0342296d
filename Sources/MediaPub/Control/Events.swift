import Foundation

/// JSON-lines events (SPEC §7), each with `ts` and `event`, written to the
/// destinations given (a file, or stdout for `-`).
public final class Events: @unchecked Sendable {
    private let lock = NSLock()
    private var handles: [FileHandle] = []
    private var listeners: [(Data) -> Void] = []

    public init() {}

    /// Adds a JSON-lines destination: a path, or `-` for stdout.
    public func addDestination(path: String) throws {
        if path == "-" { handles.append(FileHandle.standardOutput); return }
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw MediaPubError.usage("--events \(path): cannot create the file")
            }
        }
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw MediaPubError.usage("--events \(path): cannot open for writing")
        }
        handle.seekToEndOfFile()
        handles.append(handle)
    }

    /// `listener` gets each event as the JSON object the destinations get (no newline).
    public func addListener(_ listener: @escaping (Data) -> Void) {
        lock.lock(); listeners.append(listener); lock.unlock()
    }

    public func emit(_ event: String, _ fields: [String: Any] = [:]) {
        var object = fields
        object["ts"] = Events.timestamp()
        object["event"] = event
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        lock.lock()
        for handle in handles { handle.write(data + Data("\n".utf8)) }
        let listeners = self.listeners
        lock.unlock()
        for listener in listeners { listener(data) }
    }

    /// ISO 8601 in UTC with milliseconds; one format for every event and JSON log line.
    private static let timestampStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    static func timestamp(_ date: Date = Date()) -> String {
        timestampStyle.format(date)
    }
}

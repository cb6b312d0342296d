import Foundation

/// Expands the `file:` (M3U/M3U8) and `dir:` forms of a playlist into items.
public enum PlaylistResolver {
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// The largest M3U list read (about 100,000 entries).
    static let maxM3UBytes = 16 << 20

    /// Entries of an M3U/M3U8 list: one per line, blank lines and `#` lines
    /// (comments, `#EXTINF`...) skipped; URLs kept; relative paths made
    /// absolute against the list's own folder.
    public static func readM3U(path: String, environment: [String: String] = [:]) throws -> [String] {
        let data: [UInt8]
        switch BoundedFile.contents(path, limit: maxM3UBytes) {
        case .success(let bytes): data = bytes
        case .failure(.tooLarge): throw Failure(message: "\(path) is larger than 16 MiB, the most a playlist file may be")
        case .failure(let why): throw Failure(message: "cannot read \(path): \(why)")
        }
        var text = String(decoding: data, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        let folder = (path as NSString).deletingLastPathComponent
        return parseM3U(text, folder: folder.isEmpty ? "/" : folder, environment: environment)
    }

    static func parseM3U(_ text: String, folder: String, environment: [String: String] = [:]) -> [String] {
        text.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
            .map { PathResolution.resolveSource($0, base: folder, environment: environment) }
    }

    /// Regular, non-hidden files of a folder (not recursive) with a media
    /// extension (`PlaylistConfig.mediaExtensions`), sorted by name, as absolute paths.
    public static func listDirectory(path: String) throws -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw Failure(message: "cannot list \(path)")
        }
        return names
            .filter { !$0.hasPrefix(".") }
            .filter { PlaylistConfig.mediaExtensions.contains(($0 as NSString).pathExtension.lowercased()) }
            .sorted()
            .map { path.hasSuffix("/") ? path + $0 : path + "/" + $0 }
            .filter { PathResolution.kind(of: $0) == .file }
    }
}

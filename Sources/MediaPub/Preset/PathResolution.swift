import Foundation

/// How preset strings name resources: URLs (`scheme:`) are kept, plain paths
/// are made absolute against a base folder.
public enum PathResolution {
    /// The scheme of `s` when it starts with `letters[letters digits + . -]+:`
    /// (2+ characters, so `C:` is no scheme), lower-cased; else nil.
    public static func scheme(of s: String) -> String? {
        guard let colon = s.firstIndex(of: ":") else { return nil }
        let name = s[..<colon]
        guard name.count >= 2, let first = name.first, first.isASCII, first.isLetter,
              name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "." || $0 == "-") })
        else { return nil }
        return name.lowercased()
    }

    /// The scheme of a URL, or nil for a path. A `known` scheme counts with or without
    /// slashes (`rtmp:host` is a malformed URL, not a file name); any other `name:` only
    /// before a slash (`rtsp://cam`, the typo `https:/cdn/a.mp3`), so a file name with a
    /// colon (`Re:Zero.mp3`) is a path.
    public static func urlScheme(of s: String, known: Set<String>) -> String? {
        guard let sch = scheme(of: s) else { return nil }
        return known.contains(sch) || s.dropFirst(sch.count + 1).hasPrefix("/") ? sch : nil
    }

    /// The schemes a source or a standby resource may have.
    public static let sourceSchemes: Set<String> = ["file", "http", "https", "testsrc", "memory"]

    /// The scheme of a source or resource string, or nil for a path.
    public static func sourceScheme(of s: String) -> String? { urlScheme(of: s, known: sourceSchemes) }

    /// A source string as the player gets it: URLs as written, plain paths
    /// absolute (relative to `base`, `~/` to `HOME`).
    public static func resolveSource(_ s: String, base: String, environment: [String: String] = [:]) -> String {
        if sourceScheme(of: s) != nil { return s }
        return absolutePath(s, base: base, environment: environment)
    }

    /// An absolute, normalised path (`.` and `..` folded, no trailing `/`).
    public static func absolutePath(_ path: String, base: String, environment: [String: String] = [:]) -> String {
        var p = path
        if p == "~" || p.hasPrefix("~/") {
            let home = environment["HOME"] ?? NSHomeDirectory()
            p = home + p.dropFirst()
        }
        if !p.hasPrefix("/") {
            p = base + "/" + p
        }
        return normalise(p)
    }

    static func normalise(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." {
                if !parts.isEmpty { parts.removeLast() }
                continue
            }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    /// For a `file://` URL: its path (percent-decoded); for a plain path: the
    /// path itself; nil for other URLs.
    public static func localPath(of s: String) -> String? {
        guard let sch = sourceScheme(of: s) else { return s }
        guard sch == "file" else { return nil }
        var rest = s.dropFirst("file:".count)
        if rest.hasPrefix("//") { rest = rest.dropFirst(2) }
        // file://localhost/path
        if !rest.hasPrefix("/"), let slash = rest.firstIndex(of: "/") { rest = rest[slash...] }
        return String(rest).removingPercentEncoding ?? String(rest)
    }

    enum FileKind { case missing, file, directory }

    static func kind(of path: String) -> FileKind {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else { return .missing }
        return isDir.boolValue ? .directory : .file
    }
}

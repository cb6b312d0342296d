import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The folder an HLS output writes its playlist and segments in (docs/presets.md,
/// Outputs): made, with those above it, before anything is written, and written
/// in; otherwise the output fails at once with the system's reason, never
/// `publishing` first.
enum OutputFolder {
    /// Makes `folder` (and those above it) and checks it can be written in: nil, or why not.
    static func prepare(_ folder: String) -> String? {
        guard !folder.isEmpty else { return nil }
        var path = folder.hasPrefix("/") ? "" : "."
        for part in folder.split(separator: "/") where !part.isEmpty {
            path += "/" + part
            if mkdir(path, 0o755) != 0, errno != EEXIST {
                return "Could not make the folder \"\(path)\": \(String(cString: strerror(errno)))"
            }
        }
        if access(folder, W_OK) != 0 {
            return "Could not write in the folder \"\(folder)\": \(String(cString: strerror(errno)))"
        }
        return nil
    }
}

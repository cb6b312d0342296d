import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A recording or HLS output whose disk filled (docs/presets.md, Outputs): it is
/// retried with the reconnect backoff, and starts again once this much is free.
struct DiskSpace: Error, CustomStringConvertible {
    let folder: String
    let free: UInt64

    /// What a recording needs free to start again.
    static let needed: UInt64 = 1_000_000

    var description: String {
        "No space left on the device of \(folder) (\(free / 1000) KB free, \(Self.needed / 1000) KB needed to start again)"
    }

    /// Throws when the file system of `folder` has less than `needed` free for us.
    static func require(in folder: String) throws(DiskSpace) {
        var info = statvfs()
        guard statvfs(folder.isEmpty ? "." : folder, &info) == 0 else { return }   // the open says why
        let (free, overflow) = UInt64(info.f_bavail).multipliedReportingOverflow(by: UInt64(info.f_frsize))
        let available = overflow ? UInt64.max : free
        if available < needed { throw DiskSpace(folder: folder, free: available) }
    }

    /// Whether a GStreamer error is a full disk (filesink's and hlssink2's segment writes
    /// say RESOURCE/NO_SPACE_LEFT).
    static func isFull(_ error: ErrorMessage) -> Bool {
        error.code == .resource(.noSpaceLeft)
    }

    /// What an ERROR of a recording's or HLS output's pipeline comes to: a full disk (its
    /// own code, or a resource error on a disk that is short of room), else GStreamer's
    /// words, naming the file written.
    static func failure(of error: ErrorMessage, _ context: OutputErrorContext) -> OutputFailure {
        if let folder = context.folder, isFull(error) || (error.code.isResource && context.diskShort) {
            return OutputFailure("writing \(context.written ?? folder) failed: \(error.message)", .diskFull)
        }
        guard let written = context.written else { return OutputTarget.libraryFailure(error) }
        return OutputFailure("writing \(written) failed: \(error.message)", .library(error.code))
    }

    /// Whether `folder`'s disk has less room than a start needs: an error of another code
    /// (hlssink2's playlist write gives another RESOURCE code, with ENOSPC only in its text)
    /// on a disk that is full is that disk being full.
    static func isShort(in folder: String) -> Bool {
        do { try require(in: folder) } catch { return true }
        return false
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes that fail with an error instead of trapping. `FileHandle.write(_:)`
/// traps on EPIPE or ENOSPC (a closed pipe, `/dev/full`, a full disk); events,
/// logs and messages go through here so that a destination that fails loses
/// its own output and nothing else. SIGPIPE must be ignored (main and
/// `Broadcast.init` do) for a closed pipe to be EPIPE rather than death.
public enum FDWrite {
    /// Writes all of `data` to `fd`, retrying on EINTR and short writes.
    /// Returns 0 when all was written, else the errno of the failure.
    @discardableResult
    public static func all(_ fd: Int32, _ data: Data) -> Int32 {
        data.withUnsafeBytes { raw -> Int32 in
            guard var p = raw.baseAddress else { return 0 }
            var left = raw.count
            while left > 0 {
                let n = write(fd, p, left)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if n == 0 { return EIO }
                p += n
                left -= n
            }
            return 0
        }
    }

    /// Writes `lines` (each ending in its newline) in order, as few writes as it takes
    /// of at most `PIPE_BUF` bytes cut at line ends (a longer line goes alone): into a
    /// pipe, each write is whole, so lines of two writers sharing it never mix.
    /// Returns 0 when all was written, else the errno of the failure.
    public static func lines(_ fd: Int32, _ lines: [Data]) -> Int32 {
        var chunk = Data()
        for line in lines {
            if !chunk.isEmpty, chunk.count + line.count > Int(PIPE_BUF) {
                let code = all(fd, chunk)
                guard code == 0 else { return code }
                chunk.removeAll(keepingCapacity: true)
            }
            chunk += line
        }
        return chunk.isEmpty ? 0 : all(fd, chunk)
    }

    /// The text of an errno, e.g. "No space left on device".
    public static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}

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

    /// The text of an errno, e.g. "No space left on device".
    public static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}

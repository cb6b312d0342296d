import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a whole file, a FIFO or a device, but never more than a limit: at
/// most `limit + 1` bytes are read, so `/dev/zero` or an endless pipe is
/// refused at once instead of filling memory. A FIFO (`<(…)` of a shell) is read
/// as its writer writes; one that nobody writes to, or whose writer goes quiet,
/// is refused after `fifoWait` instead of blocking for ever.
enum BoundedFile {
    enum Failure: Error, Equatable, CustomStringConvertible {
        case tooLarge
        case system(Int32)
        /// A FIFO that nothing wrote to (or finished writing to) within `fifoWait`.
        case fifoSilent
        var description: String {
            switch self {
            case .tooLarge: return "too large"
            case .system(let code): return String(cString: strerror(code))
            case .fifoSilent:
                return "it is a FIFO and nothing wrote to it within \(Int(BoundedFile.fifoWait)) s (start its writer first)"
            }
        }
    }

    /// The longest a FIFO's writer may keep us waiting for its next bytes or its end.
    static let fifoWait: TimeInterval = 5

    static func contents(_ path: String, limit: Int) -> Result<[UInt8], Failure> {
        TimelineThread.assertOff("reading a file")
        // Non-blocking, so that opening a FIFO with no writer does not wait for one.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return .failure(.system(errno)) }
        defer { close(fd) }
        var info = stat()
        let isFIFO = fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while bytes.count <= limit {
            if isFIFO {
                // Until a writer opens it a FIFO is never readable (Linux reports no
                // hang-up before the first writer): a writer that never comes is a timeout.
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&p, 1, Int32(fifoWait * 1000))
                if ready < 0 {
                    if errno == EINTR { continue }
                    return .failure(.system(errno))
                }
                if ready == 0 { return .failure(.fifoSilent) }
            }
            let want = min(chunk.count, limit + 1 - bytes.count)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, want) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return .failure(.system(errno))
            }
            if n == 0 { return .success(bytes) }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return .failure(.tooLarge)
    }
}

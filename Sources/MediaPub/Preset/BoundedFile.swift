import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a whole file, a FIFO or a device, but never more than a limit: at
/// most `limit + 1` bytes are read, so `/dev/zero` or an endless pipe is
/// refused at once instead of filling memory.
enum BoundedFile {
    enum Failure: Error, Equatable, CustomStringConvertible {
        case tooLarge
        case system(Int32)
        var description: String {
            switch self {
            case .tooLarge: return "too large"
            case .system(let code): return String(cString: strerror(code))
            }
        }
    }

    static func contents(_ path: String, limit: Int) -> Result<[UInt8], Failure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.system(errno)) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while bytes.count <= limit {
            let want = min(chunk.count, limit + 1 - bytes.count)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, want) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(.system(errno))
            }
            if n == 0 { return .success(bytes) }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return .failure(.tooLarge)
    }
}

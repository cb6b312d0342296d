import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A logo's image file read whole (docs/presets.md, overlays), safely for whoever reads it:
/// only a regular file is opened (a FIFO, a device or a socket is refused before anything
/// could wait on it), at most `byteLimit` bytes of it are read, and its header must say a
/// PNG or JPEG picture of at most `pixelLimit` pixels. Decoding it is `LogoPixels.decode`.
struct ImageFile: Sendable {
    let path: String
    let size: ImageSize
    let bytes: [UInt8]

    /// The most pixels a logo's image may have (16 Mpx: 4096×4096).
    static let pixelLimit = 16 * 1024 * 1024
    /// The most bytes a logo's file may have.
    static let byteLimit = 64 << 20

    /// The file at `path`, or why it cannot be a logo (a sentence naming it).
    static func load(_ path: String) -> Result<ImageFile, PresetTextRefusal> {
        TimelineThread.assertOff("reading an image")
        // Looked at before it is opened: opening a FIFO for reading waits for a writer.
        var info = stat()
        guard stat(path, &info) == 0 else {
            return .failure(.init("\(path): \(String(cString: strerror(errno)))"))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return .failure(notRegular(path)) }
        // Non-blocking, and looked at again once open: it may have been replaced in between.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { return .failure(.init("\(path): \(String(cString: strerror(errno)))")) }
        defer { close(fd) }
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return .failure(notRegular(path)) }
        guard info.st_size <= byteLimit else {
            return .failure(.init("\(path) is \(info.st_size >> 20) MiB: a logo's file is at most \(byteLimit >> 20) MiB"))
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { return .failure(.init("\(path): \(String(cString: strerror(errno)))")) }
            if n == 0 { break }
            count += n
        }
        bytes.removeSubrange(count...)
        guard let size = ImageSize.of(bytes: bytes) else {
            return .failure(.init("\(path) is not a PNG or JPEG picture that can be read"))
        }
        // Each side first, then the product without trapping: a header is whatever the file says.
        let pixels = size.width.multipliedReportingOverflow(by: size.height)
        guard size.width <= pixelLimit, size.height <= pixelLimit, !pixels.overflow, pixels.partialValue <= pixelLimit else {
            return .failure(.init("\(path) is \(size.width)x\(size.height) pixels: a logo's image is at most 16 Mpx (4096x4096)"))
        }
        if let why = damage(bytes) { return .failure(.init("\(path) cannot be decoded as a PNG or JPEG picture (\(why))")) }
        return .success(ImageFile(path: path, size: size, bytes: bytes))
    }

    private static func notRegular(_ path: String) -> PresetTextRefusal {
        .init("\(path) is not a regular file (a FIFO, a device or a socket is never read as a logo)")
    }

    /// What is wrong with the file's structure, where a decoder would only warn and draw
    /// what it could guess: a PNG's chunk whose CRC disagrees (bytes changed), or one that
    /// ends before its IEND (a file cut short); a JPEG that ends before its end marker.
    static func damage(_ b: [UInt8]) -> String? {
        if b.first == 0xFF {
            // Its end marker (FF D9, which its coded data never holds), a few bytes of padding after it at most.
            let tail = b.suffix(1024)
            return zip(tail, tail.dropFirst()).contains { $0 == 0xFF && $1 == 0xD9 } ? nil : "it ends before its end marker"
        }
        var i = 8
        while i + 12 <= b.count {
            let length = Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
            let type = String(decoding: b[i + 4..<i + 8], as: UTF8.self)
            guard length <= b.count - i - 12 else { break }
            let stored = b[i + 8 + length..<i + 12 + length].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard crc32(b[i + 4..<i + 8 + length]) == stored else { return "its \(type.clipped()) chunk's CRC is wrong" }
            if type == "IEND" { return nil }
            i += 12 + length
        }
        return "it ends before its IEND chunk"
    }

    private static let crcTable: [UInt32] = (0..<256).map { n in
        (0..<8).reduce(UInt32(n)) { c, _ in c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    }

    private static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        ~bytes.reduce(0xFFFF_FFFF as UInt32) { crcTable[Int(($0 ^ UInt32($1)) & 0xFF)] ^ ($0 >> 8) }
    }
}

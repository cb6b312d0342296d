import Foundation

/// PNG files for the overlay tests, written without any tool: a `width`×`height` RGBA
/// picture of one colour (its pixel data deflated as stored blocks), valid for any decoder.
enum TestImages {
    static func png(width: Int, height: Int, rgba: [UInt8] = [255, 0, 0, 255]) -> [UInt8] {
        var raw: [UInt8] = []
        raw.reserveCapacity((width * 4 + 1) * height)
        for _ in 0..<height {
            raw.append(0)   // no filter
            for _ in 0..<width { raw += rgba }
        }
        // zlib: a header, stored blocks of at most 65535 bytes, Adler-32.
        var z: [UInt8] = [0x78, 0x01]
        var at = 0
        repeat {
            let n = min(65535, raw.count - at)
            z.append(at + n == raw.count ? 1 : 0)
            z += [UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            z += raw[at..<at + n]
            at += n
        } while at < raw.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        z += be32((b << 16) | a)
        var ihdr = be32(UInt32(width)) + be32(UInt32(height))
        ihdr += [8, 6, 0, 0, 0]   // 8 bits, RGBA
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr) + chunk("IDAT", z) + chunk("IEND", [])
    }

    /// `png` damaged past its header, as a copy cut short or a disk's error does: bytes of
    /// its pixel data changed (its chunk's CRC then disagrees), or the file cut within them.
    static func damagedPNG(width: Int, height: Int, cut: Bool = false) -> [UInt8] {
        var bytes = png(width: width, height: height)
        // Signature (8), IHDR (25), then IDAT's length and type (8): its data from byte 41.
        if cut { return Array(bytes.prefix(60)) }
        for i in 50..<60 { bytes[i] ^= 0x5A }
        return bytes
    }

    /// Only the signature and IHDR of a `width`×`height` PNG (all a size check reads of it).
    static func pngHeader(width: Int, height: Int) -> [UInt8] {
        Array(png(width: 1, height: 1).prefix(16)) + chunk("IHDR", be32(UInt32(width)) + be32(UInt32(height)) + [8, 6, 0, 0, 0]).dropFirst(8)
    }

    @discardableResult
    static func write(_ bytes: [UInt8], to path: String) -> String {
        FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }

    private static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in body {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return be32(UInt32(data.count)) + body + be32(~crc)
    }
}

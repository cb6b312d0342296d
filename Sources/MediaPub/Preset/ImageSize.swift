import Foundation

/// A PNG or JPEG picture's size, read from its header (an overlay's logo, docs/presets.md,
/// overlays): enough to place it and keep its aspect, without decoding it.
struct ImageSize: Equatable, Sendable {
    let width: Int
    let height: Int

    /// nil: not a PNG or JPEG picture this can read (the file is read by ImageFile).
    static func of(bytes b: [UInt8]) -> ImageSize? {
        func be16(_ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }
        func be32(_ i: Int) -> Int { be16(i) << 16 | be16(i + 2) }
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        if b.count >= 24, Array(b[0..<8]) == png, b[12...15].elementsEqual("IHDR".utf8) {
            // A PNG's sides are at most 2^31-1 (its format says so); a header saying more is not one.
            let size = ImageSize(width: be32(16), height: be32(20))
            return (1...Int(Int32.max)).contains(size.width) && (1...Int(Int32.max)).contains(size.height) ? size : nil
        }
        guard b.count >= 4, b[0] == 0xFF, b[1] == 0xD8 else { return nil }
        var i = 2
        while i + 9 < b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { i += 2; continue }
            // SOF0..SOF15 but DHT (C4), JPG (C8) and DAC (CC): the frame's height, then width.
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                let size = ImageSize(width: be16(i + 7), height: be16(i + 5))
                return size.width > 0 && size.height > 0 ? size : nil
            }
            let length = be16(i + 2)
            guard length >= 2 else { return nil }
            i += 2 + length
        }
        return nil
    }
}

/// The picture of a crossfade (docs/presets.md, Crossfades): two raw frames of the
/// run's format (I420 at the output size, `MediaFormat`) blended sample by sample. Every
/// plane of I420 (and its padding) is 8-bit and blends the same way, so the bytes of
/// the whole buffer are blended alike.
enum Dissolve {
    /// `from` and `to` blended, `to` weighing `weight` (0...1); nil when they differ in
    /// size or cannot be read.
    static func blend(_ from: Buffer, _ to: Buffer, weight: Double) -> Buffer? {
        let w = UInt32(min(256, max(0, (weight * 256).rounded())))
        guard from.size == to.size, from.size > 0 else { return nil }
        if w == 0 { return from }
        if w == 256 { return to }
        var mixed = [UInt8](repeating: 0, count: from.size)
        let done: Bool? = try? from.map { a in
            try to.map { b in
                guard a.count == mixed.count, b.count == mixed.count else { return false }
                mixed.withUnsafeMutableBufferPointer { m in
                    for i in 0..<m.count {
                        m[i] = UInt8(truncatingIfNeeded: (UInt32(a[i]) * (256 - w) + UInt32(b[i]) * w + 128) >> 8)
                    }
                }
                return true
            }
        }
        guard done == true else { return nil }
        return mixed.withUnsafeBytes { Buffer(copying: $0) }
    }
}

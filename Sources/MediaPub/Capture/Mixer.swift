/// Sample arithmetic of the aux mix.
enum Mixer {
    /// `mix += source * gain` over the first `count` samples.
    static func add(_ source: [Float], into mix: inout [Float], count: Int, gain: Float) {
        guard gain > 0 else { return }
        source.withUnsafeBufferPointer { src in
            mix.withUnsafeMutableBufferPointer { dst in
                for i in 0..<count { dst[i] += src[i] * gain }
            }
        }
    }

    /// `buffer` as `count` samples of silence, in its own storage when the count is unchanged.
    static func silence(_ buffer: inout [Float], count: Int) {
        if buffer.count == count {
            buffer.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        } else {
            buffer = [Float](repeating: 0, count: count)
        }
    }

    /// Keeps every sample within full scale: a limit, never a wrap.
    static func limit(_ mix: inout [Float]) {
        mix.withUnsafeMutableBufferPointer { buf in
            for i in buf.indices where buf[i] > 1 || buf[i] < -1 { buf[i] = buf[i] > 1 ? 1 : -1 }
        }
    }
}

import Foundation

/// PCM handed to an audio tap: interleaved 32-bit float.
public struct AudioFrame: Sendable {
    public var samples: [Float]
    public var sampleRate: Int
    public var channels: Int
    public var format: String { "F32LE" }
    /// Media position of the frame's start.
    public var ptsMs: Int
}

public enum VideoFrameFormat: String, Sendable, CaseIterable {
    case i420, nv12, rgba
}

/// A decoded picture handed to a video tap, tightly packed in `format`.
public struct VideoFrame: Sendable {
    public var width: Int
    public var height: Int
    public var format: VideoFrameFormat
    public var data: Data
    public var ptsMs: Int
}

/// The audio and video frame handlers of one player (the SDK's frame observers).
struct FrameTaps {
    var audio: [@Sendable (AudioFrame) -> Void] = []
    var video: [(VideoFrameFormat, @Sendable (VideoFrame) -> Void)] = []
    private var lastVideo: Buffer?

    var isEmpty: Bool { audio.isEmpty && video.isEmpty }
    var wantsVideo: Bool { !video.isEmpty }

    /// The handler calls for this tick's audio and (when new) picture, to be run
    /// by the caller once it holds no lock. Copies what the handlers will see.
    mutating func deliveries(audio out: UnsafeMutablePointer<Float>, frames: Int, video buffer: Buffer?,
                             format: MediaFormat, positionMs: Int) -> [@Sendable () -> Void] {
        var work: [@Sendable () -> Void] = []
        if !audio.isEmpty, frames > 0 {
            let frame = AudioFrame(samples: Array(UnsafeBufferPointer(start: out, count: frames * format.channels)),
                                   sampleRate: format.sampleRate, channels: format.channels, ptsMs: positionMs)
            for handler in audio { work.append { handler(frame) } }
        }
        if !video.isEmpty, let buffer, buffer !== lastVideo, let size = format.video {
            lastVideo = buffer
            let layout = I420Layout(width: size.width, height: size.height)
            for (wanted, handler) in video {
                work.append {
                    let data = (try? buffer.map { PixelConversion.convert(i420: $0, layout: layout, to: wanted) }) ?? Data()
                    handler(VideoFrame(width: size.width, height: size.height, format: wanted, data: data, ptsMs: positionMs))
                }
            }
        }
        return work
    }
}

/// I420 (as GStreamer lays it out, rows padded) to tightly packed I420, NV12 or RGBA (BT.601, limited range).
enum PixelConversion {
    static func convert(i420 src: UnsafeRawBufferPointer, layout l: I420Layout, to format: VideoFrameFormat) -> Data {
        let w = l.width, h = l.height, cw = l.chromaWidth, ch = l.chromaHeight
        guard src.count >= l.size else { return Data() }
        let s = src.bindMemory(to: UInt8.self)
        func y(_ x: Int, _ row: Int) -> UInt8 { s[l.offsets[0] + row * l.strides[0] + x] }
        func u(_ x: Int, _ row: Int) -> UInt8 { s[l.offsets[1] + row * l.strides[1] + x] }
        func v(_ x: Int, _ row: Int) -> UInt8 { s[l.offsets[2] + row * l.strides[2] + x] }
        switch format {
        case .i420, .nv12:
            var out = Data(count: w * h + 2 * cw * ch)
            out.withUnsafeMutableBytes { (dst: UnsafeMutableRawBufferPointer) in
                let d = dst.bindMemory(to: UInt8.self)
                for row in 0..<h { for x in 0..<w { d[row * w + x] = y(x, row) } }
                let base = w * h
                for row in 0..<ch {
                    for x in 0..<cw {
                        if format == .i420 {
                            d[base + row * cw + x] = u(x, row)
                            d[base + cw * ch + row * cw + x] = v(x, row)
                        } else {
                            d[base + 2 * (row * cw + x)] = u(x, row)
                            d[base + 2 * (row * cw + x) + 1] = v(x, row)
                        }
                    }
                }
            }
            return out
        case .rgba:
            var out = Data(count: w * h * 4)
            out.withUnsafeMutableBytes { (dst: UnsafeMutableRawBufferPointer) in
                let d = dst.bindMemory(to: UInt8.self)
                for row in 0..<h {
                    for x in 0..<w {
                        let c = Double(Int(y(x, row)) - 16) * 1.164
                        let cu = Double(Int(u(x / 2, row / 2)) - 128), cv = Double(Int(v(x / 2, row / 2)) - 128)
                        let o = (row * w + x) * 4
                        d[o] = UInt8(clamping: Int((c + 1.596 * cv).rounded()))
                        d[o + 1] = UInt8(clamping: Int((c - 0.392 * cu - 0.813 * cv).rounded()))
                        d[o + 2] = UInt8(clamping: Int((c + 2.017 * cu).rounded()))
                        d[o + 3] = 255
                    }
                }
            }
            return out
        }
    }
}

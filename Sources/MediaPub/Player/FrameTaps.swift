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
    var audio: [(AudioFrame) -> Void] = []
    var video: [(VideoFrameFormat, (VideoFrame) -> Void)] = []
    private var lastVideo: Buffer?

    var isEmpty: Bool { audio.isEmpty && video.isEmpty }
    var wantsVideo: Bool { !video.isEmpty }

    func deliver(audio out: UnsafeMutablePointer<Float>, frames: Int, format: MediaFormat, positionMs: Int) {
        guard !audio.isEmpty, frames > 0 else { return }
        let frame = AudioFrame(samples: Array(UnsafeBufferPointer(start: out, count: frames * format.channels)),
                               sampleRate: format.sampleRate, channels: format.channels, ptsMs: positionMs)
        for handler in audio { handler(frame) }
    }

    /// Hands over `buffer` once, when it is a new picture.
    mutating func deliver(video buffer: Buffer?, format: MediaFormat, positionMs: Int) {
        guard !video.isEmpty, let buffer, buffer !== lastVideo, let size = format.video else { return }
        lastVideo = buffer
        let i420 = buffer.withBytes { Data($0) }
        for (wanted, handler) in video {
            let data = PixelConversion.convert(i420: i420, width: size.width, height: size.height, to: wanted)
            handler(VideoFrame(width: size.width, height: size.height, format: wanted, data: data, ptsMs: positionMs))
        }
    }
}

/// I420 to the formats the taps offer (BT.601, limited range).
enum PixelConversion {
    static func convert(i420: Data, width w: Int, height h: Int, to format: VideoFrameFormat) -> Data {
        let cw = (w + 1) / 2, ch = (h + 1) / 2
        guard i420.count >= w * h + 2 * cw * ch else { return i420 }
        switch format {
        case .i420:
            return i420
        case .nv12:
            var out = Data(count: w * h + 2 * cw * ch)
            i420.withUnsafeBytes { (src: UnsafeRawBufferPointer) in
                out.withUnsafeMutableBytes { (dst: UnsafeMutableRawBufferPointer) in
                    let s = src.bindMemory(to: UInt8.self), d = dst.bindMemory(to: UInt8.self)
                    for i in 0..<(w * h) { d[i] = s[i] }
                    let u = w * h, v = u + cw * ch
                    for i in 0..<(cw * ch) {
                        d[u + 2 * i] = s[u + i]
                        d[u + 2 * i + 1] = s[v + i]
                    }
                }
            }
            return out
        case .rgba:
            var out = Data(count: w * h * 4)
            i420.withUnsafeBytes { (src: UnsafeRawBufferPointer) in
                out.withUnsafeMutableBytes { (dst: UnsafeMutableRawBufferPointer) in
                    let s = src.bindMemory(to: UInt8.self), d = dst.bindMemory(to: UInt8.self)
                    let uBase = w * h, vBase = uBase + cw * ch
                    for y in 0..<h {
                        for x in 0..<w {
                            let c = Double(Int(s[y * w + x]) - 16) * 1.164
                            let ci = (y / 2) * cw + x / 2
                            let u = Double(Int(s[uBase + ci]) - 128), v = Double(Int(s[vBase + ci]) - 128)
                            let o = (y * w + x) * 4
                            d[o] = UInt8(clamping: Int((c + 1.596 * v).rounded()))
                            d[o + 1] = UInt8(clamping: Int((c - 0.392 * u - 0.813 * v).rounded()))
                            d[o + 2] = UInt8(clamping: Int((c + 2.017 * u).rounded()))
                            d[o + 3] = 255
                        }
                    }
                }
            }
            return out
        }
    }
}

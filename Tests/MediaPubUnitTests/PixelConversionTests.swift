// Pixel conversion for video taps: GStreamer's I420 (rows padded to 4 bytes)
// to tightly packed I420, NV12 and RGBA (BT.601 limited range).

import XCTest
@testable import MediaPub

final class PixelConversionTests: XCTestCase {
    func testI420LayoutPadsRowsToFourBytes() {
        GStreamer.initialize()
        let even = I420Layout(width: 4, height: 2)
        XCTAssertEqual(even.strides, [4, 4, 4], "chroma rows of 2 bytes padded to 4")
        XCTAssertEqual(even.offsets, [0, 8, 12])
        XCTAssertEqual(even.size, 16)
        let odd = I420Layout(width: 5, height: 3)
        XCTAssertEqual(odd.chromaWidth, 3)
        XCTAssertEqual(odd.chromaHeight, 2)
        XCTAssertEqual(odd.strides, [8, 4, 4])
        XCTAssertEqual(odd.offsets, [0, 32, 40], "the luma plane spans an even number of rows")
        XCTAssertEqual(odd.size, 48)
    }

    /// A padded frame: luma 10,11,… per pixel, U 100+i, V 200+i per chroma sample, padding 0xEE.
    private func frame(_ l: I420Layout) -> [UInt8] {
        var bytes = [UInt8](repeating: 0xEE, count: l.size)
        for row in 0..<l.height { for x in 0..<l.width { bytes[l.offsets[0] + row * l.strides[0] + x] = UInt8(10 + row * l.width + x) } }
        for row in 0..<l.chromaHeight {
            for x in 0..<l.chromaWidth {
                bytes[l.offsets[1] + row * l.strides[1] + x] = UInt8(100 + row * l.chromaWidth + x)
                bytes[l.offsets[2] + row * l.strides[2] + x] = UInt8(200 + row * l.chromaWidth + x)
            }
        }
        return bytes
    }

    func testI420AndNV12AreTightlyPacked() {
        GStreamer.initialize()
        let l = I420Layout(width: 5, height: 3)
        let src = frame(l)
        let i420 = [UInt8](src.withUnsafeBytes { PixelConversion.convert(i420: $0, layout: l, to: .i420) })
        let luma = (0..<15).map { UInt8(10 + $0) }
        XCTAssertEqual(i420, luma + [100, 101, 102, 103, 104, 105] + [200, 201, 202, 203, 204, 205])
        let nv12 = [UInt8](src.withUnsafeBytes { PixelConversion.convert(i420: $0, layout: l, to: .nv12) })
        XCTAssertEqual(nv12, luma + [100, 200, 101, 201, 102, 202, 103, 203, 104, 204, 105, 205])
    }

    func testRGBAUsesBT601LimitedRange() {
        GStreamer.initialize()
        let l = I420Layout(width: 2, height: 2)
        func solid(y: UInt8, u: UInt8, v: UInt8) -> [UInt8] {
            var bytes = [UInt8](repeating: y, count: l.size)
            bytes[l.offsets[1]] = u
            bytes[l.offsets[2]] = v
            return [UInt8](bytes.withUnsafeBytes { PixelConversion.convert(i420: $0, layout: l, to: .rgba) })
        }
        XCTAssertEqual(Array(solid(y: 16, u: 128, v: 128).prefix(4)), [0, 0, 0, 255], "black")
        XCTAssertEqual(Array(solid(y: 235, u: 128, v: 128).prefix(4)), [255, 255, 255, 255], "white")
        let red = solid(y: 81, u: 90, v: 240)
        XCTAssertEqual(red.count, 16)
        XCTAssertGreaterThan(red[0], 240)
        XCTAssertLessThan(red[1], 10)
        XCTAssertLessThan(red[2], 10)
    }

    func testAShortBufferGivesNothing() {
        GStreamer.initialize()
        let l = I420Layout(width: 4, height: 2)
        let short = [UInt8](repeating: 0, count: l.size - 1)
        XCTAssertTrue(short.withUnsafeBytes { PixelConversion.convert(i420: $0, layout: l, to: .rgba) }.isEmpty)
    }
}

import XCTest
@testable import MediaPub

/// Which H.264 encoder element a run takes and the pipeline description it gets
/// (`H264EncoderElement`, `H264EncoderChoice`): pure, with what GStreamer has given
/// as a table. The last test asks this machine's GStreamer.
final class H264EncoderTests: XCTestCase {
    private let video = VideoConfig(width: 640, height: 360, fps: 25, bitrate: 800_000, keyframeInterval: 1)

    private func with(_ change: (inout VideoConfig) -> Void) -> VideoConfig {
        var v = video
        change(&v)
        return v
    }

    func testX264ZeroLatencyAndQuality() {
        XCTAssertEqual(H264EncoderElement.x264enc.description(video, keyframes: 25, bframes: 0),
                       "x264enc name=video-encoder bitrate=800 key-int-max=25 speed-preset=veryfast tune=zerolatency bframes=0"
                       + " ! capsfilter name=video-caps caps=video/x-h264,profile=high")
        let quality = with { $0.tune = .quality; $0.bframes = 2; $0.profile = .main; $0.encoderPreset = "medium" }
        XCTAssertEqual(H264EncoderElement.x264enc.description(quality, keyframes: 25, bframes: 2),
                       "x264enc name=video-encoder bitrate=800 key-int-max=25 speed-preset=medium bframes=2"
                       + " ! capsfilter name=video-caps caps=video/x-h264,profile=main")
    }

    func testOpenH264TakesBitsPerSecondAndItsProfile() {
        XCTAssertEqual(H264EncoderElement.openh264enc.description(with { $0.profile = .baseline }, keyframes: 50, bframes: 0),
                       "openh264enc name=video-encoder bitrate=800000 gop-size=50 rate-control=bitrate"
                       + " ! capsfilter name=video-caps caps=video/x-h264,profile=baseline")
    }

    func testHardwareEncodersGetNV12BitrateKeyframesAndBFrames() {
        let nv12 = "videoconvert name=video-convert ! capsfilter name=video-nv12 caps=video/x-raw,format=NV12 ! "
        let caps = " ! capsfilter name=video-caps caps=video/x-h264,profile=high"
        let quality = with { $0.tune = .quality; $0.bframes = 2 }
        XCTAssertEqual(H264EncoderElement.vah264enc.description(quality, keyframes: 25, bframes: 2),
                       nv12 + "vah264enc name=video-encoder bitrate=800 key-int-max=25 b-frames=2" + caps)
        XCTAssertEqual(H264EncoderElement.vaapih264enc.description(quality, keyframes: 25, bframes: 2),
                       nv12 + "vaapih264enc name=video-encoder rate-control=cbr bitrate=800 keyframe-period=25 max-bframes=2" + caps)
        XCTAssertEqual(H264EncoderElement.nvh264enc.description(video, keyframes: 25, bframes: 0),
                       nv12 + "nvh264enc name=video-encoder rc-mode=cbr bitrate=800 gop-size=25 zerolatency=true" + caps)
        XCTAssertEqual(H264EncoderElement.nvh264enc.description(quality, keyframes: 25, bframes: 2),
                       nv12 + "nvh264enc name=video-encoder rc-mode=cbr bitrate=800 gop-size=25 bframes=2" + caps)
        XCTAssertEqual(H264EncoderElement.v4l2h264enc.description(video, keyframes: 25, bframes: 0),
                       nv12 + "v4l2h264enc name=video-encoder extra-controls=\"controls,video_bitrate=800000,h264_i_frame_period=25\"" + caps)
    }

    private func choose(_ v: VideoConfig, _ table: [H264EncoderElement: H264EncoderChoice.Probe]) throws -> H264EncoderChoice {
        try H264EncoderChoice.choose(v, probe: { table[$0] ?? .notInstalled })
    }

    func testAutoTakesAWorkingHardwareEncoderElseX264ElseOpenH264() throws {
        let auto = with { $0.encoder = .auto }
        XCTAssertEqual(try choose(auto, [.x264enc: .usable, .openh264enc: .usable]).element, .x264enc)
        XCTAssertEqual(try choose(auto, [.openh264enc: .usable]).element, .openh264enc)
        XCTAssertEqual(try choose(auto, [.vaapih264enc: .usable, .x264enc: .usable]).element, .vaapih264enc)
        let passed = try choose(auto, [.nvh264enc: .cannotOpen("no CUDA device"), .vah264enc: .noDevice, .x264enc: .usable])
        XCTAssertEqual(passed.element, .x264enc)
        XCTAssertEqual(passed.notes, ["encoder auto: nvh264enc cannot start (no CUDA device); trying the next one"])
        XCTAssertThrowsError(try choose(auto, [:])) {
            XCTAssertEqual("\($0)", "GStreamer element x264enc is missing (install gstreamer1.0-plugins-ugly)")
        }
    }

    func testAutoMakesOnlyTheBFramesItsChoiceCan() throws {
        let auto = with { $0.encoder = .auto; $0.tune = .quality; $0.bframes = 8 }
        let openh264 = try choose(auto, [.openh264enc: .usable])
        XCTAssertEqual(openh264.bframes, 0)
        XCTAssertEqual(openh264.notes, ["encoder auto chose openh264enc, which makes no B-frames: bframes 8 is 0"])
        XCTAssertEqual(try choose(auto, [.nvh264enc: .usable]).bframes, 4)
        XCTAssertEqual(try choose(auto, [.x264enc: .usable]).bframes, 8)
    }

    func testANamedEncoderThatIsMissingSaysWhatToInstallOrWhichDeviceIsMissing() {
        let cases: [(VideoEncoderKind, [H264EncoderElement: H264EncoderChoice.Probe], String)] = [
            (.nvenc, [.nvh264enc: .noDevice],
             "GStreamer element nvh264enc is not available: gstreamer1.0-plugins-bad is installed, but it found no NVIDIA GPU with NVENC (and the NVIDIA driver)"),
            (.nvenc, [:], "GStreamer element nvh264enc is missing (install gstreamer1.0-plugins-bad)"),
            (.v4l2, [.v4l2h264enc: .noDevice],
             "GStreamer element v4l2h264enc is not available: gstreamer1.0-plugins-good is installed, but it found no V4L2 H.264 encoder device (/dev/video*)"),
            (.v4l2, [.v4l2h264enc: .cannotOpen("Cannot identify device '/dev/video11'.")],
             "GStreamer element v4l2h264enc cannot start: Cannot identify device '/dev/video11'."),
            (.vaapi, [.vah264enc: .noDevice],
             "encoder vaapi: GStreamer element vah264enc is not available: gstreamer1.0-plugins-bad is installed, but it found no "
                + "VA-API device (/dev/dri/renderD*) whose driver encodes H.264; GStreamer element vaapih264enc is missing (install gstreamer1.0-vaapi)"),
            (.x264, [.openh264enc: .usable], "GStreamer element x264enc is missing (install gstreamer1.0-plugins-ugly)"),
        ]
        for (kind, table, message) in cases {
            XCTAssertThrowsError(try choose(with { $0.encoder = kind }, table), "\(kind)") { XCTAssertEqual("\($0)", message) }
        }
        XCTAssertEqual(try choose(with { $0.encoder = .vaapi }, [.vah264enc: .noDevice, .vaapih264enc: .usable]).element, .vaapih264enc)
    }

    func testEveryElementIsOfferedByOneKindAndItsLimitIsTheKinds() {
        for element in H264EncoderElement.allCases {
            XCTAssertEqual(VideoEncoderKind.allCases.filter { $0 != .auto && H264EncoderElement.candidates(for: $0).contains(element) }.count, 1,
                           "\(element)")
            XCTAssertNotEqual(GStreamer.package(providing: element.rawValue), "the GStreamer plugin that provides it", "\(element)")
        }
        XCTAssertEqual(VideoEncoderKind.allCases.map(\.maxBFrames), [16, 0, 10, 4, 0, 16])
    }

    /// This machine: x264enc and openh264enc are usable; each hardware one that is not
    /// installed is reported as missing or as without its device, never as usable.
    func testThisMachinesEncodersAreProbedAsTheyAre() {
        XCTAssertEqual(H264EncoderChoice.probe(.x264enc), .usable)
        XCTAssertEqual(H264EncoderChoice.probe(.openh264enc), .usable)
        for element in H264EncoderElement.hardware where !GStreamer.hasElement(element.rawValue) {
            let probe = H264EncoderChoice.probe(element)
            XCTAssertTrue(probe == .notInstalled || probe == .noDevice, "\(element): \(probe)")
        }
    }
}

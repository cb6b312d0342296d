import CGStreamer
import CGStreamerShim

/// Where GStreamer puts the three planes of an I420 frame of a given size
/// (rows padded to 4 bytes), from GstVideoInfo itself.
struct I420Layout: Equatable {
    let width: Int
    let height: Int
    let strides: [Int]
    let offsets: [Int]
    let size: Int

    var chromaWidth: Int { (width + 1) / 2 }
    var chromaHeight: Int { (height + 1) / 2 }

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        var info = GstVideoInfo()
        gst_video_info_init(&info)
        _ = gst_video_info_set_format(&info, GST_VIDEO_FORMAT_I420, guint(width), guint(height))
        strides = [Int(info.stride.0), Int(info.stride.1), Int(info.stride.2)]
        offsets = [Int(info.offset.0), Int(info.offset.1), Int(info.offset.2)]
        size = Int(info.size)
    }
}

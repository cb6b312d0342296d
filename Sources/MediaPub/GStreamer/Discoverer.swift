import CGStreamer
import CGStreamerShim

/// What GstDiscoverer finds out about a URI: duration, streams, tags.
struct DiscoveredMedia {
    struct Stream {
        /// GStreamer's nick: "audio", "video", "video(image)", "container", …
        var type: String
        var codec: String?
        /// The media type of its caps ("audio/mpeg").
        var caps: String?
        var width: Int?
        var height: Int?
        var fps: Double?
        var sampleRate: Int?
        var channels: Int?
    }

    var duration: ClockTime?
    var seekable: Bool
    var streams: [Stream]
    /// Title, artist and album, those present.
    var tags: [String: String]

    enum Failure: Error {
        /// The discoverer could not be made (GStreamer's reason).
        case setup(String)
        /// The URI could not be read (GStreamer's reason, if it gave one).
        case unreadable(String?)
        case missingPlugins
        case notPlayable
    }

    /// Looks at `uri`, for up to `timeout`. `sourceSetup` gets the source element
    /// before it starts, so its properties can be set.
    static func discover(_ uri: String, timeout: ClockTime,
                         sourceSetup: @escaping @Sendable (Element) -> Void = { _ in }) throws -> DiscoveredMedia {
        GStreamer.initialize()
        var error: UnsafeMutablePointer<GError>? = nil
        guard let discoverer = gst_discoverer_new(timeout.raw, &error) else {
            throw Failure.setup(GStreamerError.consume(error))
        }
        defer { g_object_unref(UnsafeMutableRawPointer(discoverer)) }
        Signals.onSourceSetup(object: UnsafeMutableRawPointer(discoverer), sourceSetup)
        let info = gst_discoverer_discover_uri(discoverer, uri, &error)
        defer { if let info { g_object_unref(UnsafeMutableRawPointer(info)) } }
        if let error { throw Failure.unreadable(GStreamerError.consume(error)) }
        guard let info else { throw Failure.unreadable(nil) }
        switch gst_discoverer_info_get_result(info) {
        case GST_DISCOVERER_OK: break
        case GST_DISCOVERER_MISSING_PLUGINS: throw Failure.missingPlugins
        default: throw Failure.notPlayable
        }
        var streams: [Stream] = []
        let head = gst_discoverer_info_get_stream_list(info)
        var list = head
        while let node = list {
            if let data = node.pointee.data { streams.append(stream(OpaquePointer(data))) }
            list = node.pointee.next
        }
        gst_discoverer_stream_info_list_free(head)
        var tags: [String: String] = [:]
        if let tagList = gst_discoverer_info_get_tags(info) {
            for name in ["title", "artist", "album"] {
                if let value = cshim_tag_list_get_string(tagList, name) {
                    tags[name] = String(cString: value)
                    g_free(value)
                }
            }
        }
        return DiscoveredMedia(duration: ClockTime(gst_discoverer_info_get_duration(info)),
                               seekable: gst_discoverer_info_get_seekable(info) != 0, streams: streams, tags: tags)
    }

    private static func stream(_ info: OpaquePointer) -> Stream {
        var out = Stream(type: String(cString: gst_discoverer_stream_info_get_stream_type_nick(info)))
        if let caps = gst_discoverer_stream_info_get_caps(info) {
            if let text = gst_pb_utils_get_codec_description(caps) {
                out.codec = String(cString: text)
                g_free(text)
            }
            if gst_caps_get_size(caps) > 0, let s = gst_caps_get_structure(caps, 0) {
                out.caps = String(cString: gst_structure_get_name(s))
            }
            cshim_caps_unref(caps)
        }
        if out.type == "video" || out.type == "video(image)" {
            out.width = Int(gst_discoverer_video_info_get_width(info))
            out.height = Int(gst_discoverer_video_info_get_height(info))
            let num = gst_discoverer_video_info_get_framerate_num(info), den = gst_discoverer_video_info_get_framerate_denom(info)
            if den > 0, num > 0 { out.fps = Double(num) / Double(den) }
        } else if out.type == "audio" {
            out.sampleRate = Int(gst_discoverer_audio_info_get_sample_rate(info))
            out.channels = Int(gst_discoverer_audio_info_get_channels(info))
        }
        return out
    }
}

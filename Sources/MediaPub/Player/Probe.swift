import CGStreamer
import CShim
import Foundation

/// `mediapub probe`: duration, streams and tags of a source, read with GstDiscoverer.
public enum Probe {
    public static func run(source: String, timeout: TimeInterval = 15) throws -> [String: Any] {
        GStreamer.initialize()
        let spec = try SourceSpec(source)
        guard case .uri(let uri, _) = spec else {
            return ["source": source, "duration_ms": NSNull(), "seekable": false,
                    "streams": [["type": "video", "codec": "test pattern"], ["type": "audio", "codec": "sine"]], "tags": [:]]
        }
        try spec.checkReadable(source)
        var error: UnsafeMutablePointer<GError>? = nil
        guard let discoverer = gst_discoverer_new(ClockTime(seconds: timeout).raw, &error) else {
            throw MediaPubError.pipeline("discoverer: \(GStreamerError.consume(error))")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(discoverer)) }
        let info = gst_discoverer_discover_uri(discoverer, uri, &error)
        defer { if let info { g_object_unref(UnsafeMutableRawPointer(info)) } }
        if let error { throw MediaPubError.sourceFailed(source, GStreamerError.consume(error)) }
        guard let info else { throw MediaPubError.sourceFailed(source, "cannot be read") }
        let result = gst_discoverer_info_get_result(info)
        guard result == GST_DISCOVERER_OK else {
            throw MediaPubError.sourceFailed(source, result == GST_DISCOVERER_MISSING_PLUGINS ? "no decoder for this media" : "not playable media")
        }
        let duration = ClockTime(gst_discoverer_info_get_duration(info))
        var streams: [[String: Any]] = []
        var list = gst_discoverer_info_get_stream_list(info)
        let head = list
        while let node = list {
            if let data = node.pointee.data {
                let stream = OpaquePointer(data)
                streams.append(describe(stream))
            }
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
        return [
            "source": SecretMask.mask(url: source),
            "duration_ms": duration.map { $0.milliseconds as Any } ?? NSNull(),
            "seekable": gst_discoverer_info_get_seekable(info) != 0,
            "streams": streams,
            "tags": tags,
        ]
    }

    private static func describe(_ stream: OpaquePointer) -> [String: Any] {
        var out: [String: Any] = [:]
        let type = String(cString: gst_discoverer_stream_info_get_stream_type_nick(stream))
        out["type"] = type
        if let caps = gst_discoverer_stream_info_get_caps(stream) {
            if let text = gst_pb_utils_get_codec_description(caps) {
                out["codec"] = String(cString: text)
                g_free(text)
            }
            if gst_caps_get_size(caps) > 0, let s = gst_caps_get_structure(caps, 0) {
                out["caps"] = String(cString: gst_structure_get_name(s))
            }
            cshim_caps_unref(caps)
        }
        if type == "video" || type == "video(image)" {
            let video = stream
            out["width"] = Int(gst_discoverer_video_info_get_width(video))
            out["height"] = Int(gst_discoverer_video_info_get_height(video))
            let num = gst_discoverer_video_info_get_framerate_num(video), den = gst_discoverer_video_info_get_framerate_denom(video)
            if den > 0, num > 0 { out["fps"] = Double(num) / Double(den) }
        } else if type == "audio" {
            let audio = stream
            out["sample_rate"] = Int(gst_discoverer_audio_info_get_sample_rate(audio))
            out["channels"] = Int(gst_discoverer_audio_info_get_channels(audio))
        }
        return out
    }
}

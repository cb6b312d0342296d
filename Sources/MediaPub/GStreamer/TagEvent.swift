import CGStreamer
import CGStreamerShim

extension AppSrc {
    /// Sends a tag event downstream, in order with the buffers (before the next one):
    /// `tags` by GStreamer tag name (`title`, `artist`), each a string; an empty one is left out.
    func sendTags(_ tags: [(name: String, value: String)]) {
        guard let list = gst_tag_list_new_empty() else { return }
        for (name, value) in tags where !value.isEmpty {
            var gvalue = GValue()
            g_value_init(&gvalue, GType(16 << 2))  // G_TYPE_STRING
            g_value_set_string(&gvalue, value)
            gst_tag_list_add_value(list, GST_TAG_MERGE_REPLACE, name, &gvalue)
            g_value_unset(&gvalue)
        }
        // The event takes the list; the element takes the event.
        guard let event = gst_event_new_tag(list) else { return }
        _ = gst_element_send_event(raw, event)
    }
}

extension Probes {
    /// Drops, at `pad`, every tag event that carries no title: what parsers say of the
    /// stream (its bitrate, its codec) is not a title, and shout2send would make each one
    /// a metadata update of the mount ("Unknown - Unknown"), over the title sent before.
    @discardableResult
    static func dropUntitledTags(_ pad: Pad) -> PadProbe {
        PadProbe(pad, id: gst_pad_add_probe(pad.raw, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, { _, info, _ in
            guard let info, cshim_probe_event_type(info) == GST_EVENT_TAG,
                  let event = info.pointee.data?.assumingMemoryBound(to: GstEvent.self) else { return GST_PAD_PROBE_OK }
            var list: UnsafeMutablePointer<GstTagList>? = nil
            gst_event_parse_tag(event, &list)
            guard let list, gst_tag_list_get_tag_size(list, "title") > 0 else { return GST_PAD_PROBE_DROP }
            return GST_PAD_PROBE_OK
        }, nil, nil))
    }
}

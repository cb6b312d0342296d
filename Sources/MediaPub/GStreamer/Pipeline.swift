import CGStreamer
import CShim
import Foundation

/// A GstPipeline built from a gst-launch style description. Owns one reference;
/// goes to NULL before that reference is dropped.
final class Pipeline: Element, @unchecked Sendable {
    let description: String

    init(description: String) throws {
        GStreamer.initialize()
        var error: UnsafeMutablePointer<GError>? = nil
        let element = gst_parse_launch(description, &error)
        if let error {
            let message = GStreamerError.consume(error)
            if let element { gst_object_unref(UnsafeMutableRawPointer(element)) }
            throw GStreamerError("cannot build pipeline: \(message)")
        }
        guard let element else { throw GStreamerError("cannot build pipeline") }
        gst_object_ref_sink(UnsafeMutableRawPointer(element))
        self.description = description
        if cshim_is_pipeline(element) != 0 {
            super.init(owning: element)
        } else {
            // A description of one element parses to that element: put it in a pipeline.
            let pipeline = gst_pipeline_new(nil)!
            gst_object_ref_sink(UnsafeMutableRawPointer(pipeline))
            gst_bin_add(cshim_as_bin(pipeline), element)
            gst_object_unref(UnsafeMutableRawPointer(element))
            super.init(owning: pipeline)
        }
    }

    deinit {
        gst_element_set_state(raw, GST_STATE_NULL)
    }

    private var bin: UnsafeMutablePointer<GstBin> { cshim_as_bin(raw) }

    func element(named name: String) -> Element? {
        guard let e = gst_bin_get_by_name(bin, name) else { return nil }
        return Element(owning: e)
    }

    func appSink(named name: String) -> AppSink? {
        guard let e = gst_bin_get_by_name(bin, name), cshim_is_appsink(e) != 0 else { return nil }
        return AppSink(owning: e)
    }

    func appSrc(named name: String) -> AppSrc? {
        guard let e = gst_bin_get_by_name(bin, name), cshim_is_appsrc(e) != 0 else { return nil }
        return AppSrc(owning: e)
    }

    /// Builds a bin from a description (unlinked pads ghosted), adds it and
    /// brings it to the pipeline's state. Returns the bin.
    func addBin(description: String) throws -> Element {
        var error: UnsafeMutablePointer<GError>? = nil
        let made = gst_parse_bin_from_description(description, 1, &error)
        if let error {
            if let made { gst_object_unref(UnsafeMutableRawPointer(made)) }
            throw GStreamerError("cannot build \(description): \(GStreamerError.consume(error))")
        }
        guard let made else { throw GStreamerError("cannot build \(description)") }
        gst_object_ref_sink(UnsafeMutableRawPointer(made))
        let element = Element(owning: made)
        gst_bin_add(bin, made)
        gst_element_sync_state_with_parent(made)
        return element
    }

    func makeBus() -> Bus { Bus(pipeline: self) }

    /// Duration of the media, if known.
    var duration: UInt? {
        var dur: gint64 = 0
        return gst_element_query_duration(raw, GST_FORMAT_TIME, &dur) != 0 && dur >= 0 ? UInt(dur) : nil
    }

    /// A flushing seek; `rate` other than 1 plays faster or slower.
    @discardableResult
    func seek(to position: UInt, rate: Double = 1.0) -> Bool {
        let flags = GstSeekFlags(rawValue: GST_SEEK_FLAG_FLUSH.rawValue | GST_SEEK_FLAG_ACCURATE.rawValue)
        return gst_element_seek(raw, rate, GST_FORMAT_TIME, flags,
                                GST_SEEK_TYPE_SET, gint64(position),
                                GST_SEEK_TYPE_NONE, -1) != 0
    }
}

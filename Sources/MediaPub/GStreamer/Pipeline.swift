import CGStreamer
import CGStreamerShim
import Foundation
import Synchronization

/// A GstPipeline built from a gst-launch style description. Owns one reference
/// and its bus. Its owner calls `stop()` (to NULL, bus watch removed) before
/// letting it go; `deinit` only checks that it was done.
/// @unchecked Sendable: wraps a GstPipeline; its own state is in a Mutex.
final class Pipeline: Element, @unchecked Sendable {
    /// The pipeline's bus (one per pipeline, owned here).
    let bus: Bus
    /// Left NULL since the last `stop()` (or never started).
    private let stopped = Mutex(true)

    /// Parses `description`; an element that is not installed is `GStreamerError`
    /// with its `missingElement` (the application names the package to install).
    init(parsing description: String) throws {
        GStreamer.initialize()
        let element = try Pipeline.parse("pipeline") { context, error in
            gst_parse_launch_full(description, context, GST_PARSE_FLAG_NONE, error)
        }
        if cshim_is_pipeline(element) != 0 {
            bus = Bus(element: element)
            super.init(owning: element)
        } else {
            // A description of one element parses to that element: put it in a pipeline.
            let pipeline = gst_pipeline_new(nil)!
            gst_object_ref_sink(UnsafeMutableRawPointer(pipeline))
            gst_bin_add(cshim_as_bin(pipeline), element)
            gst_object_unref(UnsafeMutableRawPointer(element))
            bus = Bus(element: pipeline)
            super.init(owning: pipeline)
        }
    }

    deinit {
        if !stopped.withLock({ $0 }) {
            LibraryLog.internalWarning("a pipeline was released without stop(): its threads live on until GStreamer frees it")
        }
    }

    /// Asks for `state`; throws when GStreamer refuses (the reason is on the bus).
    @discardableResult
    override func setState(_ state: State) throws -> StateChange {
        if state != .null { stopped.withLock { $0 = false } }
        return try super.setState(state)
    }

    /// Ends the pipeline: the bus watch removed, then NULL (every streaming thread
    /// joined). Never from one of the pipeline's own streaming threads.
    ///
    /// A pipeline that does not reach NULL (an element refused its change, as rtmp2sink
    /// stopped in the middle of its connect can, half a minute later) is asked again; one
    /// that still does not is kept for the life of the process: released, GStreamer would
    /// free elements whose streaming threads still run, and the process would crash.
    func stop() {
        bus.stop()
        for _ in 0..<2 where !isNull { _ = try? super.setState(.null) }
        if !isNull {
            Pipeline.unreleasable.withLock { $0.append(self) }
            LibraryLog.internalWarning("a pipeline did not stop (an element refused to): it is kept, never freed, "
                                       + "so that its threads cannot run on freed memory")
        }
        stopped.withLock { $0 = true }
    }

    /// The pipeline is in NULL now (no state change pending).
    private var isNull: Bool {
        var current = GST_STATE_VOID_PENDING, pending = GST_STATE_VOID_PENDING
        _ = gst_element_get_state(raw, &current, &pending, 0)
        return current == GST_STATE_NULL && pending == GST_STATE_VOID_PENDING
    }

    /// Pipelines that could not be brought to NULL (`stop`): never released.
    private static let unreleasable = Mutex<[Pipeline]>([])

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
    func addBin(parsing description: String) throws -> Element {
        let made = try Pipeline.parse("pipeline branch") { context, error in
            gst_parse_bin_from_description_full(description, 1, context, GST_PARSE_FLAG_NONE, error)
        }
        let element = Element(owning: made)
        gst_bin_add(bin, made)
        gst_element_sync_state_with_parent(made)
        return element
    }

    /// Runs one gst_parse call and returns what it built, sunk (a reference of our own).
    /// An element that is not installed is named in the error's `missingElement`; any
    /// error names `what` and GStreamer's reason, never the description (it holds
    /// URLs, stream keys among them).
    private static func parse(
        _ what: String,
        _ call: (OpaquePointer?, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> UnsafeMutablePointer<GstElement>?
    ) throws -> UnsafeMutablePointer<GstElement> {
        TimelineThread.assertOff("building \(what)")
        let context = gst_parse_context_new()
        defer { gst_parse_context_free(context) }
        var error: UnsafeMutablePointer<GError>? = nil
        let made = call(context, &error)
        if let error {
            // Without FATAL_ERRORS a partly built pipeline may come back with the error.
            if let made { gst_object_unref(UnsafeMutableRawPointer(made)) }
            let reason = GStreamerError.consume(error)
            if let missing = missingElements(context).first {
                throw GStreamerError("cannot build \(what): no element \(missing)", missingElement: missing)
            }
            throw GStreamerError("cannot build \(what): \(reason)")
        }
        guard let made else { throw GStreamerError("cannot build \(what)") }
        gst_object_ref_sink(UnsafeMutableRawPointer(made))
        return made
    }

    /// The factory names a parse asked for and did not find.
    private static func missingElements(_ context: OpaquePointer?) -> [String] {
        guard let names = gst_parse_context_get_missing_elements(context) else { return [] }
        defer { g_strfreev(names) }
        var found: [String] = []
        var i = 0
        while let name = names[i] {
            found.append(String(cString: name))
            i += 1
        }
        return found
    }

    /// Duration of the media, if known: a query that goes through the pipeline's elements
    /// (never on the timeline thread).
    var duration: ClockTime? {
        TimelineThread.assertOff("a pipeline's duration query")
        var dur: gint64 = 0
        return gst_element_query_duration(raw, GST_FORMAT_TIME, &dur) != 0 && dur >= 0 ? ClockTime(nanoseconds: UInt64(dur)) : nil
    }

    /// A flushing, accurate seek; `rate` other than 1 plays faster or slower.
    @discardableResult
    func seek(to position: ClockTime, rate: Double = 1.0) -> Bool {
        let flags = GstSeekFlags(rawValue: GST_SEEK_FLAG_FLUSH.rawValue | GST_SEEK_FLAG_ACCURATE.rawValue)
        return gst_element_seek(raw, rate, GST_FORMAT_TIME, flags,
                                GST_SEEK_TYPE_SET, gint64(clamping: position.nanoseconds),
                                GST_SEEK_TYPE_NONE, -1) != 0
    }
}

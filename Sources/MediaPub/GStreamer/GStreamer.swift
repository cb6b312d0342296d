import CGStreamer
import CMalloc
import Foundation
import Synchronization

/// Process-wide GStreamer setup and the errors the thin wrappers throw.
public enum GStreamer {
    private static let once: Void = {
        gst_init(nil, nil)
    }()

    /// Initialises GStreamer once; safe to call from anywhere.
    public static func initialize() { _ = once }

    /// "GStreamer 1.22.0": the library this process runs on.
    static var version: String {
        initialize()
        return String(cString: gst_version_string())
    }

    /// For the executable: decoding threads come and go with every item, and
    /// glibc's per-thread arenas keep each one's high-water mark of video frames
    /// (bgm for 300 s as fast as possible: 1.1 GB peak RSS with the default, 0.6 GB with 2).
    public static func limitMallocArenas(_ count: Int = 2) {
        _ = mallopt(M_ARENA_MAX, Int32(count))
    }

    private static let trimQueue = DispatchQueue(label: "malloc-trim", qos: .utility)
    /// A trim is scheduled and has not run yet.
    private static let trimPending = Mutex(false)

    /// After a pipeline is freed: hands the heap it left free back to the system, soon
    /// and off the caller's thread (calls close together are served once). Every item
    /// change frees a decoding pipeline's worth of video frames, and glibc keeps that
    /// memory mapped; resident memory then creeps up to several pipelines' worth.
    static func returnFreedMemory() {
        let first = trimPending.withLock { pending in
            defer { pending = true }
            return !pending
        }
        guard first else { return }
        trimQueue.asyncAfter(deadline: .now() + 0.2) {
            trimPending.withLock { $0 = false }
            _ = malloc_trim(0)
        }
    }

    /// Whether an element factory is installed (x264enc, avenc_aac, …).
    static func hasElement(_ name: String) -> Bool {
        initialize()
        guard let factory = gst_element_factory_find(name) else { return false }
        gst_object_unref(UnsafeMutableRawPointer(factory))
        return true
    }

    /// Whether a plugin is installed and loads (nvcodec, va, …), whatever elements it offered.
    static func hasPlugin(_ name: String) -> Bool {
        initialize()
        guard let plugin = gst_registry_find_plugin(gst_registry_get(), name) else { return false }
        gst_object_unref(UnsafeMutableRawPointer(plugin))
        return true
    }

    /// Why an element of an installed `factory` cannot open (go to READY, where a hardware
    /// encoder opens its device), in the element's own words; nil when it opens.
    static func openFailure(_ factory: String) -> String? {
        let pipeline: Pipeline
        do { pipeline = try Pipeline(parsing: factory) } catch { return "\(error)" }
        defer { pipeline.stop() }
        if (try? pipeline.setState(.ready)) != nil { return nil }
        return pipeline.bus.popError() ?? "it refused to open"
    }

    /// Quotes a string for a gst_parse_launch description.
    static func quote(_ s: String) -> String {
        "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

public struct GStreamerError: Error, CustomStringConvertible {
    public var message: String
    /// The factory a description asked for that is not installed, if that was the trouble.
    public var missingElement: String?
    public init(_ message: String, missingElement: String? = nil) {
        self.message = message
        self.missingElement = missingElement
    }
    public var description: String { message }

    /// Takes ownership of a GError, frees it and returns its message.
    static func consume(_ error: UnsafeMutablePointer<GError>?) -> String {
        guard let error else { return "unknown error" }
        let text = String(cString: error.pointee.message)
        g_error_free(error)
        return text
    }
}

import CGStreamer
import CShim
import Foundation

/// A message from a pipeline's bus, in Swift terms.
enum BusMessage {
    case endOfStream
    case error(source: String, message: String)
    case tags(title: String?, artist: String?, album: String?)
    case other
}

/// Watches a pipeline's bus on a thread of its own (no GLib main loop):
/// pops messages with a timeout and hands each to `handler` on that thread.
final class Bus: @unchecked Sendable {
    private let bus: UnsafeMutablePointer<GstBus>
    private let lock = NSLock()
    private var running = false
    /// Weak: a Thread keeps its closure (and the closure this Bus) for as long as the
    /// Thread object lives, so holding it here would be a cycle that never frees the
    /// GstBus (and its GstPoll socket pair). Foundation keeps it alive while it runs.
    private weak var thread: Thread?
    private let done = DispatchSemaphore(value: 0)

    init(pipeline: Pipeline) {
        bus = gst_element_get_bus(pipeline.raw)
    }

    deinit {
        stop()
        gst_object_unref(UnsafeMutableRawPointer(bus))
    }

    func start(name: String, handler: @escaping @Sendable (BusMessage) -> Void) {
        lock.lock()
        running = true
        lock.unlock()
        let thread = Thread { [self] in
            let mask = GstMessageType(rawValue: GST_MESSAGE_EOS.rawValue | GST_MESSAGE_ERROR.rawValue
                | GST_MESSAGE_TAG.rawValue | GST_MESSAGE_APPLICATION.rawValue)
            while self.isRunning {
                guard let message = gst_bus_timed_pop_filtered(self.bus, 100_000_000, mask) else { continue }
                if cshim_message_type(message) == GST_MESSAGE_APPLICATION {
                    // `stop()` waking the watch: nothing for the handler.
                    cshim_message_unref(message)
                    continue
                }
                let parsed = Bus.parse(message)
                cshim_message_unref(message)
                handler(parsed)
            }
            self.done.signal()
        }
        thread.name = "bus-\(name)"
        self.thread = thread
        thread.start()
    }

    private var isRunning: Bool {
        lock.lock(); defer { lock.unlock() }
        return running
    }

    /// Stops the watch thread and waits for it (never call from the handler).
    func stop() {
        lock.lock()
        let wasRunning = running
        running = false
        lock.unlock()
        guard wasRunning, thread != nil, Thread.current != thread else { return }
        // Wakes the watch at once rather than at its next 100 ms timeout: a pipeline
        // being closed (one per playlist item) is not kept alive, threads and all, meanwhile.
        gst_bus_post(bus, gst_message_new_application(nil, gst_structure_new_empty("mediapub-bus-stop")))
        done.wait()
    }

    /// Takes the first ERROR message waiting on the bus, if any, without waiting: the
    /// reason of a state change that failed (filesink: "Could not open file … for
    /// writing: No such file or directory"). Call it while the watch is not running.
    func popError() -> String? {
        guard let message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR) else { return nil }
        defer { cshim_message_unref(message) }
        return Bus.errorText(message, withSystemError: true)
    }

    /// The text of an ERROR message; `withSystemError` adds the errno text when the
    /// element gave one in its debug details ("system error: Permission denied").
    private static func errorText(_ message: UnsafeMutablePointer<GstMessage>, withSystemError: Bool = false) -> String {
        var error: UnsafeMutablePointer<GError>? = nil
        var debug: UnsafeMutablePointer<gchar>? = nil
        gst_message_parse_error(message, &error, &debug)
        let text = GStreamerError.consume(error)
        guard let debug else { return text }
        let details = String(cString: debug)
        g_free(debug)
        guard withSystemError, let range = details.range(of: "system error: "),
              let reason = details[range.upperBound...].split(separator: "\n").first else { return text }
        return (text.hasSuffix(".") ? String(text.dropLast()) : text) + ": " + reason
    }

    /// The name of the element that posted `message`.
    private static func sourceName(_ message: UnsafeMutablePointer<GstMessage>) -> String {
        guard let src = cshim_message_src(message), let name = gst_object_get_name(src) else { return "?" }
        defer { g_free(name) }
        return String(cString: name)
    }

    static func parse(_ message: UnsafeMutablePointer<GstMessage>) -> BusMessage {
        let source = sourceName(message)
        switch cshim_message_type(message) {
        case GST_MESSAGE_EOS:
            return .endOfStream
        case GST_MESSAGE_ERROR:
            return .error(source: source, message: errorText(message))
        case GST_MESSAGE_TAG:
            var tags: UnsafeMutablePointer<GstTagList>? = nil
            gst_message_parse_tag(message, &tags)
            defer { if let tags { gst_tag_list_unref(tags) } }
            func tag(_ name: String) -> String? {
                guard let value = cshim_tag_list_get_string(tags, name) else { return nil }
                defer { g_free(value) }
                return String(cString: value)
            }
            return .tags(title: tag("title"), artist: tag("artist"), album: tag("album"))
        default:
            return .other
        }
    }
}

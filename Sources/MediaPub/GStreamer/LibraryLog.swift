import CGStreamer
import CGStreamerShim
import Foundation
import Synchronization

/// What GStreamer and GLib print of their own (`GST_DEBUG` lines, GLib warnings,
/// and what x264, libav and libsrt say through GStreamer) goes through
/// mediapub's logger: in its format (text or JSON lines) and with every secret
/// masked: those of the URLs the run was given, and any URL by its shape. GLib's
/// criticals and warnings are rate-limited (`LogRepeats`: the first of a kind, then
/// a count a minute), and one said on an RTMP output's sink's thread is told to that
/// output (`critical(on:)`, `ElementCriticals`).
public enum LibraryLog {
    private struct State {
        var logger: Logger?
        var urls: [String] = []
        /// The secrets of those URLs, in every spelling a log line may give them
        /// (SecretMask.spellings: `streamid=(string)"\#\!::r\=live…"`), longest first.
        var secrets: [String] = []
        /// What a line is searched for: each URL, each secret, and `://`.
        var needles: [[CChar]] = ["://".utf8CString.map { $0 }]
        /// Told when libsrt refuses a caller's passphrase; libsrt's warnings are then
        /// read, and passed on to the logger only when `GST_DEBUG` asked for them.
        var onSRTRefusal: (@Sendable () -> Void)?
        var srtlibAsked = GST_LEVEL_NONE
        /// GLib's repeated criticals and warnings, counted; a summary is scheduled.
        var repeats = LogRepeats()
        var summaryScheduled = false
        /// rtmp2sink's task threads, and the criticals said on them.
        var criticals = ElementCriticals()
        /// What GST_DEBUG asked of rtmp2sink, once its task threads are watched (nil before).
        var rtmp2sinkAsked: GstDebugLevel?
    }

    private static let state = Mutex(State())

    /// Sends library log lines to `logger` from now on (the latest call wins).
    /// `GST_DEBUG` still chooses what GStreamer logs; mediapub's `--log-level` does not hide it.
    public static func install(_ logger: Logger) {
        state.withLock { $0.logger = logger }
        _ = hooked
    }

    /// Calls `handler` (on libsrt's thread: it must only queue) whenever an SRT listener
    /// refuses a caller for its passphrase (a live feed's, docs/presets.md, live).
    static func onSRTRefusal(_ handler: @escaping @Sendable () -> Void) {
        _ = hooked
        // What GST_DEBUG asked of libsrt: all it says when it names it, else the default level.
        let named = ProcessInfo.processInfo.environment["GST_DEBUG"]?.contains("srtlib") == true
        let asked = named ? GST_LEVEL_MEMDUMP : gst_debug_get_default_threshold()
        state.withLock { s in
            s.onSRTRefusal = handler
            s.srtlibAsked = asked
        }
        if asked.rawValue < GST_LEVEL_WARNING.rawValue { gst_debug_set_threshold_for_name("srtlib", GST_LEVEL_WARNING) }
    }

    /// Watches rtmp2sink's task threads (its debug line as each starts), so that a GLib
    /// critical said on one is kept for that sink (`critical(on:)`). Its debug lines are
    /// passed on to the logger only when `GST_DEBUG` asked for them, and then masked as
    /// every line is (`masked`: they may quote the location, with its stream key). Its
    /// category's threshold is raised to DEBUG process-wide (docs/design.md says what that
    /// means for a program mediapub is embedded in).
    static func watchRTMPSinks() {
        _ = hooked
        let named = ProcessInfo.processInfo.environment["GST_DEBUG"]?.contains("rtmp2") == true
        let asked = named ? GST_LEVEL_MEMDUMP : gst_debug_get_default_threshold()
        let first = state.withLock { s in
            defer { s.rtmp2sinkAsked = s.rtmp2sinkAsked ?? asked }
            return s.rtmp2sinkAsked == nil
        }
        if first, asked.rawValue < GST_LEVEL_DEBUG.rawValue { gst_debug_set_threshold_for_name("rtmp2sink", GST_LEVEL_DEBUG) }
    }

    /// rtmp2sink's lines as its task starts on a thread, and as it ends there.
    static let rtmp2sinkTaskStarting = "gst_rtmp2_sink_task starting"
    static let rtmp2sinkTaskExiting = "gst_rtmp2_sink_task exiting"

    /// `sink` is gone (its connection torn down): nothing said before is kept for it, nor
    /// for a new sink that takes its address.
    static func forget(_ sink: Element) {
        state.withLock { $0.criticals.forget(element: UInt(bitPattern: sink.raw)) }
    }

    /// The first GLib critical said on `sink`'s task thread since the last call (nil: none).
    static func critical(on sink: Element) -> String? {
        state.withLock { $0.criticals.take(element: UInt(bitPattern: sink.raw)) }
    }

    /// libsrt's words for a caller refused for its passphrase.
    static let srtRefusalText = "rejecting per enforced encryption"

    /// URLs (outputs, sources, webhook) whose keys, passwords and secret
    /// parameters are masked wherever a library log line quotes them, whole or in part.
    public static func addSecrets(of urls: [String]) {
        let wanted = urls.filter { !SecretMask.secrets(of: $0).isEmpty }
        guard !wanted.isEmpty else { return }
        state.withLock { s in
            for url in wanted where !s.urls.contains(url) { s.urls.append(url) }
            s.secrets = Array(Set(s.urls.flatMap { SecretMask.secrets(of: $0) }.flatMap(SecretMask.spellings))).sorted { $0.count > $1.count }
            s.needles = Array(Set(s.urls + s.secrets + ["://"])).map { $0.utf8CString.map { $0 } }
        }
    }

    /// `line` as it may be shown: every known URL and secret, and every URL, masked.
    /// Most lines hold neither and are passed on as they are, after a byte search.
    static func masked(_ line: String) -> String {
        let (urls, secrets, needles) = state.withLock { ($0.urls, $0.secrets, $0.needles) }
        guard needles.contains(where: { contains(line, $0) }) else { return line }
        var out = line
        for url in urls where out.contains(url) { out = out.replacingOccurrences(of: url, with: SecretMask.mask(url: url)) }
        for secret in secrets where out.contains(secret) { out = out.replacingOccurrences(of: secret, with: SecretMask.mask) }
        return maskURLs(in: out)
    }

    /// Whether `needle` (NUL-terminated) occurs in `text` (strstr, no copy for native strings).
    private static func contains(_ text: String, _ needle: [CChar]) -> Bool {
        text.withCString { hay in needle.withUnsafeBufferPointer { n in n.baseAddress.map { strstr(hay, $0) != nil } ?? false } }
    }

    /// Each `scheme://…` in `text` (up to a space, a quote or a bracket) as `SecretMask.mask(url:)` shows it.
    static func maskURLs(in text: String) -> String {
        guard text.contains("://") else { return text }
        let chars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0
        let stops: Set<Unicode.Scalar> = [" ", "\t", "\n", "\"", "'", "<", ">", "(", ")", "[", "]", "{", "}", "`"]
        func isSchemeChar(_ c: Unicode.Scalar) -> Bool {
            (c.properties.isAlphabetic && c.isASCII) || ("0"..."9").contains(c) || c == "+" || c == "-" || c == "."
        }
        while i < chars.count {
            // At "://": the scheme is what precedes it, the URL runs to the next stop.
            if chars[i] == ":", i + 2 < chars.count, chars[i + 1] == "/", chars[i + 2] == "/" {
                var start = i
                while start > 0, isSchemeChar(chars[start - 1]) { start -= 1 }
                if start < i {
                    var end = i + 3
                    while end < chars.count, !stops.contains(chars[end]) { end += 1 }
                    let schemeLength = i - start
                    out.removeLast(schemeLength)
                    var url = String.UnicodeScalarView()
                    url.append(contentsOf: chars[start..<end])
                    out.append(contentsOf: SecretMask.mask(url: String(url)).unicodeScalars)
                    i = end
                    continue
                }
            }
            out.append(chars[i])
            i += 1
        }
        return String(out)
    }

    /// A warning of the wrapper itself about how it is used (a pipeline released
    /// without `stop()`), through the same logger.
    static func internalWarning(_ line: String) {
        emit(.warn, "internal: " + line, source: "mediapub")
    }

    private static func emit(_ level: LogLevel, _ line: String, source: String) {
        guard let logger = state.withLock({ $0.logger }) else { return }
        logger.library(level, masked(line), source: source)
    }

    // MARK: the hooks (process-wide, set once)

    private static let hooked: Void = {
        // Before gst_init: the default function removed now is never added, so even what
        // GStreamer logs while it initialises (GST_DEBUG=*:5) comes through here.
        gst_debug_remove_log_function(gst_debug_log_default)
        gst_debug_add_log_function(gstreamerLine, nil, nil)
        g_log_set_writer_func(glibLine, nil, nil)
        GStreamer.initialize()
        gst_debug_remove_log_function(gst_debug_log_default)
    }()

    private static let gstreamerLine: GstLogFunction = { category, level, file, function, line, object, message, _ in
        if let name = gst_debug_category_get_name(category), strcmp(name, "rtmp2sink") == 0 {
            let asked = state.withLock { $0.rtmp2sinkAsked }
            if let asked {
                if level == GST_LEVEL_DEBUG, let said = gst_debug_message_get(message) {
                    let thread = UInt(pthread_self())
                    if let object, strstr(said, rtmp2sinkTaskStarting) != nil {
                        state.withLock { $0.criticals.taskStarted(element: UInt(bitPattern: object), thread: thread) }
                    } else if strstr(said, rtmp2sinkTaskExiting) != nil {
                        state.withLock { $0.criticals.taskEnded(thread: thread) }
                    }
                }
                if level.rawValue > asked.rawValue { return }
            }
        }
        guard let text = gst_debug_log_get_line(category, level, file, function, line, object, message) else { return }
        defer { g_free(text) }
        var s = String(cString: text)
        while s.hasSuffix("\n") { s.removeLast() }
        if let name = gst_debug_category_get_name(category), String(cString: name) == "srtlib" {
            let (refused, asked) = state.withLock { ($0.onSRTRefusal, $0.srtlibAsked) }
            if let refused, s.contains(srtRefusalText) { refused() }
            if refused != nil, level.rawValue > asked.rawValue { return }
        }
        let mapped: LogLevel
        switch level {
        case GST_LEVEL_ERROR: mapped = .error
        case GST_LEVEL_WARNING, GST_LEVEL_FIXME: mapped = .warn
        case GST_LEVEL_INFO: mapped = .info
        default: mapped = .debug
        }
        LibraryLog.emit(mapped, s, source: "gstreamer")
    }

    private static let glibLine: GLogWriterFunc = { flags, fields, count, _ in
        var message = "", domain: String? = nil
        if let fields {
            for i in 0..<Int(count) {
                let field = fields[i]
                guard let key = field.key, let value = field.value else { continue }
                let text: String
                if field.length < 0 {
                    text = String(cString: value.assumingMemoryBound(to: CChar.self))
                } else {
                    text = String(decoding: UnsafeRawBufferPointer(start: value, count: Int(field.length)), as: UTF8.self)
                }
                switch String(cString: key) {
                case "MESSAGE": message = text
                case "GLIB_DOMAIN": domain = text
                default: break
                }
            }
        }
        let bits = flags.rawValue
        let level: LogLevel, name: String
        if bits & (G_LOG_LEVEL_ERROR.rawValue | G_LOG_LEVEL_CRITICAL.rawValue) != 0 {
            (level, name) = (.error, bits & G_LOG_LEVEL_ERROR.rawValue != 0 ? "ERROR" : "CRITICAL")
            let thread = UInt(pthread_self())
            state.withLock { _ = $0.criticals.critical(message, thread: thread) }
        } else if bits & G_LOG_LEVEL_WARNING.rawValue != 0 {
            (level, name) = (.warn, "WARNING")
        } else {
            // Info and debug lines only when G_MESSAGES_DEBUG asks for them, as GLib does.
            if g_log_writer_default_would_drop(flags, domain) != 0 { return G_LOG_WRITER_HANDLED }
            (level, name) = (bits & G_LOG_LEVEL_DEBUG.rawValue != 0 ? .debug : .info, bits & G_LOG_LEVEL_DEBUG.rawValue != 0 ? "DEBUG" : "INFO")
        }
        let said = "\(domain ?? "GLib")-\(name): \(message)"
        if level <= .warn {
            LibraryLog.emitRepeating(level, said)
        } else {
            LibraryLog.emit(level, said, source: "glib")
        }
        return G_LOG_WRITER_HANDLED
    }

    /// A GLib critical or warning: shown when it is the first of its kind in its minute,
    /// else counted; the counts that are due are said first.
    private static func emitRepeating(_ level: LogLevel, _ line: String) {
        let now = MonotonicInstant.now
        let (summaries, show, schedule) = state.withLock { s -> ([LogRepeats.Summary], Bool, MonotonicInstant?) in
            let summaries = s.repeats.due(at: now)
            let show = s.repeats.note(line, at: now)
            guard !s.summaryScheduled, let due = s.repeats.nextDue else { return (summaries, show, nil) }
            s.summaryScheduled = true
            return (summaries, show, due)
        }
        for summary in summaries { emit(.warn, summary.text, source: "glib") }
        if show { emit(level, line, source: "glib") }
        if let schedule { scheduleSummaries(at: schedule) }
    }

    /// Says the counts due at `due` (and at each next one while lines still repeat), on
    /// `library-log`, so that a count is said though its kind stopped repeating.
    private static func scheduleSummaries(at due: MonotonicInstant) {
        summaryQueue.asyncAfter(deadline: .now() + max(0, due.timeIntervalSinceNow)) {
            let now = MonotonicInstant.now
            let (summaries, next) = state.withLock { s -> ([LogRepeats.Summary], MonotonicInstant?) in
                let summaries = s.repeats.due(at: now)
                let next = s.repeats.nextDue
                s.summaryScheduled = next != nil
                return (summaries, next)
            }
            for summary in summaries { emit(.warn, summary.text, source: "glib") }
            if let next { scheduleSummaries(at: next) }
        }
    }

    private static let summaryQueue = DispatchQueue(label: "library-log")
}

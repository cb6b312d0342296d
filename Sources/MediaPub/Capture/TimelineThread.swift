import Foundation

/// Whether the calling thread is the output timeline's (`Capture.run` marks the thread it runs
/// on, the one that called `Broadcast.run()`), and the debug builds' check that nothing that
/// may wait runs on it (docs/design.md, What may run on the timeline thread).
///
/// Every blocking entry point calls `assertOff` (a pipeline's launch, a file's open, stat or
/// read, an image's decode, a libcurl transfer) or `assertMayWait` (a `Waiters` wait): in a
/// debug build (`make test`) one reached on the timeline thread stops the process there,
/// naming it; a release build checks nothing.
enum TimelineThread {
    /// What the thread's mark says: the timeline's pacing.
    private enum Mark: Int {
        /// Paced by the clock: it never waits.
        case realtime = 1
        /// As fast as possible: it is paced by its sources, whose decoding a tick waits for
        /// (bounded, `Capture.tickWait`).
        case asFastAsPossible = 2
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    private static var mark: Mark? {
        pthread_getspecific(key).flatMap { Mark(rawValue: Int(bitPattern: $0)) }
    }

    /// The calling thread is the timeline's.
    static var isCurrent: Bool { mark != nil }

    /// Runs `body` with the calling thread marked as the timeline's (`realtime`: paced by the
    /// clock), then as it was.
    static func run<T>(realtime: Bool = true, _ body: () throws -> T) rethrows -> T {
        let before = pthread_getspecific(key)
        let mark: Mark = realtime ? .realtime : .asFastAsPossible
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: mark.rawValue))
        defer { pthread_setspecific(key, before) }
        return try body()
    }

    /// Debug builds: stops the process when called on the timeline thread, where `what` (a
    /// launch, a file's open, a decode, a transfer) could wait.
    @inline(__always)
    static func assertOff(_ what: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
        #if DEBUG
        guard isCurrent else { return }
        failed(what(), file: file, line: line)
        #endif
    }

    /// A wait of `seconds` asked on the calling thread is one the timeline may not make: on the
    /// timeline thread of a realtime run, and not already over.
    static func forbidsWait(_ seconds: TimeInterval) -> Bool { seconds > 0 && mark == .realtime }

    /// Debug builds: stops the process when a wait of `seconds` is asked on the timeline thread
    /// of a realtime run (as fast as possible, a tick may wait for its sources' decoding: that
    /// is its pacing, bounded by `Capture.tickWait`).
    @inline(__always)
    static func assertMayWait(_ seconds: TimeInterval, _ what: @autoclosure () -> String,
                              file: StaticString = #fileID, line: UInt = #line) {
        #if DEBUG
        guard forbidsWait(seconds) else { return }
        failed("\(what()) (a wait of \(seconds) s)", file: file, line: line)
        #endif
    }

    private static func failed(_ what: String, file: StaticString, line: UInt) {
        assertionFailure("\(what) on the timeline thread (docs/design.md, What may run on the timeline thread)",
                         file: file, line: line)
    }
}

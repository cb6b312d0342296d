import Foundation

/// Whether the calling thread is the output timeline's (`Capture.run` marks the thread it runs
/// on, the one that called `Broadcast.run()`): what may wait (a probe, a connect) asserts it
/// is not (docs/design.md, The timeline).
enum TimelineThread {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The calling thread is the timeline's.
    static var isCurrent: Bool { pthread_getspecific(key) != nil }

    /// Runs `body` with the calling thread marked as the timeline's, then as it was.
    static func run<T>(_ body: () throws -> T) rethrows -> T {
        let before = pthread_getspecific(key)
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
        defer { pthread_setspecific(key, before) }
        return try body()
    }
}

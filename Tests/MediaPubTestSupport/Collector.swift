// What the unit and the end-to-end tests share (Tests/MediaPubTestSupport): a
// target of helpers only, no tests. Public, so that the one `@_exported import`
// in each test target (Exports.swift) makes it seen in all of that target's files.

import Foundation

/// A thread-safe collector for tap callbacks.
public final class Collector<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [T] = []
    public init() {}
    public func add(_ item: T) { lock.lock(); items.append(item); lock.unlock() }
    public var all: [T] { lock.lock(); defer { lock.unlock() }; return items }
}

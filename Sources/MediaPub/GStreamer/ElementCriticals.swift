import Foundation

/// Which element a GLib critical came from (a pure value, no threads of its own). A
/// critical names no object, only the thread it was said on; an element whose task
/// says so as it starts on a thread (rtmp2sink: "gst_rtmp2_sink_task starting", in its
/// debug log) owns that thread until another does. A critical on an owned thread is
/// kept for its element, the first one only, until its owner takes it. A thread is the
/// element's until its task ends or the element is forgotten; both tables are bounded: a
/// thread or element beyond `capacity` replaces the oldest.
struct ElementCriticals: Equatable {
    /// Thread → element (addresses), in the order they were told.
    private var owners: [(thread: UInt, element: UInt)] = []
    /// Element → its first critical not yet taken.
    private var firsts: [(element: UInt, message: String)] = []
    let capacity: Int

    init(capacity: Int = 64) {
        self.capacity = capacity
    }

    static func == (a: ElementCriticals, b: ElementCriticals) -> Bool {
        a.owners.elementsEqual(b.owners) { $0 == $1 } && a.firsts.elementsEqual(b.firsts) { $0 == $1 }
    }

    /// `element`'s task runs on `thread` from now on. What was kept for an element at that
    /// address (an earlier sink's, freed, whose address a new one took; or its own earlier
    /// task's) is dropped, and so is the thread it owned before.
    mutating func taskStarted(element: UInt, thread: UInt) {
        owners.removeAll { $0.thread == thread || $0.element == element }
        firsts.removeAll { $0.element == element }
        owners.append((thread, element))
        if owners.count > capacity { owners.removeFirst() }
    }

    /// The task on `thread` has ended (its last line): the thread is nobody's, so that a
    /// pool thread running something else, or a new thread given the same id, is never
    /// taken for the sink's.
    mutating func taskEnded(thread: UInt) {
        owners.removeAll { $0.thread == thread }
    }

    /// `element` is gone (its connection torn down): nothing is kept for it, and no thread is its.
    mutating func forget(element: UInt) {
        owners.removeAll { $0.element == element }
        firsts.removeAll { $0.element == element }
    }

    /// A critical on `thread`: kept for the element that owns it (true), or for none.
    @discardableResult
    mutating func critical(_ message: String, thread: UInt) -> Bool {
        guard let element = owners.last(where: { $0.thread == thread })?.element else { return false }
        guard !firsts.contains(where: { $0.element == element }) else { return true }
        firsts.append((element, message))
        if firsts.count > capacity { firsts.removeFirst() }
        return true
    }

    /// The first critical said on `element`'s thread since it was last asked (nil: none); forgotten once taken.
    mutating func take(element: UInt) -> String? {
        guard let i = firsts.firstIndex(where: { $0.element == element }) else { return nil }
        return firsts.remove(at: i).message
    }
}

import CGStreamer
import CGStreamerShim
import Dispatch
import Synchronization

/// A pipeline's GstBus, watched without a thread of its own: a sync handler reads
/// each message on the thread that posts it and hands it to a serial queue.
/// @unchecked Sendable: wraps a GstBus (thread-safe in C); its watch is in a Mutex.
final class Bus: @unchecked Sendable {
    private let bus: UnsafeMutablePointer<GstBus>
    private let watch = Mutex<BusWatch?>(nil)

    /// The bus of `element` (a pipeline's own; `Pipeline.bus` owns it).
    init(element: UnsafeMutablePointer<GstElement>) {
        bus = gst_element_get_bus(element)
    }

    deinit {
        gst_object_unref(UnsafeMutableRawPointer(bus))
    }

    /// Hands every message of interest to `handler` on `queue` (a serial queue of
    /// the owner's, or one of the bus's own), in the order posted, starting with
    /// what waits on the bus already. A later call replaces the watch.
    ///
    /// `onPostingThread`, if given, sees each message first, on the thread that
    /// posts it: what must be known before the poster goes on (a sink's tags before
    /// its preroll completes). It must be quick, and take no lock that is held
    /// while calling into GStreamer (a message can be posted from inside any call).
    func start(name: String, on queue: DispatchQueue? = nil,
               onPostingThread: (@Sendable (BusMessage) -> Void)? = nil,
               handler: @escaping @Sendable (BusMessage) -> Void) {
        // The old handler goes first: GStreamer keeps one sync handler and refuses a second.
        stop()
        let made = BusWatch(bus: bus, queue: queue ?? DispatchQueue(label: "bus-\(name)"),
                            early: onPostingThread, handler: handler)
        watch.withLock { $0 = made }
    }

    /// Ends the watch: the handler is not called from now on (one call already
    /// running on the queue may finish). Safe from the handler itself.
    func stop() {
        let current = watch.withLock { current in
            let old = current
            current = nil
            return old
        }
        current?.remove()
    }

    var isWatched: Bool { watch.withLock { $0 != nil } }

    /// Takes the first ERROR message waiting on the bus, if any, without waiting: the
    /// reason of a state change that failed (filesink: "Could not open file … for
    /// writing: No such file or directory"). Call it while the bus is not watched.
    func popError() -> String? {
        guard let message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR) else { return nil }
        defer { cshim_message_unref(message) }
        guard case .error(let error) = BusMessage(message) else { return nil }
        return error.messageWithSystemError
    }
}

/// One sync handler on a bus, removed when this guard is removed or goes away.
/// @unchecked Sendable: holds a GstBus reference; `delivery` is Sendable.
final class BusWatch: @unchecked Sendable {
    private let bus: UnsafeMutablePointer<GstBus>
    private let delivery: Delivery
    private let removed = Mutex(false)

    /// What the C handler holds: where messages go, and whether they still may.
    private final class Delivery: Sendable {
        let queue: DispatchQueue
        let early: (@Sendable (BusMessage) -> Void)?
        let handler: @Sendable (BusMessage) -> Void
        /// False once the watch is removed; queued deliveries check it before calling.
        let active = Mutex(true)

        init(queue: DispatchQueue, early: (@Sendable (BusMessage) -> Void)?, handler: @escaping @Sendable (BusMessage) -> Void) {
            self.queue = queue
            self.early = early
            self.handler = handler
        }

        /// Called on the posting thread: `early` first (outside `active`, which
        /// it must not wait for), then enqueued under `active` so the order holds.
        func post(_ message: BusMessage) {
            if let early, active.withLock({ $0 }) { early(message) }
            active.withLock { active in
                if active { enqueue(message) }
            }
        }

        /// Hands `message` to the queue; it reaches the handler unless the watch is removed first.
        func enqueue(_ message: BusMessage) {
            queue.async { [self] in
                guard self.active.withLock({ $0 }) else { return }
                self.handler(message)
            }
        }
    }

    /// Reads the message on the posting thread and drops it: a handler that returns
    /// GST_BUS_DROP owns the message and unrefs it (it holds a reference to its source).
    private static let syncHandler: GstBusSyncHandler = { _, message, data in
        guard let message else { return GST_BUS_DROP }
        if let data, let parsed = BusMessage(message) {
            Unmanaged<Delivery>.fromOpaque(data).takeUnretainedValue().post(parsed)
        }
        cshim_message_unref(message)
        return GST_BUS_DROP
    }

    fileprivate init(bus: UnsafeMutablePointer<GstBus>, queue: DispatchQueue,
                     early: (@Sendable (BusMessage) -> Void)?, handler: @escaping @Sendable (BusMessage) -> Void) {
        gst_object_ref(UnsafeMutableRawPointer(bus))
        self.bus = bus
        delivery = Delivery(queue: queue, early: early, handler: handler)
        let box = Unmanaged.passRetained(delivery).toOpaque()
        // Under `active`: a message posted meanwhile waits until those already on the bus are queued.
        delivery.active.withLock { _ in
            // Since GStreamer 1.16.3 the handler is reference counted: the destroy notify
            // runs once no call of it is in flight, so the box outlives every call.
            gst_bus_set_sync_handler(bus, BusWatch.syncHandler, box) { data in
                if let data { Unmanaged<Delivery>.fromOpaque(data).release() }
            }
            while let waiting = gst_bus_pop(bus) {
                if let parsed = BusMessage(waiting) {
                    early?(parsed)
                    delivery.enqueue(parsed)
                }
                cshim_message_unref(waiting)
            }
        }
    }

    /// Takes the sync handler off the bus; messages posted from now on stay on the bus.
    func remove() {
        guard !removed.withLock({ was in defer { was = true }; return was }) else { return }
        delivery.active.withLock { $0 = false }
        gst_bus_set_sync_handler(bus, nil, nil, nil)
    }

    deinit {
        remove()
        gst_object_unref(UnsafeMutableRawPointer(bus))
    }
}

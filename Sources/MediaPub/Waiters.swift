import Dispatch
import Foundation
import Synchronization

/// The one condition-wait helper: the threads waiting for a change of the state
/// it lives in (a `Mutex<State>` whose state `HasWaiters`). A waiter enlists under
/// the lock when what it waits for does not hold yet, then waits outside it;
/// whoever changes the state calls `wakeAll()` under the lock. Checking and
/// enlisting happen under one hold, so no wake-up is lost.
struct Waiters: Sendable {
    private var semaphores: [DispatchSemaphore] = []

    init() {}

    /// Call under the lock, after changing what waiters wait for.
    mutating func wakeAll() {
        for semaphore in semaphores { semaphore.signal() }
        semaphores.removeAll()
    }

    fileprivate mutating func enlist() -> DispatchSemaphore {
        let semaphore = DispatchSemaphore(value: 0)
        semaphores.append(semaphore)
        return semaphore
    }

    fileprivate mutating func withdraw(_ semaphore: DispatchSemaphore) {
        semaphores.removeAll { $0 === semaphore }
    }
}

/// A state that threads may wait on (see `Waiters`).
protocol HasWaiters {
    var waiters: Waiters { get set }
}

extension Mutex where Value: HasWaiters {
    /// Waits while `waiting` holds of the state, up to `deadline`; never holds the
    /// lock while it waits. Call it with the lock not held.
    borrowing func wait(until deadline: MonotonicInstant, while waiting: (Value) -> Bool) {
        TimelineThread.assertMayWait(deadline.timeIntervalSinceNow, "a wait")
        while true {
            let semaphore: DispatchSemaphore? = withLock { s in waiting(s) ? s.waiters.enlist() : nil }
            guard let semaphore else { return }
            let left = max(0, deadline.timeIntervalSinceNow)
            if semaphore.wait(timeout: .now() + left) == .timedOut {
                withLock { $0.waiters.withdraw(semaphore) }
                return
            }
        }
    }
}

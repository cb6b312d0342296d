import Foundation
import Synchronization

/// Runs the control socket's commands: those of one lane one at a time, in the order
/// given, and lanes side by side (docs/control.md, "Ordering"). A lane is kept only
/// while it has work: each client has one command under way at most, so there are at
/// most as many lanes, and threads busy, as clients.
final class ControlLanes: Sendable {
    typealias Job = @Sendable () -> Void

    /// A lane that is here is running; what it still has to run, in order.
    private let waiting = Mutex<[ControlLane: [Job]]>([:])
    private let workers = DispatchQueue(label: "mediapub.control.commands", attributes: .concurrent)

    /// Runs `job` after what `lane` has under way and waiting; never waits itself.
    func run(_ lane: ControlLane, _ job: @escaping Job) {
        let starts = waiting.withLock { lanes -> Bool in
            guard lanes[lane] == nil else {
                lanes[lane]?.append(job)
                return false
            }
            lanes[lane] = []
            return true
        }
        if starts { workers.async { [self] in drain(lane, first: job) } }
    }

    /// Runs the lane's jobs (holding no lock) until it has none left; then it is gone.
    private func drain(_ lane: ControlLane, first: @escaping Job) {
        var next: Job? = first
        while let job = next {
            job()
            next = waiting.withLock { lanes -> Job? in
                guard let queued = lanes[lane], let head = queued.first else {
                    lanes[lane] = nil
                    return nil
                }
                lanes[lane] = Array(queued.dropFirst())
                return head
            }
        }
    }
}

import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The control socket's event loop as other threads see it: the thread that
/// polls (a `ControlPoller`, which alone touches the clients), the lanes that run
/// commands (`ControlLanes`: one at a time per lane, lanes side by side), and the
/// wake-up pipe through which answers and the stop request reach the poll.
final class ControlLoop: Sendable {
    let path: String
    let bound: UnixSocket.Identity?
    let limits: ControlServer.Limits
    private let handle: @Sendable ([String]) -> ControlReply
    private let lane: @Sendable ([String]) -> ControlLane
    private let lanes: ControlLanes
    let wakeRead: Int32
    private let wakeWrite: Int32
    private let finished = DispatchSemaphore(value: 0)
    /// How long a command under way at stop may take to answer.
    let drainTime = 2.0

    private struct State {
        var stopRequested = false
        /// Answers written by the lanes, for the poller to send.
        var completions: [(client: Int, line: String)] = []
    }
    private let state = Mutex(State())

    init(path: String, listener: UnixSocket, bound: UnixSocket.Identity?, limits: ControlServer.Limits,
         lanes: ControlLanes = ControlLanes(), lane: @escaping @Sendable ([String]) -> ControlLane = ControlLane.of,
         handle: @escaping @Sendable ([String]) -> ControlReply) throws {
        self.path = path
        self.lanes = lanes
        self.bound = bound
        self.limits = limits
        self.lane = lane
        self.handle = handle
        var fds: [Int32] = [-1, -1]
        try syscall("pipe") { pipe(&fds) }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        let thread = Thread { [self] in
            ControlPoller(loop: self, listener: listener).run()
            finished.signal()
        }
        thread.name = "control"
        thread.start()
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    /// Removes the socket file only if it is still the socket bound in this run.
    static func unlinkIfOurs(_ path: String, _ bound: UnixSocket.Identity?) {
        guard let bound, let now = UnixSocket.Identity.of(path), now == bound else { return }
        unlink(path)
    }

    var stopRequested: Bool { state.withLock { $0.stopRequested } }

    func stop() {
        let first = state.withLock { s in
            defer { s.stopRequested = true }
            return !s.stopRequested
        }
        guard first else { return }
        wake()
        finished.wait()
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = Glibc.write(wakeWrite, &byte, 1)
    }

    /// Reads one request line and runs it in its lane; its answer comes back through `takeCompletions`.
    func dispatch(client: Int, line: String) {
        let handle = self.handle
        let request = ControlRequest(line: line)
        // A line that is no request, or whose words are refused, is answered with an error at once.
        let words = (try? request?.words.get()) ?? []
        lanes.run(words.isEmpty ? .read : lane(words)) { [weak self] in
            let answer = ControlRequest.answer(request, handle: handle)
            guard let self else { return }
            state.withLock { $0.completions.append((client, answer + "\n")) }
            wake()
        }
    }

    /// The answers ready to send (the wake-up pipe emptied).
    func takeCompletions() -> [(client: Int, line: String)] {
        var sink = [UInt8](repeating: 0, count: 256)
        while Glibc.read(wakeRead, &sink, sink.count) > 0 {}
        return state.withLock { s in
            defer { s.completions.removeAll() }
            return s.completions
        }
    }
}

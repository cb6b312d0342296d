import Foundation
import Synchronization

/// Watches a programme file (docs/presets.md, Schedule: a programme in its own file is read
/// again when it changes): every `interval` its size, modification time and inode are
/// looked at; a change, once it has settled for one look (an editor writing it), is told.
final class ProgrammeFileWatch: Sendable {
    let path: String
    private struct State {
        var seen: Signature?
        var changed: Signature?
        var timer: DispatchSourceTimer?
    }
    private let state: Mutex<State>

    /// What tells that a file changed; nil while it cannot be read.
    struct Signature: Equatable {
        let size: Int64
        let modified: Int64
        let inode: UInt64

        init?(path: String) {
            var st = stat()
            guard stat(path, &st) == 0 else { return nil }
            size = Int64(st.st_size)
            modified = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
            inode = UInt64(st.st_ino)
        }
    }

    static let interval: TimeInterval = 1

    init(path: String, queue: DispatchQueue, onChange: @escaping @Sendable () -> Void) {
        self.path = path
        state = Mutex(State(seen: Signature(path: path)))
        state.withLock { s in
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval)
            timer.setEventHandler { [weak self] in
                if self?.look() == true { onChange() }
            }
            s.timer = timer
            timer.resume()
        }
    }

    /// One look: true when the file changed and has stayed as it is since the last look.
    private func look() -> Bool {
        let now = Signature(path: path)
        return state.withLock { s in
            guard now != s.seen else {
                s.changed = nil
                return false
            }
            guard let now, now == s.changed else {
                s.changed = now
                return false
            }
            s.seen = now
            s.changed = nil
            return true
        }
    }

    func stop() {
        state.withLock { s in
            s.timer?.cancel()
            s.timer = nil
        }
    }
}

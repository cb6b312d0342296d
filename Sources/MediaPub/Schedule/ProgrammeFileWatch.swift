import Foundation
import Synchronization

/// Watches a programme file (docs/presets.md, Schedule: a programme in its own file is read
/// again when it changes): every `interval` its `FileVersion` is
/// looked at; a change, once it has settled for one look (an editor writing it), is told.
final class ProgrammeFileWatch: Sendable {
    let path: String
    private struct State {
        var seen: FileVersion?
        var changed: FileVersion?
        var timer: DispatchSourceTimer?
    }
    private let state: Mutex<State>

    static let interval: TimeInterval = 1

    init(path: String, queue: DispatchQueue, onChange: @escaping @Sendable () -> Void) {
        self.path = path
        state = Mutex(State(seen: FileVersion(path: path)))
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
        let now = FileVersion(path: path)
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

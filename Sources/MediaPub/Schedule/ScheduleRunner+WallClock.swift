import Foundation
import Synchronization

/// The programme follows the wall clock (docs/presets.md, On air: wall clock).
extension ScheduleRunner {
    /// Every tick, on the timeline: whether the wall clock moved by more than a frame against
    /// the monotonic clock since the anchor was taken (a step, or a slew that added up); if it
    /// did, the programme follows it at once (docs/presets.md, On air: wall clock). Two clock
    /// readings and a subtraction; the mark is taken again at once and the programme follows
    /// on the cue queue (a block joined is looked at there, never on the timeline thread).
    func watchClock() {
        onTimeline(outputSeconds() + 1 / Double(tickClock.tickRate), .clock) { [weak self] in
            guard let self else { return }
            if let moved = self.clockMoved(), abs(moved) > 1 / Double(self.tickClock.tickRate) {
                self.state.withLock { s in s.clockMark = self.clocks() ?? s.clockMark }
                self.cueQueue.async { [weak self] in self?.follow(moved) }
            }
            self.watchClock()
        }
    }

    /// Seconds the wall clock gained on the monotonic clock since the mark (nil: no mark, or
    /// no clean reading this tick).
    private func clockMoved() -> TimeInterval? {
        guard let mark = state.withLock({ $0.clockMark }), let now = clocks() else { return nil }
        return now.wall.timeIntervalSince(mark.wall) - Double(Int64(bitPattern: now.uptime &- mark.uptime)) / 1e9
    }

    /// The wall clock and the monotonic clock (ns) read together: the wall clock between two
    /// monotonic readings, taken again if the thread was held between them (a loaded machine
    /// would otherwise look like a moved clock); nil after three tries.
    func clocks() -> (wall: Date, uptime: UInt64)? {
        for _ in 0..<3 {
            let before = DispatchTime.now().uptimeNanoseconds
            let wall = wallClock()
            let after = DispatchTime.now().uptimeNanoseconds
            if after &- before < 2_000_000 { return (wall, before / 2 + after / 2) }
        }
        return nil
    }

    /// The wall clock moved: what the programme has on air now (by the clock as it is) goes
    /// on air on the next tick, unless it is already; the switches after are planned anew.
    /// On the cue queue, which never waits for a probe: a block joined whose items' lengths are
    /// not found yet leaves the filler on air until they are, found in the background as at the start.
    private func follow(_ moved: TimeInterval) {
        emit(.warning(String(format: "schedule: the wall clock moved by %+.3f s: the programme follows it", moved)))
        let generation = state.withLock { s in
            s.generation += 1
            s.anchor = wallClock().addingTimeInterval(-outputSeconds())
            s.clockMark = clocks() ?? s.clockMark
            return s.generation
        }
        let now = self.now
        if let entry = programme.onAir(at: now), !isOnAir(entry), lengthsPending(entry, at: now) {
            switchNow(to: nil, joining: true, generation: generation, knownOnly: true)
            joinWhenKnown(entry)
        } else {
            replan(generation, knownOnly: true)
        }
    }
}

import Foundation

/// The ffmpeg-style status of a run: `frame= time= bitrate= speed=`, with the
/// percentage and the time left when the run's length is known (`RunLength`). On a terminal
/// it is redrawn in place once a second (log lines go above it); into a file
/// or a journal it is a log line once a minute. Made and stopped by the run's
/// thread; its timer fires on a global queue and holds no state of its own.
final class ProgressLine {
    private let timer: DispatchSourceTimer
    private let log: Logger

    /// `length`: `--duration` or `stop.after`; without, the players' ends tell it when they can (`RunLength`).
    init(log: Logger, capture: Capture, publisher: Publisher, length: TimeInterval?) {
        self.log = log
        let runLength = RunLength(stopAfter: length, players: capture.players, atEnd: capture.stopAtEnd)
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
        let begin = MonotonicInstant.now
        let inPlace = log.drawsStatusInPlace
        let every: Double = inPlace ? 1 : 60
        timer.schedule(deadline: .now() + every, repeating: every)
        timer.setEventHandler {
            let t = capture.outputSeconds
            let elapsed = MonotonicInstant.now.timeIntervalSince(begin)
            let bytes = publisher.outputs.map { $0.status.bytesSent }.max() ?? 0
            let text = ProgressLine.text(frames: capture.framesOut, seconds: t, elapsed: elapsed, bytes: bytes, length: runLength.length(at: t),
                                         outputs: publisher.outputs.map { $0.status.state.rawValue })
            if inPlace { log.setStatus(text) } else { log.info(text) }
        }
        timer.resume()
    }

    /// Stops it and clears the line from the terminal.
    func stop() {
        timer.cancel()
        log.setStatus(nil)
    }

    static func text(frames: UInt64, seconds t: Double, elapsed: Double, bytes: UInt64, length: TimeInterval?,
                     outputs: [String]) -> String {
        let kbps = t > 0 ? Double(bytes) * 8 / t / 1000 : 0
        let speed = elapsed > 0 ? t / elapsed : 0
        var line = String(format: "frame=%6llu time=%@ bitrate=%7.1fkbits/s speed=%5.2fx", frames, clock(t), kbps, speed)
        if let length, length > 0, length.isFinite {
            let done = min(1, t / length)
            line += String(format: " %3.0f%%", done * 100)
            if speed > 0 { line += " eta=" + clock(max(0, length - t) / speed) }
        }
        return line + " outputs=" + outputs.joined(separator: ",")
    }

    /// `HH:MM:SS.cc`, as ffmpeg shows times.
    static func clock(_ seconds: Double) -> String {
        let s = seconds.isFinite ? max(0, min(seconds, 1e9)) : 0
        let whole = Int(s)
        return String(format: "%02d:%02d:%02d.%02d", whole / 3600, (whole / 60) % 60, whole % 60, Int((s - Double(whole)) * 100))
    }
}

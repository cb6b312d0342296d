import Foundation
import Synchronization

/// The local monitor (`monitor: true`): the players' sound at their play
/// volumes, on the default sound device. A machine without one keeps running:
/// the monitor reports once and goes quiet.
final class Monitor: Sendable {
    private let pipeline: Pipeline
    private let source: AppSrc
    private let bus: Bus
    /// The sound device failed (said once).
    private let failed = Mutex(false)

    /// Throws, after saying once that there is no sound device, when there is none.
    init(format: MediaFormat, log: Logger) throws {
        guard let sink = Monitor.soundSink() else {
            log.warn("monitor: no sound device (no PulseAudio server answers, no ALSA sound card); continuing without local playback")
            throw MediaPubError.pipeline("monitor: no sound device")
        }
        pipeline = try Pipeline(description: "appsrc name=monitor format=time is-live=true block=false max-bytes=\(format.sampleRate * format.channels * 4) "
            + "caps=\"\(format.audioCaps)\" ! queue leaky=downstream max-size-time=500000000 ! audioconvert ! audioresample ! \(sink) sync=false")
        guard let source = pipeline.appSrc(named: "monitor") else { throw MediaPubError.pipeline("monitor: no source") }
        self.source = source
        bus = pipeline.bus
        bus.start(name: "monitor") { [weak self] message in
            guard case .error(let error) = message, let self else { return }
            let text = error.message
            let first = self.failed.withLock { failed in
                defer { failed = true }
                return !failed
            }
            if first { log.warn("monitor: no sound device (\(text)); continuing without local playback") }
        }
        if (try? pipeline.setState(.playing)) == nil {
            failed.withLock { $0 = true }
            log.warn("monitor: no sound device; continuing without local playback")
        }
    }

    var isWorking: Bool { !failed.withLock { $0 } }

    /// The sink to play to: PulseAudio when its server answers, else ALSA when the
    /// machine has a sound card (alsasink, or openalsink, which plays through ALSA);
    /// nil for neither. Not autoaudiosink: with no device it went on to OpenAL, whose
    /// libraries printed their own errors on stderr, then played to nothing unsaid.
    static func soundSink() -> String? {
        if GStreamer.hasElement("pulsesink"), GStreamer.openFailure("pulsesink") == nil { return "pulsesink" }
        // /proc/asound/cards lists the kernel's sound cards ("--- no soundcards ---" when none).
        let cards = (try? String(contentsOfFile: "/proc/asound/cards", encoding: .utf8)) ?? ""
        guard cards.split(separator: "\n").contains(where: { $0.trimmingCharacters(in: .whitespaces).first?.isNumber == true }) else {
            return nil
        }
        return ["alsasink", "openalsink"].first(where: GStreamer.hasElement)
    }

    func push(_ buffer: Buffer) {
        guard isWorking else { return }
        source.push(buffer)
    }

    func stop() {
        pipeline.stop()
    }
}

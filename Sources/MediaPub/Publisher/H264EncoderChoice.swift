/// Which H.264 encoder element a run uses (docs/presets.md, video: `encoder`) and how many
/// B-frames it makes. `choose` is pure: what GStreamer has is asked through `probe`.
/// `auto` takes the first hardware encoder whose device opens, else x264, else
/// openh264; a named encoder takes the first of its elements that opens, else
/// says in one line why none can (the element, and the package or the device).
struct H264EncoderChoice: Equatable {
    /// What GStreamer has of one element.
    enum Probe: Equatable {
        case usable
        /// No such element, nor its plugin: the package is not installed.
        case notInstalled
        /// The plugin is installed but offered no such element: it found no device.
        case noDevice
        /// The element exists but cannot open (its device, driver or library): why.
        case cannotOpen(String)
    }

    let element: H264EncoderElement
    let bframes: Int
    /// Warnings for the log: an encoder `auto` passed over, B-frames it cannot make.
    let notes: [String]

    static func choose(_ video: VideoConfig, probe: (H264EncoderElement) -> Probe) throws -> Self {
        var notes: [String] = []
        var failures: [MediaPubError] = []
        for element in H264EncoderElement.candidates(for: video.encoder) {
            let found = probe(element)
            guard found == .usable else {
                if case .cannotOpen(let why) = found, video.encoder == .auto {
                    notes.append("encoder auto: \(element.rawValue) cannot start (\(why)); trying the next one")
                }
                failures.append(error(element, found))
                continue
            }
            let bframes = min(video.bframes, element.maxBFrames)
            if bframes < video.bframes {
                notes.append("encoder auto chose \(element.rawValue), which makes "
                    + (bframes == 0 ? "no B-frames" : "at most \(bframes) B-frames") + ": bframes \(video.bframes) is \(bframes)")
            }
            return H264EncoderChoice(element: element, bframes: bframes, notes: notes)
        }
        // auto without any: what the software encoder needs, as before there were others.
        if video.encoder == .auto { throw GStreamer.missing(H264EncoderElement.x264enc.rawValue) }
        if failures.count == 1, let only = failures.first { throw only }
        throw MediaPubError.pipeline("encoder \(video.encoder.rawValue): " + failures.map(\.description).joined(separator: "; "))
    }

    /// Why `element` cannot be used, as one line.
    private static func error(_ element: H264EncoderElement, _ probe: Probe) -> MediaPubError {
        let name = element.rawValue
        switch probe {
        case .usable, .notInstalled: return GStreamer.missing(name)
        case .noDevice:
            return .elementWithoutDevice(name, GStreamer.package(providing: name), element.device ?? "its device")
        case .cannotOpen(let why): return .elementCannotOpen(name, why)
        }
    }
}

extension H264EncoderChoice {
    /// What this machine's GStreamer has of `element`: installed, its plugin loaded, and
    /// whether it opens (to READY: a hardware encoder opens its device there).
    static func probe(_ element: H264EncoderElement) -> Probe {
        let name = element.rawValue
        guard GStreamer.hasElement(name) else {
            return element.plugin.map(GStreamer.hasPlugin) == true ? .noDevice : .notInstalled
        }
        return GStreamer.openFailure(name).map(Probe.cannotOpen) ?? .usable
    }
}

import Foundation

/// The standby picture: one I420 frame at the output size, from a colour or an image.
enum Slate {
    /// What the standby picture is made from. An image is decoded before the run
    /// starts (a bad one is an error then); a colour frame is made when it is first
    /// shown, so that a run whose player always has a picture never holds one
    /// (1.4 MB at 720p, 12 MB at 4K).
    enum Picture: Sendable {
        case image(Buffer)
        case color(String)
    }

    /// The frame of `picture`, made once, on the thread that shows it.
    struct Frame {
        let picture: Picture
        let format: MediaFormat
        private var made: Buffer?

        init(_ picture: Picture, format: MediaFormat) {
            self.picture = picture
            self.format = format
        }

        mutating func buffer() -> Buffer {
            if let made { return made }
            let frame: Buffer
            switch picture {
            case .image(let buffer): frame = buffer
            case .color(let hex): frame = Slate.color(hex, format: format)
            }
            made = frame
            return frame
        }
    }

    /// A frame filled with `#RRGGBB` (BT.601 limited range).
    static func color(_ hex: String, format: MediaFormat) -> Buffer {
        let (r, g, b) = rgb(hex)
        let y = UInt8(clamping: Int((0.257 * r + 0.504 * g + 0.098 * b + 16).rounded()))
        let u = UInt8(clamping: Int((-0.148 * r - 0.291 * g + 0.439 * b + 128).rounded()))
        let v = UInt8(clamping: Int((0.439 * r - 0.368 * g - 0.071 * b + 128).rounded()))
        let layout = I420Layout(width: format.video?.width ?? 2, height: format.video?.height ?? 2)
        // Each plane filled whole, row padding included, at GStreamer's offsets.
        var bytes = [UInt8](repeating: y, count: layout.size)
        let chromaPlane = layout.strides[1] * layout.chromaHeight
        for i in 0..<chromaPlane {
            bytes[layout.offsets[1] + i] = u
            bytes[layout.offsets[2] + i] = v
        }
        return bytes.withUnsafeBytes { Buffer(copying: $0) }
    }

    static func rgb(_ hex: String) -> (Double, Double, Double) {
        let digits = hex.hasPrefix("#") ? String(hex.dropFirst()) : hex
        let value = UInt32(digits, radix: 16) ?? 0
        return (Double((value >> 16) & 0xFF), Double((value >> 8) & 0xFF), Double(value & 0xFF))
    }

    /// The image decoded, letterboxed to the output size and converted to I420.
    static func image(_ source: String, format: MediaFormat) throws -> Buffer {
        let spec = try SourceSpec(source)
        guard case .uri(let uri, _) = spec, let caps = format.videoCaps else {
            throw MediaPubError.badSource(source, "not an image")
        }
        try spec.checkReadable(source)
        let pipeline = try Pipeline(description:
            "uridecodebin name=image uri=\(GStreamer.quote(uri)) ! videoconvert ! videoscale add-borders=true ! \(caps) ! appsink name=slate sync=false max-buffers=1")
        defer { pipeline.stop() }
        guard let sink = pipeline.appSink(named: "slate") else { throw MediaPubError.pipeline("slate: no sink") }
        // An https:// image trusts the CAs of SSL_CERT_FILE (a CA file that cannot be used fails it below).
        if let decoder = pipeline.element(named: "image") { Signals.onSourceSetup(decoder) { _ = TLSTrust.apply(to: $0) } }
        guard (try? pipeline.setState(.playing)) != nil, let buffer = sink.tryPull(timeout: 15)?.buffer else {
            throw MediaPubError.badSource(source, "cannot decode the standby image")
        }
        return buffer
    }
}

/// The application's edge of the GStreamer layer: an element that is not
/// installed is a `MediaPubError.missingElement` naming the Debian/Ubuntu
/// package to install. The wrapper itself knows no packages.
extension GStreamer {
    /// The Debian/Ubuntu package that installs an element, for "install X" hints.
    static func package(providing element: String) -> String {
        let packages: [String: [String]] = [
            "gstreamer1.0-plugins-good": ["flvmux", "matroskamux", "mp4mux", "qtmux", "v4l2h264enc",
                                          "lamemp3enc", "shout2send", "gdkpixbufoverlay"],
            "gstreamer1.0-x": ["textoverlay"],
            "gstreamer1.0-plugins-bad": ["rtmp2sink", "srtsink", "mpegtsmux", "hlsdemux", "pitch", "openh264enc", "voaacenc",
                                         "vah264enc", "nvh264enc"],
            "gstreamer1.0-plugins-ugly": ["x264enc"],
            "gstreamer1.0-libav": ["avenc_aac"],
            "gstreamer1.0-plugins-base": ["opusenc", "oggmux"],
            "gstreamer1.0-vaapi": ["vaapih264enc"],
        ]
        return packages.first { $0.value.contains(element) }?.key ?? "the GStreamer plugin that provides it"
    }

    /// The error for an element that is not installed, naming the package to install.
    static func missing(_ element: String) -> MediaPubError {
        .missingElement(element, package(providing: element))
    }

    /// `error` with a missing element said as the application says it.
    static func withPackageHint(_ error: Error) -> Error {
        guard let missing = (error as? GStreamerError)?.missingElement else { return error }
        return GStreamer.missing(missing)
    }
}

extension Pipeline {
    /// A pipeline from a gst-launch description; a missing element names its package.
    convenience init(description: String) throws {
        do { try self.init(parsing: description) } catch { throw GStreamer.withPackageHint(error) }
    }

    /// Adds a bin built from `description` (see `addBin(parsing:)`); a missing element names its package.
    func addBin(description: String) throws -> Element {
        do { return try addBin(parsing: description) } catch { throw GStreamer.withPackageHint(error) }
    }
}

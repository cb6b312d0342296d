import CCurl
import CSRT
import CYAML
import Foundation

/// The versions of the C libraries mediapub runs on (`mediapub --version`).
public enum Versions {
    public static var libraries: String {
        let gst = GStreamer.version
        let curl = String(cString: curl_version()).split(separator: " ").first.map(String.init) ?? "libcurl"
        let srt = UInt32(truncatingIfNeeded: srt_getversion())
        let yaml = String(cString: yaml_get_version_string())
        return "\(gst), \(curl), libsrt/\(srt >> 16).\((srt >> 8) & 0xFF).\(srt & 0xFF), libyaml/\(yaml)"
    }
}

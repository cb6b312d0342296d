import Foundation

/// Errors of the library, each one line that names the thing at fault.
public enum MediaPubError: Error, CustomStringConvertible, Equatable {
    case badSource(String, String)
    case sourceFailed(String, String)
    case tooManyPlayers(Int)
    case missingElement(String, String)
    /// A hardware element whose plugin is installed but found no device: element, package, the device it needs.
    case elementWithoutDevice(String, String, String)
    /// An element that is installed but cannot open (its device, driver or library): element, why.
    case elementCannotOpen(String, String)
    case pipeline(String)
    case output(String, String)
    case usage(String)

    public var description: String {
        switch self {
        case .badSource(let source, let why): return "source \(SecretMask.mask(url: source)): \(why)"
        case .sourceFailed(let source, let why): return "source \(SecretMask.mask(url: source)): \(why)"
        case .tooManyPlayers(let max): return "at most \(max) players; a \(max + 1)th is refused"
        case .missingElement(let element, let package): return "GStreamer element \(element) is missing (install \(package))"
        case .elementWithoutDevice(let element, let package, let device):
            return "GStreamer element \(element) is not available: \(package) is installed, but it found no \(device)"
        case .elementCannotOpen(let element, let why): return "GStreamer element \(element) cannot start: \(why)"
        case .pipeline(let why): return why
        case .output(let url, let why): return "output \(SecretMask.mask(url: url)): \(why)"
        case .usage(let why): return why
        }
    }

    /// `reason` of a MediaPubError, the description of any other error.
    static func reason(of error: Error) -> String { (error as? MediaPubError)?.reason ?? "\(error)" }

    /// The message without the source or output it names, for callers that name it themselves.
    public var reason: String {
        switch self {
        case .badSource(_, let why), .sourceFailed(_, let why), .output(_, let why): return why
        default: return description
        }
    }
}

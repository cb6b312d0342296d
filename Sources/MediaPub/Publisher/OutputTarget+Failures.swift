/// What an ERROR on an output's pipeline comes to, decided by the output's transport:
/// each one's rules are in its own file (RTMPRefusal.swift, SRTRejection.swift,
/// IcecastRefusal.swift, DiskSpace.swift), and `Output+BusMessages.swift` carries out
/// what they decide.
enum OutputErrorVerdict: Equatable, Sendable {
    case failed(OutputFailure)
    /// srtsink does not say why a listener refused the caller: the listener is asked
    /// (`SRTRejection`, off the bus's thread); `otherwise` is the failure when it took the handshake.
    case askListener(NetworkEndpoint, otherwise: OutputFailure)
}

/// What an output knows when its pipeline fails, beside the error itself.
struct OutputErrorContext: Equatable, Sendable {
    /// The connection never got going (connecting or reconnecting, not publishing).
    var connecting: Bool
    /// A recording's file being written (nil: none, or not a recording).
    var written: String?
    /// The folder a recording or HLS output writes in (nil: not written to disk).
    var folder: String?
    /// That folder's disk has less room than a start needs (`DiskSpace.isShort`).
    var diskShort = false
}

extension OutputTarget {
    /// What `error` of this output's pipeline comes to.
    func verdict(on error: ErrorMessage, _ context: OutputErrorContext) -> OutputErrorVerdict {
        switch self {
        case .rtmp: return .failed(RTMPRefusal.failure(of: error, connecting: context.connecting))
        case .srt(let endpoint): return SRTRejection.verdict(on: error, endpoint, connecting: context.connecting)
        case .icecast: return .failed(IcecastRefusal.failure(of: error))
        case .file, .hls, .null: return .failed(DiskSpace.failure(of: error, context))
        }
    }

    /// An error no rule of its transport names: GStreamer's words, with the element that said them.
    static func libraryFailure(_ error: ErrorMessage) -> OutputFailure {
        OutputFailure("\(error.source): \(error.message)", .library(error.code))
    }
}

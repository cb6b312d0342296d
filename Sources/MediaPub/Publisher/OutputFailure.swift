/// Why an output failed: the words for people (status `error`, the `output.state` event's
/// `error`, docs/events.md) and the cause that decides what the supervisor does about it
/// (retry, retry on the slow end of the backoff, give up), never read from the words.
/// What `SourceFailure` is for a source. Each transport names the cause of its own
/// errors (OutputTarget+Failures.swift and the files it names); thrown, it is the
/// output's failure as it stands.
struct OutputFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// What status and the `output.state` event say (scrubbed of secrets by the output).
    let text: String
    let cause: Cause
    var description: String { text }

    init(_ text: String, _ cause: Cause) { (self.text, self.cause) = (text, cause) }

    enum Cause: Sendable, Equatable {
        /// The server refused us: stream key, application, credentials, passphrase, an
        /// Icecast login or mount (`rejected: …`). Retried on the slow end of the backoff.
        case refused
        /// Nobody answered where the output connects (an SRT listener that does not
        /// answer the handshake, a host that cannot be resolved).
        case unreachable
        /// A stage of the connect got no further within its deadline (`connect: …`).
        case connectTimeout
        /// The peer, the server or the disk took nothing for `reconnect.stall` (`stalled: …`,
        /// `writing … stalled: …`).
        case stalled
        /// A connection that had got going broke (an SRT caller's listener said nothing
        /// for libsrt's peer timeout).
        case connectionLost
        /// The server answered something that is not its protocol (garbage that breaks
        /// rtmp2sink, an Icecast server that answers no HTTP).
        case badAnswer
        /// A recording's disk is full, or too full to begin: retried like a network output.
        case diskFull
        /// A GStreamer element is not installed: no retry brings it.
        case missingElement
        /// The output could not be set up: its folder, its file, its pipeline.
        case setup
        /// An ERROR of the output's pipeline that its transport names no better:
        /// GStreamer's domain and code.
        case library(ErrorCode)
    }

    /// No retry can help: the output fails for good.
    var isFinal: Bool { cause == .missingElement }

    /// What a connect (or the start of a new file) threw: a failure of our own as it
    /// stands, GStreamer's missing element, anything else a set-up that failed.
    init(thrown error: Error) {
        switch error {
        case let failure as OutputFailure: self = failure
        case MediaPubError.missingElement: self.init("\(error)", .missingElement)
        case MediaPubError.output(_, let why): self.init(why, .setup)   // the state report names the output already
        case let full as DiskSpace: self.init(full.description, .diskFull)
        default: self.init("\(error)", .setup)
        }
    }

    /// The peer (an SRT listener) acknowledged nothing for `limit`.
    static func peerStalled(for limit: String) -> OutputFailure {
        OutputFailure("stalled: the peer acknowledged nothing for \(limit)", .stalled)
    }

    /// An RTMP or Icecast server's application read nothing for `limit`.
    static func serverStalled(for limit: String) -> OutputFailure {
        OutputFailure("stalled: the server read nothing for \(limit)", .stalled)
    }
}

extension OutputSupervision {
    /// A failure (its text already scrubbed), as its cause decides: a refusal is retried
    /// on the slow end of the backoff, a missing element never, a full disk like a network
    /// output. `random` in 0..<1 spreads the backoff.
    mutating func fail(_ failure: OutputFailure, connection: Int? = nil, random: Double) -> Failure {
        fail(failure.text, forGood: failure.isFinal, rejected: failure.cause == .refused, diskFull: failure.cause == .diskFull,
             connection: connection, random: random)
    }
}

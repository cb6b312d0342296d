import CSRT
import Foundation

/// Why an SRT listener refuses a caller. srtsink reports a refused handshake
/// only as "Failed to write to SRT socket: Connection does not exist"; a
/// handshake of our own, with the same passphrase and stream id, gets the
/// listener's reason (a wrong passphrase, a missing one, a refused stream id).
enum SRTRejection {
    /// SRT's application-level reject codes (SRT_REJC_PREDEFINED + HTTP-like status).
    private static let predefined: [Int32: String] = [
        1400: "bad request", 1401: "unauthorized (the stream id's credentials)", 1403: "forbidden",
        1404: "no such stream", 1405: "method not allowed", 1406: "not acceptable", 1409: "conflict (already publishing?)",
        1429: "too many connections", 1500: "the server failed", 1503: "the server is unavailable",
    ]

    /// What a handshake of ours with the listener of a caller URL came to.
    enum Outcome: Equatable {
        /// Accepted: whatever failed, it was not the handshake (or not a caller URL).
        case accepted
        /// The listener refused it, for this reason.
        case refused(String)
        /// Nobody answered at host:port within the timeout.
        case noAnswer(String)
    }

    /// The handshake's outcome for a caller of `endpoint` (`.accepted` for a listener).
    static func outcome(for endpoint: NetworkEndpoint, timeoutMs: Int32 = 1500) -> Outcome {
        let (host, port, query) = (endpoint.host, endpoint.port, endpoint.parameters)
        guard !endpoint.isListener, !host.isEmpty else { return .accepted }

        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let address = found else { return .noAnswer("\(host) cannot be resolved") }
        defer { freeaddrinfo(found) }

        let library = SRTLibraryHold()   // our socket's own hold, given back when it is closed
        defer { library.release() }
        let sock = srt_create_socket()
        guard sock != SRT_INVALID_SOCK else { return .accepted }
        defer { srt_close(sock) }
        var timeout = timeoutMs
        srt_setsockflag(sock, SRTO_CONNTIMEO, &timeout, Int32(MemoryLayout<Int32>.size))
        let passphrase = query["passphrase"] ?? ""
        if !passphrase.isEmpty { setString(sock, SRTO_PASSPHRASE, passphrase) }
        if let keyLength = query["pbkeylen"].flatMap({ Int32($0) }) {
            var value = keyLength
            srt_setsockflag(sock, SRTO_PBKEYLEN, &value, Int32(MemoryLayout<Int32>.size))
        }
        if let streamID = query["streamid"], !streamID.isEmpty { setString(sock, SRTO_STREAMID, streamID) }
        guard srt_connect(sock, address.pointee.ai_addr, Int32(address.pointee.ai_addrlen)) == SRT_ERROR else {
            return .accepted
        }
        let code = srt_getrejectreason(sock)
        switch code {
        case Int32(SRT_REJ_BADSECRET.rawValue):
            return .refused("the listener refused the passphrase")
        case Int32(SRT_REJ_UNSECURE.rawValue):
            return .refused(passphrase.isEmpty ? "the listener requires a passphrase" : "the listener does not use a passphrase")
        case Int32(SRT_REJ_PEER.rawValue):
            return .refused("the listener refused the connection")
        case 1000...:
            return .refused("the listener refused the stream id: " + (predefined[code] ?? "code \(code)"))
        case Int32(SRT_REJ_TIMEOUT.rawValue):
            return .noAnswer("no SRT listener answers at \(host):\(port) (the handshake timed out)")
        default:
            return .accepted   // some other trouble: not the listener's refusal
        }
    }

    private static func setString(_ sock: SRTSOCKET, _ option: SRT_SOCKOPT, _ value: String) {
        var bytes = Array(value.utf8)
        srt_setsockflag(sock, option, &bytes, Int32(bytes.count))
    }
}

/// What srtsink's errors come to (OutputTarget+Failures.swift).
extension SRTRejection {
    /// Why an SRT caller whose connection had got going reconnects when srtsink fails.
    static let connectionBroke = "the SRT listener stopped answering: the connection broke"

    /// What an ERROR of srtsink's pipeline comes to. A caller still `connecting`: its
    /// listener is asked why (srtsink says only "Failed to write to SRT socket: Connection
    /// does not exist"); one that had got going: libsrt heard nothing from the listener
    /// for its peer timeout (srtsink says only "Error on SRT socket"). A listener's own
    /// errors: GStreamer's words.
    static func verdict(on error: ErrorMessage, _ endpoint: NetworkEndpoint, connecting: Bool) -> OutputErrorVerdict {
        let words = OutputTarget.libraryFailure(error)
        if endpoint.isListener { return .failed(words) }
        if connecting { return .askListener(endpoint, otherwise: words) }
        return .failed(error.source == "sink" ? OutputFailure(connectionBroke, .connectionLost) : words)
    }

    /// The listener's answer to our handshake: its refusal, nobody there, or (it took the
    /// handshake: something else failed) `otherwise`.
    static func failure(after outcome: Outcome, otherwise: OutputFailure) -> OutputFailure {
        switch outcome {
        case .refused(let why): return OutputFailure("rejected: \(why)", .refused)
        case .noAnswer(let why): return OutputFailure(why, .unreachable)
        case .accepted: return otherwise
        }
    }
}

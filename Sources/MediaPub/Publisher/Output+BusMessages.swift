import Foundation

/// What a connection's pipeline says on its bus: end of stream, a finished file, an error.
extension Output {
    func handle(_ message: BusMessage, connection: Int) {
        let (current, neverGotGoing, written) = state.withLock { s in
            (s.supervision.isCurrent(connection), s.supervision.state != .publishing, s.recording?.path)
        }
        guard current else { return }  // a torn-down connection's last words
        switch message {
        case .endOfStream:
            publishPlaylist()
            eos.signal()
        case .fragmentClosed(let location):
            if let location { finished(location) } else { publishPlaylist() }
        case .error(let error):
            let (source, text) = (error.source, error.message)
            if case .srt(let endpoint) = target, neverGotGoing {
                // srtsink posts more than one error for one failed connect: the listener is
                // asked once per connection (each question holds the queue for its timeout).
                let first = state.withLock { s in
                    defer { s.srtAsked = connection }
                    return s.srtAsked != connection
                }
                guard first else { return }
                // srtsink does not say why a listener refused it: ask the listener (off this
                // thread), unless the run is ending (the answer would only hold the stop up).
                queue.async { [self] in
                    if state.withLock({ $0.supervision.finishing }) {
                        fail("\(source): \(text)", connection: connection)
                        return
                    }
                    switch SRTRejection.outcome(for: endpoint) {
                    case .refused(let why): fail("rejected: \(why)", rejected: true, connection: connection)
                    case .noAnswer(let why): fail(why, connection: connection)
                    case .accepted: fail("\(source): \(text)", connection: connection)
                    }
                }
                return
            }
            if isSRTCaller, error.source == "sink" {
                // A connection that had got going broke: libsrt heard nothing from the
                // listener for its peer timeout (srtsink says only "Error on SRT socket").
                fail(Self.srtConnectionBroke, connection: connection)
                return
            }
            if case .icecast = target {
                let (why, refused) = IcecastRefusal.describe(error)
                fail(refused ? "rejected: the server refused the source login: \(why)" : why, rejected: refused, connection: connection)
                return
            }
            if case .rtmp = target, let why = RTMPRefusal.reason(of: error) {
                fail("rejected: \(why)", rejected: true, connection: connection)
                return
            }
            if case .rtmp = target, neverGotGoing, let why = ConnectDeadline.sinkTimedOut(text) {
                fail(why, connection: connection)
                return
            }
            // A recording's trouble names its file (a full disk: "No space left on the resource.").
            if let folder = diskFolder, DiskSpace.isFull(error) || (error.code.isResource && DiskSpace.isShort(in: folder)) {
                diskFilled("writing \(written ?? folder) failed: \(text)", connection: connection)
            } else {
                fail(written.map { "writing \($0) failed: \(text)" } ?? "\(source): \(text)")
            }
        default:
            break
        }
    }

    /// Why an SRT caller whose connection had got going reconnects when srtsink fails.
    static let srtConnectionBroke = "the SRT listener stopped answering: the connection broke"
}

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
            let folder = diskFolder
            let context = OutputErrorContext(connecting: neverGotGoing, written: written, folder: folder,
                                             diskShort: error.code.isResource && folder.map(DiskSpace.isShort) == true)
            switch target.verdict(on: error, context) {
            case .failed(let failure) where failure.cause == .diskFull:
                diskFilled(failure, connection: connection)
            case .failed(let failure):
                fail(failure, connection: connection)
            case .askListener(let endpoint, let otherwise):
                // srtsink posts more than one error for one failed connect: the listener is
                // asked once per connection (each question holds the queue for its timeout).
                let first = state.withLock { s in
                    defer { s.srtAsked = connection }
                    return s.srtAsked != connection
                }
                guard first else { return }
                // Off this thread; not when the run is ending (the answer would only hold the stop up).
                queue.async { [self] in
                    let finishing = state.withLock { $0.supervision.finishing }
                    fail(finishing ? otherwise : SRTRejection.failure(after: SRTRejection.outcome(for: endpoint), otherwise: otherwise),
                         connection: connection)
                }
            }
        default:
            break
        }
    }
}

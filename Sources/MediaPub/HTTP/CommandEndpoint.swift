import Foundation

/// `POST /api/command` (docs/http.md): the body is one control request as the socket
/// takes it, read by the socket's own parser (`ControlRequest`), run in the socket's
/// lanes (`ControlLanes`, shared with it: docs/control.md, Ordering) by the same
/// handler, answered with the same reply.
final class CommandEndpoint: Sendable {
    private let lanes: ControlLanes
    private let handle: @Sendable ([String]) -> ControlReply

    init(lanes: ControlLanes, handle: @escaping @Sendable ([String]) -> ControlReply) {
        self.lanes = lanes
        self.handle = handle
    }

    /// The request in `body`: nil when it is JSON but no object (answered as the socket
    /// answers such a line); a failure, with the parser's words, when it is not JSON.
    static func request(from body: Data) -> Result<ControlRequest?, ControlFailure> {
        do {
            _ = try JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
        } catch {
            return .failure(ControlFailure("not JSON: \(parseError(error))"))
        }
        return .success(ControlRequest(line: String(decoding: body, as: UTF8.self)))
    }

    /// The parser's own words for why `error` happened (where in the text, what it found).
    static func parseError(_ error: Error) -> String {
        ((error as NSError).userInfo["NSDebugDescription"] as? String) ?? "\(error)"
    }

    /// Runs `request` in its lane; `done` gets whether the reply is `"ok":true` and the
    /// reply line, on the lane's thread.
    func run(_ request: ControlRequest?, done: @escaping @Sendable (_ ok: Bool, _ line: String) -> Void) {
        let words = (try? request?.words.get()) ?? []
        let handle = self.handle
        lanes.run(words.isEmpty ? .read : ControlLane.of(words)) {
            var ok = !words.isEmpty
            let line = ControlRequest.answer(request) { words in
                let reply = handle(words)
                if case .failure = reply { ok = false }
                return reply
            }
            done(ok, line)
        }
    }
}

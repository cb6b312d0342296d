import Foundation
import Synchronization

/// `GET /api/thumbnail.jpg` (docs/http.md): the output picture after the overlays, as a JPEG
/// at most `ThumbnailCache.maxAge` old. A picture is taken from the encoder (`FrameGrab`) only
/// when the cache has none fresh for the width asked, so 50 viewers cost one JPEG a second, and
/// none costs nothing. The work is done on the `thumbnail` queue, one request at a time (one tick
/// for the picture, milliseconds for the JPEG); the HTTP server is answered from there
/// (`answer(query:then:)`), so neither it nor the output timeline waits for it.
final class Thumbnails: Sendable {
    enum Answer: Equatable, Sendable {
        case jpeg(Data)
        /// 400: the width asked is not one that can be made.
        case badRequest(String)
        /// 503 (404 in a run without pictures): nothing to show.
        case unavailable(status: UInt32, reason: String)
    }

    private let grab: @Sendable () -> FrameGrab?
    private let output: ThumbnailSize?
    private let queue = DispatchQueue(label: "thumbnail")
    /// Touched on `queue` only (the Mutex makes it Sendable; it is never contended).
    private struct State {
        var cache = ThumbnailCache()
        var encoders: [Int: JPEGEncoder] = [:]
        var stopped = false
    }
    private let state = Mutex(State())
    /// How long a request waits for the encoder's next picture, and then for its JPEG.
    static let pictureWait: TimeInterval = 1

    /// `grab`: the encoder's picture grab (nil until the publisher is made); `output`: the
    /// output picture's size (nil in a run without pictures).
    init(output: (width: Int, height: Int)?, grab: @escaping @Sendable () -> FrameGrab?) {
        self.output = output.map { ThumbnailSize(width: $0.width, height: $0.height) }
        self.grab = grab
    }

    /// The thumbnail `query` asks for, made on the `thumbnail` queue while the caller waits.
    func answer(query: String?) -> Answer {
        switch size(query) {
        case .success(let size): return queue.sync { make(size) }
        case .failure(let refusal): return refusal.answer
        }
    }

    /// As `answer(query:)`, without waiting: a JPEG under 1 s old, or a refusal, is returned at
    /// once; nil: one is being made, and is handed to `then` on the `thumbnail` queue.
    func answer(query: String?, then: @escaping @Sendable (Answer) -> Void) -> Answer? {
        switch size(query) {
        case .success(let size):
            if let jpeg = state.withLock({ $0.stopped ? nil : $0.cache.fresh(width: size.width, now: Self.now) }) { return .jpeg(jpeg) }
            queue.async { [self] in then(make(size)) }
            return nil
        case .failure(let refusal): return refusal.answer
        }
    }

    private struct Refusal: Error { let answer: Answer }

    private func size(_ query: String?) -> Result<ThumbnailSize, Refusal> {
        guard let output else { return .failure(Refusal(answer: .unavailable(status: 404, reason: "this run has no pictures"))) }
        return ThumbnailSize.asked(query, output: (output.width, output.height)).mapError { Refusal(answer: .badRequest($0.message)) }
    }

    /// On `queue`.
    private func make(_ size: ThumbnailSize) -> Answer {
        let (cached, stopped) = state.withLock { ($0.cache.fresh(width: size.width, now: Self.now), $0.stopped) }
        if let cached { return .jpeg(cached) }
        if stopped { return .unavailable(status: 503, reason: "the run is over") }
        guard let grab = grab(), let picture = grab.next(timeout: Self.pictureWait) else {
            return .unavailable(status: 503, reason: "no picture is being encoded yet")
        }
        let encoder: JPEGEncoder
        if let made = state.withLock({ $0.encoders[size.width] }) {
            encoder = made
        } else {
            do { encoder = try JPEGEncoder(size: size) } catch {
                return .unavailable(status: 503, reason: "cannot make a JPEG: \(error)")
            }
        }
        guard let jpeg = encoder.encode(picture, timeout: Self.pictureWait) else {
            encoder.stop()
            state.withLock { $0.encoders[size.width] = nil }
            return .unavailable(status: 503, reason: "the JPEG did not come")
        }
        let dropped = state.withLock { s -> [JPEGEncoder] in
            s.encoders[size.width] = encoder
            s.cache.store(jpeg, width: size.width, now: Self.now)
            let kept = Set(s.cache.widths)
            let gone = s.encoders.filter { !kept.contains($0.key) }
            for width in gone.keys { s.encoders[width] = nil }
            return Array(gone.values)
        }
        for encoder in dropped { encoder.stop() }
        return .jpeg(jpeg)
    }

    /// Stops the JPEG pipelines; later requests are answered 503.
    func stop() {
        queue.sync {
            let encoders = state.withLock { s -> [JPEGEncoder] in
                s.stopped = true
                defer { s.encoders.removeAll() }
                return Array(s.encoders.values)
            }
            for encoder in encoders { encoder.stop() }
        }
    }

    private static var now: TimeInterval { ProcessInfo.processInfo.systemUptime }
}

import Foundation

/// What a run offers the world while it runs, besides its outputs: the
/// webhook (from before the first event), the control socket, and the HTTP server
/// (`/metrics`, `/health`, the API: docs/http.md), whose commands run in the control
/// socket's lanes.
/// Used by the run's own thread only; stopped in reverse order.
struct RunServices {
    private var webhook: Webhook?
    private var control: ControlServer?
    private var http: HTTPServer?
    /// The page's thumbnail's JPEG pipelines, stopped once the server is.
    private var thumbnails: Thumbnails?
    /// Where control commands run, from the socket and from HTTP alike.
    private let lanes = ControlLanes()
    private let reporter: Reporter

    /// The HTTP server's event stream (`GET /api/events`), with `--http`.
    private let eventStream: EventStream?

    /// Starts the webhook, when the preset has one, and the HTTP server's event stream with
    /// `--http`: each hears every event from here on (the stream's ring from the run's first).
    init(webhook url: String?, eventStream: Bool, reporter: Reporter) {
        self.reporter = reporter
        self.eventStream = eventStream ? EventStream() : nil
        self.eventStream?.listen(to: reporter.events)
        if let url {
            let hook = Webhook(url: url, log: reporter.log) { [reporter] text in reporter.report(.warning(text)) }
            reporter.events.addListener { hook.send($0) }
            webhook = hook
        }
    }

    /// The control socket and `/metrics`, as `options` ask. Either failing is a
    /// warning, and the run goes on without it, unless another running instance
    /// answers on the control path: that is thrown, and nothing should start.
    mutating func start(_ options: RunOptions, for broadcast: Broadcast) throws(ControlPathInUse) {
        let log = reporter.log
        if let path = options.controlPath {
            do {
                control = try ControlServer(path: path, limits: .standard, lanes: lanes) { [weak broadcast] words in
                    guard let broadcast else { return .failure("stopping") }
                    return ControlCommands.handle(words, broadcast: broadcast)
                }
                log.info("control socket \(path)")
            } catch let inUse as ControlPathInUse {
                throw inUse
            } catch {
                log.warn("\(error); running without a control socket")
            }
        }
        if let spec = options.http {
            do {
                let site = site(options, for: broadcast)
                thumbnails = site.thumbnails
                let server = try HTTPServer(spec: spec, flag: options.httpFlag, site: site)
                log.info("http at http://\(server.address)/ (metrics at /metrics)")
                http = server
            } catch {
                log.warn("\(error); running without the HTTP server")
            }
        }
    }

    /// What the HTTP server answers, from the run (docs/http.md).
    private func site(_ options: RunOptions, for broadcast: Broadcast) -> HTTPSite {
        var site = HTTPSite()
        site.health = { [weak broadcast] in broadcast?.health() ?? Health(ok: false, reason: "the run is over") }
        site.metrics = { [weak broadcast, webhook] in
            broadcast.map { MetricsExposition.render($0.status(), drops: $0.consumerDrops + [webhook?.drops].compactMap { $0 }) } ?? ""
        }
        let handle: @Sendable ([String]) -> ControlReply = { [weak broadcast] words in
            guard let broadcast else { return .failure("stopping") }
            return ControlCommands.handle(words, broadcast: broadcast)
        }
        site.read = handle
        site.scheduleLines = { [weak broadcast] hours in
            guard let runner = broadcast?.programmeRunner else { return nil }
            let now = runner.now
            return ScheduleListing.lines(runner.programme, from: now, to: now.addingTimeInterval(Double(hours) * 3600))
        }
        site.log = { [log = reporter.log] n in log.recent.last(n) }
        site.bitrates = { [weak broadcast] in
            guard let status = broadcast?.status() else { return (0, []) }
            return (status.uptimeMs, status.outputs.map { ($0.id, $0.bitrateKbps) })
        }
        site.commands = CommandEndpoint(lanes: lanes, handle: handle)
        site.events = eventStream
        site.token = options.httpToken
        site.publicRead = broadcast.preset.http.publicRead
        site.thumbnails = Thumbnails(output: broadcast.pictureSize) { [weak broadcast] in broadcast?.pictureGrab }
        return site
    }

    /// Stops the HTTP server and the control socket, then gives the events' destinations,
    /// the log and the webhook a short while in all to take what is queued (and the
    /// first two a moment more for what the webhook said meanwhile).
    func stop() {
        http?.stop()
        thumbnails?.stop()
        control?.stop()
        let deadline = MonotonicInstant.now.addingTimeInterval(2)
        reporter.events.flush(until: deadline)
        reporter.log.flush(until: deadline)
        webhook?.drain(until: deadline)
        let last = MonotonicInstant.now.addingTimeInterval(0.5)
        reporter.events.flush(until: last)
        reporter.log.flush(until: last)
    }
}

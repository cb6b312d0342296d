import Foundation

/// What a run offers the world while it runs, besides its outputs: the
/// webhook (from before the first event), the control socket, `/metrics` and `/health`.
/// Used by the run's own thread only; stopped in reverse order.
struct RunServices {
    private var webhook: Webhook?
    private var control: ControlServer?
    private var metrics: MetricsServer?
    private let reporter: Reporter

    /// Starts the webhook, when the preset has one: it hears every event from here on.
    init(webhook url: String?, reporter: Reporter) {
        self.reporter = reporter
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
                control = try ControlServer(path: path) { [weak broadcast] words in
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
        if let spec = options.metrics {
            do {
                let server = try MetricsServer(spec: spec, health: { [weak broadcast] in
                    broadcast?.health() ?? Health(ok: false, reason: "the run is over")
                }, render: { [weak broadcast, webhook] in
                    broadcast.map { MetricsExposition.render($0.status(), drops: $0.consumerDrops + [webhook?.drops].compactMap { $0 }) } ?? ""
                })
                log.info("metrics at http://\(server.address)/metrics")
                metrics = server
            } catch {
                log.warn("\(error); running without metrics")
            }
        }
    }

    /// Stops `/metrics` and the control socket, then gives the events' destinations,
    /// the log and the webhook a short while in all to take what is queued (and the
    /// first two a moment more for what the webhook said meanwhile).
    func stop() {
        metrics?.stop()
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

import Foundation

/// The reconnect supervisor's bookkeeping for one output, as a value (no threads,
/// no clock of its own): its state, its last error, the backoff and give-up
/// decisions, and the generation that tells the current connection from torn-down
/// ones. `Output` keeps it in its state and carries out what it decides.
struct OutputSupervision: Equatable {
    /// What a failure comes to.
    enum Failure: Equatable {
        /// About a connection that is no longer the current one: nothing happens.
        case stale
        /// The output is finishing or over already: nobody retries (whoever waits for the end stops waiting).
        case over
        /// Reported as `state` (reconnecting or failed); `retryAfter` is the backoff
        /// when it retries, nil when it gave up. `connection` is the failure's own generation.
        case reported(OutputState, connection: Int, retryAfter: TimeInterval?)
    }

    /// A connection that held this long counts as recovered: the backoff starts over.
    static let recoveredAfter: TimeInterval = 30

    let reconnect: ReconnectConfig
    /// Network outputs retry; a recording that fails has failed.
    let retries: Bool
    private(set) var state: OutputState = .connecting
    private(set) var lastError: String?
    /// Counts connections (and failures), so that what a torn-down one says is not taken for the current one's.
    private(set) var generation = 0
    private(set) var reconnects = 0
    /// Retries since the output last held a connection (the backoff's exponent).
    private(set) var attempt = 0
    private(set) var firstFailure: MonotonicInstant?
    private(set) var connectedAt: MonotonicInstant
    /// Set by `finish`: nothing reconnects any more.
    private(set) var finishing = false

    init(reconnect: ReconnectConfig, retries: Bool, now: MonotonicInstant = .now) {
        self.reconnect = reconnect
        self.retries = retries
        connectedAt = now
    }

    /// Whether `connection` is still the current one.
    func isCurrent(_ connection: Int) -> Bool { connection == generation }

    /// A new connection was made: its generation.
    mutating func connected(at now: MonotonicInstant = .now) -> Int {
        generation += 1
        connectedAt = now
        return generation
    }

    /// The output is publishing (from connecting or reconnecting): true when that is news.
    /// `connection`: the connection it is about (nil: whatever is current).
    mutating func publishing(connection: Int? = nil) -> Bool {
        if let connection, !isCurrent(connection) { return false }
        guard state == .connecting || state == .reconnecting else { return false }
        state = .publishing
        lastError = nil   // recovered: the last error is history
        return true
    }

    /// A failure, `why` already scrubbed. `forGood`: no retry can help. `rejected`: the
    /// server refused us (key, passphrase): retried on the slow end of the backoff, not
    /// hammered. `diskFull`: a recording's disk filled: retried like a network output.
    /// `random` in 0..<1 spreads the backoff.
    mutating func fail(_ why: String, forGood: Bool = false, rejected: Bool = false, diskFull: Bool = false,
                       connection: Int? = nil, at now: MonotonicInstant = .now, random: Double) -> Failure {
        if let connection, !isCurrent(connection) { return .stale }
        if finishing, state != .failed, state != .stopped {
            // Failing while the file is finished (the last writes hit a full disk): it is
            // reported failed, with why, when the output stops.
            lastError = why
            state = .failed
        }
        if finishing || state == .failed || state == .stopped { return .over }
        lastError = why
        generation += 1
        if now.timeIntervalSince(connectedAt) > Self.recoveredAfter { firstFailure = nil; attempt = 0 }
        let first = firstFailure ?? now
        firstFailure = first
        let givingUp = forGood || !(retries || diskFull) || now.timeIntervalSince(first) >= reconnect.giveUpAfter
        state = givingUp ? .failed : .reconnecting
        attempt += 1
        let delay = reconnect.delay(attempt: rejected ? 64 : attempt, random: random)
        return .reported(state, connection: generation, retryAfter: givingUp ? nil : delay)
    }

    /// The backoff after failure `connection` is over: true when that retry is still
    /// wanted (not superseded by a `ctl reconnect`, not shutting down); it counts.
    mutating func retryDue(after connection: Int) -> Bool {
        guard !finishing, isCurrent(connection), state == .reconnecting else { return false }
        reconnects += 1
        return true
    }

    /// `ctl reconnect`: true when the output reconnects now (which supersedes a pending retry).
    mutating func reconnectRequested() -> Bool {
        guard !finishing, state != .stopped else { return false }
        generation += 1
        reconnects += 1
        attempt = 0
        state = .reconnecting
        return true
    }

    /// The recording's file went away while publishing: a new one is begun (the old
    /// file's pipeline has nothing more to say).
    mutating func recordingLost() {
        generation += 1
        reconnects += 1
        state = .reconnecting
    }

    /// `finish` began: the state it had.
    mutating func beginFinishing() -> OutputState {
        finishing = true
        return state
    }

    /// `finish` is done: failed stays failed (with why), anything else is stopped.
    mutating func stop() -> (state: OutputState, why: String?) {
        state = state == .failed ? .failed : .stopped
        return (state, state == .failed ? lastError : nil)
    }
}

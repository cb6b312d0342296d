/// Too many failed tokens from one address (docs/http.md, Bad input): after `limit`
/// failures within `window` seconds, that address is refused (429) until the oldest of
/// them is `window` old. A pure value: times are given (seconds on a monotonic clock).
/// It never grows past `maxAddresses` addresses: when full, the address whose last
/// failure is oldest is forgotten.
struct FailureLimiter: Sendable {
    let limit: Int
    let window: Double
    let maxAddresses: Int
    /// Each address's failures within the window, oldest first (at most `limit`).
    private var failures: [String: [Double]] = [:]

    init(limit: Int = 10, window: Double = 60, maxAddresses: Int = 1024) {
        self.limit = max(1, limit)
        self.window = window
        self.maxAddresses = max(1, maxAddresses)
    }

    /// Whether `address` is refused at `now`.
    func isBlocked(_ address: String, now: Double) -> Bool {
        guard let times = failures[address], times.count >= limit else { return false }
        return now - times[times.count - limit] < window
    }

    /// Counts a failure of `address` at `now`.
    mutating func recordFailure(_ address: String, now: Double) {
        var times = (failures[address] ?? []).filter { now - $0 < window }
        times.append(now)
        if times.count > limit { times.removeFirst(times.count - limit) }
        if failures[address] == nil, failures.count >= maxAddresses { forgetOne(now: now) }
        failures[address] = times
    }

    /// How many addresses are remembered.
    var addresses: Int { failures.count }

    /// Forgets the addresses whose failures are all out of the window; if none, the one
    /// whose last failure is oldest.
    private mutating func forgetOne(now: Double) {
        failures = failures.filter { _, times in times.contains { now - $0 < window } }
        guard failures.count >= maxAddresses,
              let stalest = failures.min(by: { ($0.value.last ?? 0) < ($1.value.last ?? 0) })?.key else { return }
        failures[stalest] = nil
    }
}

import Foundation

/// What a player does when its current item fails: a network source that may
/// mend is retried (1 s, 2 s, 4 s); media that broke after it played ends there
/// (what decoded plays out); anything else is skipped (a playlist), ends the list
/// (when something of the run played) or fails the player. A value the player
/// keeps in its state.
struct RetryPolicy: Equatable, Sendable {
    static let maxRetries = 3

    /// Retries of the current item so far.
    private(set) var retries = 0
    /// Items failed in a row (a list whose every item fails is over).
    private(set) var failuresInARow = 0
    /// Retries of an endless stream whose origin stopped, since it last played (the backoff's step).
    private(set) var endlessRetries = 0

    enum Decision: Equatable {
        case retry(after: TimeInterval)
        case playOut
        case skip
        case end
        case fail
    }

    /// What is known of the failed item and the player when it failed.
    struct Situation {
        var failure: SourceFailure
        /// Read over HTTP(S).
        var isNetwork: Bool
        var stopped = false
        /// The item played some of itself before it broke.
        var hasPlayed = false
        var itemCount = 1
        /// Some item played since the last start or load.
        var playedSinceStart = false
    }

    /// Decides, counting the failure. `advance` moves the playlist on to the next
    /// item (false when there is none); it is called only for a skip.
    mutating func decide(_ s: Situation, advance: () -> Bool) -> Decision {
        if s.isNetwork, s.failure.isTransient, retries < RetryPolicy.maxRetries, !s.stopped {
            retries += 1
            return .retry(after: Double(1 << (retries - 1)))
        }
        retries = 0
        if s.hasPlayed { return .playOut }
        failuresInARow += 1
        if s.itemCount > 1, failuresInARow < s.itemCount, advance() { return .skip }
        return s.playedSinceStart ? .end : .fail
    }

    /// An endless stream whose origin stopped is retried once more: the retry's number (1, 2, …),
    /// for the backoff (`ReconnectConfig.delay`).
    mutating func retryEndless() -> Int {
        endlessRetries += 1
        return endlessRetries
    }

    /// The item prerolled: earlier failures are history.
    mutating func itemPlays() {
        retries = 0
        failuresInARow = 0
        endlessRetries = 0
    }

    /// An item was chosen (start, next, previous, a new source): failures before it do not count.
    mutating func itemChosen() {
        failuresInARow = 0
        endlessRetries = 0
    }
}
